package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// contractHost is a host whose stable engines are test engines under the bundled names,
// plus a third-party stable engine and an experimental one.
func contractHost(t *testing.T, flags ...string) *host {
	dir := newPlugins(t, "tracecraft", "vtracer", "potrace", "zeta")
	testbin.Install(t, testbin.TestEngine(t, "exp", "experimental"), dir, "exp")
	return startHost(t, dir, "", append([]string{"--workers", "2"}, flags...)...)
}

func TestSchemaHealthAndDocuments(t *testing.T) {
	t.Parallel()
	h := contractHost(t)

	r := h.get("/api/schema")
	if r.status != 200 {
		t.Fatalf("schema: %s", r)
	}
	if got := r.json["engines"]; !reflect.DeepEqual(got, []any{"tracecraft", "auto", "vtracer", "potrace", "zeta"}) {
		t.Errorf("engines = %v, want tracecraft, auto, vtracer, potrace, then the third-party zeta", got)
	}
	if got := r.json["experimentalEngines"]; !reflect.DeepEqual(got, []any{"exp"}) {
		t.Errorf("experimentalEngines = %v, want [exp]", got)
	}
	if got := r.json["namedEngines"]; !reflect.DeepEqual(got, []any{}) {
		t.Errorf("namedEngines = %v, want []", got)
	}
	for _, e := range []string{"tracecraft", "vtracer", "potrace", "zeta", "exp"} {
		params, _ := r.json[e].(map[string]any)
		action, _ := params["action"].(map[string]any)
		if action["type"] != "enum" || action["default"] != "ok" || len(action["values"].([]any)) != 8 {
			t.Errorf("schema[%s].action = %v", e, action)
		}
	}
	presets, _ := r.json["presets"].(map[string]any)
	for _, p := range []string{"logo", "poster", "photo", "lineart"} {
		if _, ok := presets[p]; !ok {
			t.Errorf("presets lacks %s: %v", p, presets)
		}
	}
	if v := r.header.Get("X-Tracecraft-Version"); v != "1" {
		t.Errorf("X-Tracecraft-Version = %q", v)
	}

	r = h.get("/api/health")
	if r.status != 200 || r.json["status"] != "ok" || r.json["version"] != "1" || r.json["workers"] != 4.0 {
		t.Errorf("health: %s", r)
	}
	lanes, _ := r.json["lanes"].([]any)
	var names []string
	for _, l := range lanes {
		m := l.(map[string]any)
		names = append(names, m["name"].(string))
		if m["workers"] != 2.0 || m["capacity"] != 32.0 {
			t.Errorf("lane %v", m)
		}
	}
	if !reflect.DeepEqual(names, []string{"public", "keyed"}) {
		t.Errorf("lanes = %v", names)
	}
	if engines, _ := r.json["engines"].([]any); len(engines) != 5 {
		t.Errorf("health engines = %v", engines)
	}

	r = h.get("/llms.txt")
	text := string(r.body)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("llms.txt: %s", r)
	}
	for _, want := range []string{"POST /api/vectorize", "GET /api/schema", "GET /api/health", "GET /api/usage", "X-API-Key", "curl ", "429", "Retry-After", "tracecraft", "lineart", "10 MB"} {
		if !strings.Contains(text, want) {
			t.Errorf("llms.txt lacks %q", want)
		}
	}

	for _, tc := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/nope", 404, "not_found"},
		{"GET", "/api/vectorize", 405, "method_not_allowed"},
		{"DELETE", "/api/schema", 405, "method_not_allowed"},
		{"GET", "/api/usage", 401, "missing_api_key"},
	} {
		req, _ := http.NewRequest(tc.method, h.url+tc.path, nil)
		r := do(t, req)
		if r.status != tc.status || r.errorCode() != tc.code {
			t.Errorf("%s %s = %s, want %d %s", tc.method, tc.path, r, tc.status, tc.code)
		}
	}
}

func TestVectorizeSucceeds(t *testing.T) {
	t.Parallel()
	h := contractHost(t)
	img := testbin.SolidPNG(t, 30, 20, color.NRGBA{200, 10, 10, 255})

	r := h.vectorize(img, `{"engine":"potrace","potrace":{"color":"#00ff00"},"vtracer":{"action":"panic"}}`)
	if r.status != 200 {
		t.Fatalf("vectorize: %s", r)
	}
	svg, _ := r.json["svg"].(string)
	if r.json["engine"] != "potrace" || r.json["originalSize"] != float64(len(img)) || r.json["svgSize"] != float64(len(svg)) ||
		!strings.Contains(svg, `viewBox="0 0 30 20"`) || !strings.Contains(svg, "#0f0") {
		t.Errorf("vectorize: %s", r)
	}
	// The spec's four fields come first, in its order.
	if i := bytes.Index(r.body, []byte(`"engine"`)); i < 0 || !bytes.HasPrefix(r.body, []byte(`{"svg":`)) ||
		!(i < bytes.Index(r.body, []byte(`"originalSize"`)) && bytes.Index(r.body, []byte(`"originalSize"`)) < bytes.Index(r.body, []byte(`"svgSize"`))) {
		t.Errorf("field order: %.200s", r.body)
	}
	if r.json["lane"] != "public" || r.json["engineVersion"] != "1.0.0" {
		t.Errorf("lane/version: %s", r)
	}

	// The same image and settings give the same SVG; the bare SVG on request.
	req := h.vectorizeRequest(img, `{"engine":"potrace","potrace":{"color":"#00ff00"}}`, "Accept", "image/svg+xml")
	bare := do(t, req)
	if bare.status != 200 || bare.header.Get("Content-Type") != "image/svg+xml" || string(bare.body) != svg ||
		bare.header.Get("X-Tracecraft-Engine") != "potrace" {
		t.Errorf("bare SVG: %s", bare)
	}

	// A preset picks its engine; an explicit engine wins over the preset's.
	r = h.vectorize(img, `{"preset":"lineart"}`)
	if r.status != 200 || r.json["engine"] != "potrace" || r.json["preset"] != "lineart" {
		t.Errorf("preset lineart: %s", r)
	}
	r = h.vectorize(img, `{"preset":"lineart","engine":"vtracer"}`)
	if r.status != 200 || r.json["engine"] != "vtracer" {
		t.Errorf("preset lineart with engine vtracer: %s", r)
	}
	// auto chooses a category and names it.
	r = h.vectorize(img, ``)
	if r.status != 200 || r.json["engine"] == "auto" || r.json["preset"] == nil {
		t.Errorf("auto: %s", r)
	}
}

// pngHeaderOnly returns a PNG signature and IHDR declaring w x h, with a valid CRC and
// nothing after it.
func pngHeaderOnly(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 17)
	copy(ihdr, "IHDR")
	binary.BigEndian.PutUint32(ihdr[4:], w)
	binary.BigEndian.PutUint32(ihdr[8:], h)
	ihdr[12], ihdr[13] = 8, 6 // 8-bit RGBA
	_ = binary.Write(&b, binary.BigEndian, uint32(13))
	b.Write(ihdr)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(ihdr))
	return b.Bytes()
}

// noisePNG is a PNG of random pixels, which does not compress.
func noisePNG(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rand.New(rand.NewSource(1)).Read(img.Pix)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestVectorizeRejectsBadInput(t *testing.T) {
	t.Parallel()
	h := contractHost(t)
	good := testbin.SolidPNG(t, 8, 8, color.NRGBA{0, 0, 255, 255})
	noise := noisePNG(t, 64, 64)
	corrupt := bytes.Clone(noise)
	// Damage the compressed pixel data (not the chunk structure): only a decoder sees it.
	idat := bytes.Index(corrupt, []byte("IDAT"))
	for i := idat + 8; i < idat+40; i++ {
		corrupt[i] ^= 0x5a
	}
	huge := append(bytes.Clone(good), make([]byte, 10<<20)...) // 10 MiB + a few bytes

	for _, tc := range []struct {
		name     string
		parts    []part
		code     string
		contains []string // fields that details must name
	}{
		{"no image", []part{{name: "settings", data: []byte(`{}`)}}, "missing_image", nil},
		{"empty file", []part{{name: "image", filename: "a.png"}}, "empty_image", nil},
		{"gif", []part{{name: "image", filename: "a.png", data: []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")}}, "unsupported_format", nil},
		{"svg", []part{{name: "image", filename: "a.png", data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)}}, "unsupported_format", nil},
		{"pdf", []part{{name: "image", filename: "a.png", data: []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")}}, "unsupported_format", nil},
		{"text", []part{{name: "image", filename: "a.png", data: []byte("hello")}}, "unsupported_format", nil},
		{"truncated", []part{{name: "image", filename: "a.png", data: noise[:len(noise)/2]}}, "truncated_image", nil},
		{"corrupt pixels", []part{{name: "image", filename: "a.png", data: corrupt}}, "corrupt_image", nil},
		{"header only", []part{{name: "image", filename: "a.png", data: pngHeaderOnly(10, 10)}}, "truncated_image", nil},
		{"too many pixels", []part{{name: "image", filename: "a.png", data: pngHeaderOnly(8000, 6000)}}, "too_many_pixels", nil},
		{"over 10 MB", []part{{name: "image", filename: "a.png", data: huge}}, "image_too_large", nil},
		{"settings not JSON", []part{{name: "image", filename: "a.png", data: good}, {name: "settings", data: []byte(`{preset:logo}`)}}, "invalid_settings", nil},
		{"settings not an object", []part{{name: "image", filename: "a.png", data: good}, {name: "settings", data: []byte(`["logo"]`)}}, "invalid_settings", nil},
		{"every settings problem", []part{{name: "image", filename: "a.png", data: good}, {name: "settings", data: []byte(
			`{"preset":"Logo","engine":"nope","foo":1,"tracecraft":{"action":"dance","ms":"16","bar":true},"vtracer":{"ms":-1}}`)}},
			"invalid_settings", []string{"preset", "engine", "foo", "tracecraft.action", "tracecraft.ms", "tracecraft.bar", "vtracer.ms"}},
		{"bad image and bad settings", []part{{name: "image", filename: "a.png", data: []byte("GIF89a....")}, {name: "settings", data: []byte(`{"potrace":{"ms":1e9}}`)}},
			"unsupported_format", []string{"image", "potrace.ms"}},
		{"engine refuses", []part{{name: "image", filename: "a.png", data: good}, {name: "settings", data: []byte(`{"engine":"zeta","zeta":{"action":"fail"}}`)}}, "invalid_settings", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctype, body := form(tc.parts...)
			req, _ := http.NewRequest("POST", h.url+"/api/vectorize", bytes.NewReader(body))
			req.Header.Set("Content-Type", ctype)
			r := do(t, req)
			e, _ := r.json["error"].(map[string]any)
			if r.status != 400 || r.errorCode() != tc.code || e["message"] == "" {
				t.Fatalf("got %s, want 400 %s", r, tc.code)
			}
			got := r.details()
			for _, f := range tc.contains {
				if !slices.Contains(got, f) {
					t.Errorf("details %v lack %s", got, f)
				}
			}
		})
	}

	// Not multipart at all.
	req, _ := http.NewRequest("POST", h.url+"/api/vectorize", strings.NewReader(`{"image":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	if r := do(t, req); r.status != 400 || r.errorCode() != "missing_image" {
		t.Errorf("JSON body: %s", r)
	}
	// After all that the service still works.
	if r := h.vectorize(good, `{"engine":"tracecraft"}`); r.status != 200 {
		t.Errorf("after bad input: %s", r)
	}
}

// TestHugeBodyIsCutOff streams a 1 GB upload: the host answers once the image passes
// the cap and stops reading, rather than buffering it.
func TestHugeBodyIsCutOff(t *testing.T) {
	t.Parallel()
	h := contractHost(t)
	pr, pw := io.Pipe()
	sent := make(chan int64, 1)
	go func() {
		var n int64
		head := "--XYZ\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n"
		k, err := io.WriteString(pw, head)
		n += int64(k)
		chunk := make([]byte, 64<<10)
		for err == nil && n < 1<<30 {
			k, err = pw.Write(chunk)
			n += int64(k)
		}
		_ = pw.CloseWithError(io.ErrUnexpectedEOF)
		sent <- n
	}()
	req, _ := http.NewRequest("POST", h.url+"/api/vectorize", pr)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=XYZ")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_ = pr.CloseWithError(io.ErrClosedPipe)
	n := <-sent
	if resp.StatusCode != 400 || !bytes.Contains(body, []byte(`"image_too_large"`)) {
		t.Errorf("1 GB upload: %d %s", resp.StatusCode, body)
	}
	if n > 200<<20 {
		t.Errorf("the client could send %d MB before the host gave up", n>>20)
	}
	if r := h.get("/api/health"); r.status != 200 {
		t.Errorf("after the huge body: %s", r)
	}

	// A declared Content-Length over the cap is refused before the body is read.
	req, _ = http.NewRequest("POST", h.url+"/api/vectorize", io.LimitReader(zeros{}, 1<<30))
	req.ContentLength = 1 << 30
	req.Header.Set("Content-Type", "multipart/form-data; boundary=XYZ")
	start := time.Now()
	r := do(t, req)
	if r.status != 400 || r.errorCode() != "image_too_large" {
		t.Errorf("declared 1 GB: %s after %v", r, time.Since(start))
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestQueueFullAnswers429WithRetryAfter(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "testengine")
	h := startHost(t, dir, "", "--workers", "1", "--queue", "1")
	img := testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255})
	slow := `{"engine":"testengine","testengine":{"action":"sleep","ms":3000}}`

	results := make(chan reply, 2)
	lane := func(field string) float64 {
		r := h.get("/api/health")
		l := r.json["lanes"].([]any)[0].(map[string]any)
		return l[field].(float64)
	}
	go func() { results <- h.vectorize(img, slow) }()
	if !testbin.Eventually(10*time.Second, func() bool { return lane("busy") == 1 }) {
		t.Fatal("the first job never started")
	}
	go func() { results <- h.vectorize(img, slow) }()
	if !testbin.Eventually(10*time.Second, func() bool { return lane("queued") == 1 }) {
		t.Fatal("the second job never queued")
	}
	r := h.vectorize(img, slow)
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	if r.status != 429 || r.errorCode() != "queue_full" || err != nil || secs < 1 {
		t.Errorf("third job: %s Retry-After %q", r, r.header.Get("Retry-After"))
	}
	// The keyed lane is separate: a key holder is not refused by public load.
	for range 2 {
		if r := <-results; r.status != 200 {
			t.Errorf("queued job: %s", r)
		}
	}
}

func TestTimeoutAndCrashesLeaveTheHostServing(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "testengine")
	h := startHost(t, dir, "", "--workers", "1", "--job-timeout", "1s")
	img := testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255})
	if r := h.vectorize(img, `{"engine":"testengine"}`); r.status != 200 {
		t.Fatal(r)
	}
	// The host's goroutines, less those of the engine's live processes (a go-plugin
	// client and its gRPC connection hold about 15): after a kill the pool may start a
	// replacement while the next job starts another, both within its size.
	const perProcess = 16
	goroutines := func() float64 {
		health := h.get("/api/health").json
		n := health["goroutines"].(float64)
		for _, e := range health["engines"].([]any) {
			if e := e.(map[string]any); e["name"] == "testengine" {
				n -= perProcess * e["processes"].(float64)
			}
		}
		return n
	}
	baseline := goroutines()
	for _, tc := range []struct {
		action string
		status int
		code   string
	}{
		{"hang", 503, "job_timeout"},
		{"spawn", 503, "job_timeout"},
		{"panic", 500, "engine_crashed"},
		{"exit", 500, "engine_crashed"},
	} {
		r := h.vectorize(img, `{"engine":"testengine","testengine":{"action":"`+tc.action+`","ms":60000}}`)
		if r.status != tc.status || r.errorCode() != tc.code {
			t.Errorf("%s: %s, want %d %s", tc.action, r, tc.status, tc.code)
		}
		if tc.code == "job_timeout" && !strings.Contains(string(r.body), "the limit is 1s per job") {
			t.Errorf("%s: the message does not state the limit: %s", tc.action, r.body)
		}
		if ok := h.vectorize(img, `{"engine":"testengine"}`); ok.status != 200 {
			t.Errorf("after %s: %s", tc.action, ok)
		}
	}
	// Killed and crashed processes leave no goroutines behind (a few come and go with
	// connections; each leaked client would leave about perProcess).
	if !testbin.Eventually(5*time.Second, func() bool { return goroutines() <= baseline+4 }) {
		t.Errorf("goroutines: %v at the start, %v after the crashes", baseline, goroutines())
	}
}

// TestEnginesTracedOnlyWhenNamed: a stable engine under the bundled centerline's name
// is listed in namedEngines, not engines, is described like the others, runs when a
// request names it, and is never what auto falls back to: with the bundled engines
// absent, auto runs the third-party engine instead.
func TestEnginesTracedOnlyWhenNamed(t *testing.T) {
	t.Parallel()
	h := startHost(t, newPlugins(t, "centerline", "zeta"), "", "--workers", "2")
	r := h.get("/api/schema")
	if r.status != 200 {
		t.Fatalf("schema: %s", r)
	}
	if got := r.json["engines"]; !reflect.DeepEqual(got, []any{"auto", "zeta"}) {
		t.Errorf("engines = %v, want [auto zeta]", got)
	}
	if got := r.json["namedEngines"]; !reflect.DeepEqual(got, []any{"centerline"}) {
		t.Errorf("namedEngines = %v, want [centerline]", got)
	}
	if _, ok := r.json["centerline"].(map[string]any); !ok {
		t.Errorf("schema lacks centerline's parameters: %v", r.json)
	}
	img := noisePNG(t, 40, 30)
	for _, tc := range []struct{ settings, want string }{
		{`{}`, "zeta"},
		{`{"engine":"centerline"}`, "centerline"},
	} {
		r := h.vectorize(img, tc.settings)
		if r.status != 200 || r.json["engine"] != tc.want {
			t.Errorf("%s: %s, want engine %s", tc.settings, r, tc.want)
		}
	}
	if r := h.get("/llms.txt"); !strings.Contains(string(r.body), "traced only when a request names them (auto never picks them): centerline.") {
		t.Errorf("llms.txt does not list centerline as named only:\n%s", r.body)
	}
}
