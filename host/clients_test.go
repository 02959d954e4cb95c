package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// The OpenAPI document is tested with the client generators people use: oapi-codegen
// makes a Go client and openapi-typescript TypeScript types from the document a real
// host serves; both are compiled, and the Go client calls the host. `make clienttools`
// (run by `make test`) installs the generators into bin/tools; without them the test is
// skipped, except under CI, where it fails.

// clientTool returns the path of a generator installed by `make clienttools`, or skips
// (fails under CI) when it is missing.
func clientTool(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(testbin.Root(), "bin", "tools", rel)
	if _, err := os.Stat(p); err != nil {
		msg := p + " is not installed (make clienttools)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg + ": skipping")
	}
	return p
}

// runTool runs name with args in dir and fails the test with its output if it fails.
func runTool(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// goClientProgram calls the host through the generated Go client (package tcclient) and
// checks each answer; it prints "ok" when all hold.
const goClientProgram = `package main

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strings"

	"clientcheck/tcclient"
)

func fail(format string, a ...any) {
	fmt.Printf(format+"\n", a...)
	os.Exit(1)
}

func main() {
	url, key, image := os.Args[1], os.Args[2], os.Args[3]
	ctx := context.Background()
	withKey := func(ctx context.Context, req *http.Request) error { req.Header.Set("X-API-Key", key); return nil }
	c, err := tcclient.NewClientWithResponses(url, tcclient.WithRequestEditorFn(withKey))
	if err != nil {
		fail("client: %v", err)
	}

	schema, err := c.GetSchemaWithResponse(ctx)
	if err != nil || schema.JSON200 == nil {
		fail("schema: %v %v", err, schema.Status())
	}
	if !slices.Contains(schema.JSON200.Engines, "tracecraft") || len(schema.JSON200.Presets) == 0 {
		fail("schema: engines %v, presets %v", schema.JSON200.Engines, schema.JSON200.Presets)
	}

	img, err := os.ReadFile(image)
	if err != nil {
		fail("%v", err)
	}
	body := func(withImage bool) (string, *bytes.Buffer) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		if withImage {
			fw, _ := w.CreateFormFile("image", "in.png")
			fw.Write(img)
		}
		w.WriteField("settings", ` + "`" + `{"engine":"tracecraft"}` + "`" + `)
		w.Close()
		return w.FormDataContentType(), &b
	}
	ctype, b := body(true)
	res, err := c.VectorizeWithBodyWithResponse(ctx, ctype, b)
	if err != nil || res.JSON200 == nil {
		fail("vectorize as JSON: %v %s %s", err, res.Status(), res.Body)
	}
	if r := res.JSON200; !strings.HasPrefix(r.Svg, "<svg") || r.Engine != "tracecraft" || r.SvgSize != len(r.Svg) || r.Lane != "keyed" {
		fail("vectorize as JSON: %+v", r)
	}
	ctype, b = body(true)
	svg, err := c.VectorizeWithBodyWithResponse(ctx, ctype, b, func(ctx context.Context, req *http.Request) error {
		req.Header.Set("Accept", "image/svg+xml")
		return nil
	})
	if err != nil || svg.StatusCode() != 200 || !bytes.HasPrefix(svg.Body, []byte("<svg")) || svg.HTTPResponse.Header.Get("X-Tracecraft-Engine") != "tracecraft" {
		fail("vectorize as SVG: %v %s %.100s", err, svg.Status(), svg.Body)
	}

	// An error: no image. The generated type keeps the message and details.
	ctype, b = body(false)
	bad, err := c.VectorizeWithBodyWithResponse(ctx, ctype, b)
	if err != nil || bad.JSON400 == nil {
		fail("vectorize without an image: %v %s %s", err, bad.Status(), bad.Body)
	}
	if e := bad.JSON400.Error; e.Code != "missing_image" || e.Message == "" {
		fail("vectorize without an image: %+v", e)
	}

	usage, err := c.GetUsageWithResponse(ctx, &tcclient.GetUsageParams{})
	if err != nil || usage.JSON200 == nil {
		fail("usage: %v %s %s", err, usage.Status(), usage.Body)
	}
	if u := usage.JSON200; u.Total.Requests != 3 || u.Total.Successes != 2 || u.Key.Name != "gen" || u.Key.LastUsedAt == nil {
		fail("usage: %+v", u)
	}
	noKey, err := c.GetUsageWithResponse(ctx, nil, func(ctx context.Context, req *http.Request) error {
		req.Header.Del("X-API-Key")
		return nil
	})
	if err != nil || noKey.JSON401 == nil || noKey.JSON401.Error.Code != "missing_api_key" || noKey.JSON401.Error.Message == "" {
		fail("usage without a key: %v %s %s", err, noKey.Status(), noKey.Body)
	}
	fmt.Println("ok")
}
`

// tsClientProgram uses the types openapi-typescript made; tsc --strict checks it.
const tsClientProgram = `import type { paths, components } from "./schema";

type Result = components["schemas"]["VectorizeResult"];
type Vectorize = paths["/api/vectorize"]["post"];
type BadRequest = Vectorize["responses"][400]["content"]["application/json"];
type Usage = paths["/api/usage"]["get"]["responses"][200]["content"]["application/json"];
type Descriptor = components["schemas"]["ParamDescriptor"];

export function describe(r: Result): string {
  return r.engine + " " + r.svgSize + " bytes in " + r.timings.totalMs + " ms";
}

export function explain(e: BadRequest): string {
  const code: "missing_image" | string = e.error.code;
  return code + ": " + e.error.message + (e.error.details ?? []).map((d) => " " + d.field + ": " + d.message).join("");
}

export function lastUsed(u: Usage): string {
  return u.key.lastUsedAt ?? "never";
}

export function defaultOf(d: Descriptor): string {
  const v: number | string | boolean | undefined = d.default;
  return String(v);
}
`

func TestGeneratedClientsWork(t *testing.T) {
	codegen := clientTool(t, "oapi-codegen")
	tsgen := clientTool(t, "node/node_modules/.bin/openapi-typescript")
	tsc := clientTool(t, "node/node_modules/.bin/tsc")

	data := t.TempDir()
	h := startHost(t, newPlugins(t, "tracecraft", "vtracer", "potrace"), data, "--workers", "1")
	key, errOut, code := tracecraft(t, nil, "keys", "create", "--name", "gen", "--data-dir", data)
	if code != 0 {
		t.Fatalf("keys create: %s", errOut)
	}
	doc := h.get("/api/openapi.json")
	if doc.status != 200 {
		t.Fatalf("openapi.json: %s", doc)
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "openapi.json")
	image := filepath.Join(dir, "in.png")
	if err := os.WriteFile(spec, doc.body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(image, noisePNG(t, 16, 16), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("go", func(t *testing.T) {
		mod := filepath.Join(dir, "go")
		if err := os.MkdirAll(filepath.Join(mod, "tcclient"), 0o755); err != nil {
			t.Fatal(err)
		}
		runTool(t, mod, nil, codegen, "-generate", "types,client", "-package", "tcclient", "-o", "tcclient/client.gen.go", spec)
		files := map[string]string{
			"go.mod":  "module clientcheck\n\ngo 1.26\n\nrequire github.com/oapi-codegen/runtime v1.9.0\n",
			"main.go": goClientProgram,
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		env := []string{"GOFLAGS=-mod=mod", "GOWORK=off"}
		runTool(t, mod, env, "go", "mod", "tidy")
		runTool(t, mod, env, "go", "build", "-o", "check", ".")
		if out := runTool(t, mod, nil, filepath.Join(mod, "check"), h.url, strings.TrimSpace(key), image); strings.TrimSpace(out) != "ok" {
			t.Errorf("the Go client: %s", out)
		}
	})

	t.Run("typescript", func(t *testing.T) {
		ts := filepath.Join(dir, "ts")
		if err := os.MkdirAll(ts, 0o755); err != nil {
			t.Fatal(err)
		}
		runTool(t, ts, nil, tsgen, spec, "-o", filepath.Join(ts, "schema.d.ts"))
		if err := os.WriteFile(filepath.Join(ts, "check.ts"), []byte(tsClientProgram), 0o644); err != nil {
			t.Fatal(err)
		}
		runTool(t, ts, nil, tsc, "--noEmit", "--strict", "--target", "es2020", "--module", "es2020", "--moduleResolution", "bundler", "check.ts")
	})
}
