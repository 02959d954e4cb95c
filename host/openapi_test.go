package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	valerrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"

	"github.com/tracecraft/tracecraft/host/internal/api"
	"github.com/tracecraft/tracecraft/internal/testbin"
)

// spec is the OpenAPI document a host serves, parsed and checked by libopenapi.
type spec struct {
	raw       map[string]any
	doc       libopenapi.Document
	validator validator.Validator
}

// fetchSpec gets /api/openapi.json and fails the test unless libopenapi-validator
// finds it a valid OpenAPI 3.1 document.
func fetchSpec(t *testing.T, h *host) spec {
	t.Helper()
	r := h.get("/api/openapi.json")
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /api/openapi.json: %s", r)
	}
	doc, err := libopenapi.NewDocument(r.body)
	if err != nil {
		t.Fatalf("libopenapi cannot read the document: %v", err)
	}
	if v := doc.GetSpecInfo().Version; v != "3.1.0" {
		t.Errorf("openapi version %q, want 3.1.0", v)
	}
	if _, err := doc.BuildV3Model(); err != nil {
		t.Fatalf("libopenapi cannot build the model: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("no validator for the document: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		t.Fatalf("the document is not valid OpenAPI 3.1:\n%s", validationErrors(verrs))
	}
	return spec{raw: r.json, doc: doc, validator: v}
}

// validationErrors lists validation errors, one a line.
func validationErrors(errs []*valerrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "- %s: %s", e.Message, e.Reason)
		if where, ok := e.Context.(string); ok && len(where) < 200 {
			fmt.Fprintf(&b, " (at %s)", where)
		}
		b.WriteByte('\n')
		for _, se := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "    %s (%s): %s\n", se.FieldPath, se.KeywordLocation, se.Reason)
		}
	}
	return b.String()
}

// operation returns the document's operation for method and path, or nil.
func (s spec) operation(method, path string) map[string]any {
	paths, _ := s.raw["paths"].(map[string]any)
	item, _ := paths[path].(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	return op
}

// schema returns the component schema called name.
func (s spec) schema(name string) map[string]any {
	comps, _ := s.raw["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	sc, _ := schemas[name].(map[string]any)
	return sc
}

var ginParam = regexp.MustCompile(`[:*]([A-Za-z0-9_]+)`)

// oasPath writes a Gin route template the OpenAPI way: /a/:id becomes /a/{id}.
func oasPath(ginPath string) string { return ginParam.ReplaceAllString(ginPath, "{$1}") }

// openAPIHost is a host with test engines under the bundled names, a third-party
// stable engine and an experimental one, and a data dir for keys.
func openAPIHost(t *testing.T, flags ...string) (*host, string) {
	dir := newPlugins(t, "tracecraft", "vtracer", "potrace", "zeta")
	testbin.Install(t, testbin.TestEngine(t, "exp", "experimental"), dir, "exp")
	data := t.TempDir()
	return startHost(t, dir, data, append([]string{"--workers", "2"}, flags...)...), data
}

func TestTheOpenAPIDocumentIsValidAndDescribesEveryServedRoute(t *testing.T) {
	t.Parallel()
	h, _ := openAPIHost(t)
	s := fetchSpec(t, h)

	routes := (&api.Server{}).Routes()
	if len(routes) < 7 {
		t.Fatalf("the router lists only %d routes: %v", len(routes), routes)
	}
	served := map[string]bool{}
	for _, rt := range routes {
		path := oasPath(rt.Path)
		served[rt.Method+" "+path] = true
		if api.IsAsset(path) {
			// The page's assets change names every build: a client generator would make
			// methods of them whose names change too.
			if s.operation(rt.Method, path) != nil {
				t.Errorf("%s %s, an asset of the page, is in the document", rt.Method, path)
			}
		} else if s.operation(rt.Method, path) == nil {
			t.Errorf("%s %s is served but not described in the document", rt.Method, path)
		}
		// The route list is the real host's: each route answers there, not with 404 or 405.
		req, _ := http.NewRequest(rt.Method, h.url+strings.ReplaceAll(path, "{", "x"), nil)
		if r := do(t, req); r.status == 404 || r.status == 405 {
			t.Errorf("%s %s is in the router's list but the host answers %s", rt.Method, path, r)
		}
	}
	for path, item := range s.raw["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			if !served[strings.ToUpper(method)+" "+path] {
				t.Errorf("the document describes %s %s, which is not served", strings.ToUpper(method), path)
			}
		}
	}
	for _, want := range []string{"GET /metrics", "GET /api/openapi.json", "POST /api/vectorize"} {
		if !served[want] {
			t.Errorf("the router does not list %s", want)
		}
	}

	// Each error code of vectorize sits under the status the service answers it with.
	responses := s.operation("POST", "/api/vectorize")["responses"].(map[string]any)
	for status, code := range map[string]string{"400": "invalid_settings", "401": "invalid_api_key", "429": "queue_full",
		"500": "engine_crashed", "503": "job_timeout"} {
		resp, _ := responses[status].(map[string]any)
		if !strings.Contains(fmt.Sprint(resp["content"]), code) {
			t.Errorf("vectorize's %s response does not list %s: %v", status, code, resp)
		}
	}
	if h429, _ := responses["429"].(map[string]any); !strings.Contains(fmt.Sprint(h429["headers"]), "Retry-After") {
		t.Errorf("the 429 response lacks Retry-After: %v", h429)
	}
}

func TestTheOpenAPISettingsFollowTheInstalledEngines(t *testing.T) {
	t.Parallel()
	h, _ := openAPIHost(t)
	s := fetchSpec(t, h)

	engine, _ := s.schema("Settings")["properties"].(map[string]any)["engine"].(map[string]any)
	for _, want := range []string{"auto", "tracecraft", "vtracer", "potrace", "zeta", "exp"} {
		if !slices.Contains(engine["enum"].([]any), any(want)) {
			t.Errorf("settings.engine enum %v lacks %s", engine["enum"], want)
		}
	}
	zeta := s.schema("EngineParams.zeta")["properties"].(map[string]any)
	if action := zeta["action"].(map[string]any); len(action["enum"].([]any)) != 8 || action["default"] != "ok" {
		t.Errorf("zeta.action = %v, want the engine's 8 values and its default", action)
	}
	if ms := zeta["ms"].(map[string]any); ms["type"] != "integer" || ms["maximum"] != 600000.0 {
		t.Errorf("zeta.ms = %v, want an integer up to 600000", ms)
	}

	// The document's settings schema and the service agree on what is valid.
	model, err := s.doc.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	settingsSchema := model.Model.Components.Schemas.GetOrZero("Settings").Schema()
	sv := schema_validation.NewSchemaValidator()
	img := testbin.SolidPNG(t, 8, 8, color.NRGBA{40, 80, 120, 255})
	for _, tc := range []struct {
		name, settings string
		valid          bool
	}{
		{"an engine with good parameters", `{"engine":"zeta","zeta":{"action":"ok","ms":0}}`, true},
		{"a preset", `{"preset":"logo"}`, true},
		{"an experimental engine's colour", `{"engine":"exp","exp":{"color":"#ff8800"}}`, true},
		{"a fraction for an integer", `{"engine":"zeta","zeta":{"ms":1.5}}`, false},
		{"a value beyond the maximum", `{"zeta":{"ms":600001}}`, false},
		{"an unknown enum value", `{"zeta":{"action":"dance"}}`, false},
		{"an unknown parameter", `{"zeta":{"bogus":1}}`, false},
		{"an unknown engine", `{"engine":"nope"}`, false},
		{"an unknown key", `{"colour":1}`, false},
		{"a string too long", `{"zeta":{"color":"` + strings.Repeat("a", 300) + `"}}`, false},
		{"a number as a string", `{"zeta":{"ms":"16"}}`, false},
	} {
		ok, errs := sv.ValidateSchemaString(settingsSchema, tc.settings)
		if ok != tc.valid {
			t.Errorf("%s: the document's schema says valid=%v, want %v\n%s", tc.name, ok, tc.valid, validationErrors(errs))
		}
		r := h.vectorize(img, tc.settings)
		if served := r.status == 200; served != tc.valid {
			t.Errorf("%s: the service answered %s, want valid=%v", tc.name, r, tc.valid)
		}
	}

	// An engine installed while the host runs appears in the next document.
	testbin.Install(t, testbin.TestEngine(t, "newcomer", ""), h.pluginsDir, "newcomer")
	if !testbin.Eventually(15*time.Second, func() bool {
		return bytes.Contains(h.get("/api/openapi.json").body, []byte(`"EngineParams.newcomer"`))
	}) {
		t.Fatal("the newly installed engine never appeared in the document")
	}
	s = fetchSpec(t, h)
	if s.schema("EngineParams.newcomer")["properties"].(map[string]any)["action"] == nil {
		t.Errorf("newcomer's parameters are not described: %v", s.schema("EngineParams.newcomer"))
	}
}

func TestRealAnswersMatchTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	h, data := openAPIHost(t, "--job-timeout", "2s")
	key, errOut, code := tracecraft(t, nil, "keys", "create", "--name", "openapi", "--data-dir", data)
	if code != 0 {
		t.Fatalf("keys create: %s", errOut)
	}
	key = strings.TrimSpace(key)
	s := fetchSpec(t, h)
	img := testbin.SolidPNG(t, 12, 12, color.NRGBA{200, 30, 30, 255})

	get := func(path string, header ...string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, h.url+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return req
	}
	noImage := func() *http.Request {
		ctype, body := form(part{name: "settings", data: []byte(`{}`)})
		req, _ := http.NewRequest(http.MethodPost, h.url+"/api/vectorize", bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		return req
	}
	cases := []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"the schema", get("/api/schema"), 200},
		{"health", get("/api/health"), 200},
		{"llms.txt", get("/llms.txt"), 200},
		{"the document itself", get("/api/openapi.json"), 200},
		{"metrics", get("/metrics"), 200},
		{"the web page", get("/"), 200},
		{"a traced image as JSON", h.vectorizeRequest(img, `{"engine":"zeta"}`), 200},
		{"a traced image as SVG", h.vectorizeRequest(img, `{"preset":"logo"}`, "Accept", "image/svg+xml"), 200},
		{"preset best, with its candidates", h.vectorizeRequest(img, `{"preset":"best","output":{"quality":true}}`), 200},
		{"a keyed trace", h.vectorizeRequest(img, "", "X-API-Key", key), 200},
		{"no image", noImage(), 400},
		{"bad settings", h.vectorizeRequest(img, `{"zeta":{"ms":-1,"action":"x"}}`), 400},
		{"a bad key", h.vectorizeRequest(img, "", "X-API-Key", "tc_nope"), 401},
		{"a crash", h.vectorizeRequest(img, `{"engine":"zeta","zeta":{"action":"panic"}}`), 500},
		{"a timeout", h.vectorizeRequest(img, `{"engine":"zeta","zeta":{"action":"sleep","ms":10000}}`), 503},
		{"usage", get("/api/usage", "X-API-Key", key), 200},
		{"usage without a key", get("/api/usage"), 401},
		{"usage with a bad date", get("/api/usage?from=yesterday", "X-API-Key", key), 400},
	}
	for _, tc := range cases {
		resp, err := http.DefaultClient.Do(tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d: %.300s", tc.name, resp.StatusCode, tc.status, body)
			continue
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if ok, errs := s.validator.ValidateHttpResponse(tc.req, resp); !ok {
			t.Errorf("%s: the %d answer does not match the document:\n%s%.300s", tc.name, resp.StatusCode, validationErrors(errs), body)
		}
		if resp.StatusCode >= 400 {
			var e struct {
				Error struct{ Code string } `json:"error"`
			}
			_ = json.Unmarshal(body, &e)
			if resp := s.operation(tc.req.Method, tc.req.URL.Path)["responses"].(map[string]any)[fmt.Sprint(tc.status)]; !strings.Contains(fmt.Sprint(resp), e.Error.Code) {
				t.Errorf("%s: code %q is not listed under %d", tc.name, e.Error.Code, tc.status)
			}
		}
	}
}
