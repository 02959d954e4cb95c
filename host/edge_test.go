package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// rawClient sends requests as given, without asking for compression or undoing it, so
// a test sees the bytes on the wire.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// rawDo sends req with rawClient and returns the answer with its body as sent.
func rawDo(t testing.TB, req *http.Request) reply {
	t.Helper()
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: body}
}

// decode undoes the answer's Content-Encoding (none, gzip or zstd).
func decode(t testing.TB, r reply) []byte {
	t.Helper()
	switch enc := r.header.Get("Content-Encoding"); enc {
	case "":
		return r.body
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("gunzip: %v", err)
		}
		return out
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("unzstd: %v", err)
		}
		return out
	default:
		t.Fatalf("unexpected Content-Encoding %q", enc)
		return nil
	}
}

// bundledPlugins returns a plugins folder with the bundled engines named, built from
// ./plugins.
func bundledPlugins(t testing.TB, names ...string) string {
	dir := t.TempDir()
	for _, e := range names {
		testbin.Install(t, testbin.Build(t, "./plugins/"+e), dir, e)
	}
	return dir
}

// TestAnswersAreCompressedWhenTheClientAcceptsIt: JSON and SVG answers of 1 KB and more
// are sent with zstd or gzip, as the client's Accept-Encoding asks, and decode to the
// answer a client without it gets; small error bodies are sent as they are.
func TestAnswersAreCompressedWhenTheClientAcceptsIt(t *testing.T) {
	t.Parallel()
	h := startHost(t, bundledPlugins(t, "vtracer"), "", "--workers", "1")
	img := noisePNG(t, 96, 96)
	svgSettings := `{"engine":"vtracer"}`

	plain := rawDo(t, h.vectorizeRequest(img, svgSettings))
	if plain.status != 200 || plain.header.Get("Content-Encoding") != "" {
		t.Fatalf("without Accept-Encoding: %d, Content-Encoding %q", plain.status, plain.header.Get("Content-Encoding"))
	}
	var want map[string]any
	if err := json.Unmarshal(plain.body, &want); err != nil {
		t.Fatal(err)
	}
	if len(plain.body) < 4096 {
		t.Fatalf("the answer is only %d bytes; the test needs a larger one", len(plain.body))
	}
	for _, tc := range []struct {
		name, accept, want string
	}{
		{"gzip", "gzip", "gzip"},
		{"zstd preferred", "gzip, deflate, br, zstd", "zstd"},
		{"q-values", "zstd;q=0.1, gzip", "gzip"},
		{"identity only", "identity", ""},
		{"refused gzip", "gzip;q=0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, kind := range []string{"json", "svg"} {
				header := []string{"Accept-Encoding", tc.accept}
				if kind == "svg" {
					header = append(header, "Accept", "image/svg+xml")
				}
				r := rawDo(t, h.vectorizeRequest(img, svgSettings, header...))
				if r.status != 200 {
					t.Fatalf("%s: %s", kind, r)
				}
				if got := r.header.Get("Content-Encoding"); got != tc.want {
					t.Errorf("%s: Content-Encoding %q, want %q", kind, got, tc.want)
				}
				if !strings.Contains(r.header.Get("Vary"), "Accept-Encoding") {
					t.Errorf("%s: Vary %q lacks Accept-Encoding", kind, r.header.Get("Vary"))
				}
				body := decode(t, r)
				if tc.want != "" && len(r.body) >= len(body)/2 {
					t.Errorf("%s: %d bytes on the wire for %d: hardly compressed", kind, len(r.body), len(body))
				}
				if kind == "svg" {
					if body2 := want["svg"].(string); string(body) != body2 {
						t.Errorf("svg: the decoded SVG differs from the JSON answer's")
					}
					continue
				}
				var got map[string]any
				if err := json.Unmarshal(body, &got); err != nil {
					t.Fatalf("json: %v", err)
				}
				if got["svg"] != want["svg"] {
					t.Errorf("json: the decoded SVG differs from the uncompressed answer's")
				}
			}
		})
	}

	// Other large JSON answers are compressed too; a small error body is not.
	for _, path := range []string{"/api/schema", "/api/openapi.json", "/llms.txt"} {
		req, _ := http.NewRequest(http.MethodGet, h.url+path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		if r := rawDo(t, req); r.status != 200 || r.header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: %d, Content-Encoding %q, want gzip", path, r.status, r.header.Get("Content-Encoding"))
		}
	}
	req := h.vectorizeRequest(nil, "")
	req.Header.Set("Accept-Encoding", "gzip")
	if r := rawDo(t, req); r.status != 400 || r.header.Get("Content-Encoding") != "" || len(r.body) >= 1024 {
		t.Errorf("a small 400: %d, Content-Encoding %q, %d bytes; want it as it is", r.status, r.header.Get("Content-Encoding"), len(r.body))
	}
}

// TestCORSOriginsFlag: --cors-origins (or TRACECRAFT_CORS_ORIGINS) lets pages of the
// origins listed call the API from a browser: preflights are answered with the methods
// and headers the API takes, answers name the origin and expose the service's headers.
// Other origins get no permission; without the flag no origin does.
func TestCORSOriginsFlag(t *testing.T) {
	t.Parallel()
	plugins := newPlugins(t, "testengine")
	const app = "https://app.example.com"
	preflight := func(h *host, origin string) reply {
		req, _ := http.NewRequest(http.MethodOptions, h.url+"/api/vectorize", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "x-api-key, x-request-id")
		return do(t, req)
	}
	withFlag := startHost(t, plugins, "", "--cors-origins", app+", https://*.example.org")
	withEnv := startHostWithEnv(t, []string{"TRACECRAFT_CORS_ORIGINS=*"}, plugins, "")
	without := startHostWithEnv(t, []string{"TRACECRAFT_CORS_ORIGINS="}, plugins, "")

	for _, tc := range []struct {
		name   string
		h      *host
		origin string
		allow  string // the Access-Control-Allow-Origin wanted; "" for none
	}{
		{"listed origin", withFlag, app, app},
		{"wildcard subdomain", withFlag, "https://docs.example.org", "https://docs.example.org"},
		{"other origin", withFlag, "https://evil.example.net", ""},
		{"any origin from the environment", withEnv, "https://evil.example.net", "*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := preflight(tc.h, tc.origin)
			if r.status != http.StatusNoContent {
				t.Errorf("preflight: %s, want 204", r)
			}
			if got := r.header.Get("Access-Control-Allow-Origin"); got != tc.allow {
				t.Errorf("preflight Access-Control-Allow-Origin = %q, want %q", got, tc.allow)
			}
			if tc.allow != "" {
				if got := strings.ToLower(r.header.Get("Access-Control-Allow-Headers")); !strings.Contains(got, "x-api-key") {
					t.Errorf("Access-Control-Allow-Headers = %q, want x-api-key among them", got)
				}
				if got := r.header.Get("Access-Control-Allow-Methods"); got != "POST" {
					t.Errorf("Access-Control-Allow-Methods = %q, want POST", got)
				}
			}
			// The actual request.
			r = tc.h.vectorize(noisePNG(t, 8, 8), "", "Origin", tc.origin)
			if r.status != 200 {
				t.Fatalf("vectorize: %s", r)
			}
			if got := r.header.Get("Access-Control-Allow-Origin"); got != tc.allow {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tc.allow)
			}
			if tc.allow != "" && !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "X-Tracecraft-Engine") {
				t.Errorf("Access-Control-Expose-Headers = %q", r.header.Get("Access-Control-Expose-Headers"))
			}
		})
	}
	// Without the flag no origin is allowed, and a preflight is still refused as before.
	r := preflight(without, app)
	if r.status != http.StatusMethodNotAllowed || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("without --cors-origins, preflight: %s, Allow-Origin %q", r, r.header.Get("Access-Control-Allow-Origin"))
	}

	_, stderr, code := tracecraft(t, nil, "serve", "--cors-origins", "app.example.com/x", "--plugins-dir", plugins, "--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "--cors-origins") || !strings.Contains(stderr, "app.example.com/x") {
		t.Errorf("a bad origin: exit %d, stderr %q; want 2 and the origin named", code, stderr)
	}
}

// TestPhotoCorpusWireBytes reports the bytes on the wire of the photo corpus's answers
// (preset photo, JSON and SVG) without compression, with gzip and with zstd. It needs
// the bench corpus ($TRACECRAFT_CORPUS, or ../shared/bench/corpus) and runs only with
// TRACECRAFT_MEASURE=1.
func TestPhotoCorpusWireBytes(t *testing.T) {
	if os.Getenv("TRACECRAFT_MEASURE") == "" {
		t.Skip("a measurement: set TRACECRAFT_MEASURE=1")
	}
	corpus := corpusDir()
	files, _ := filepath.Glob(filepath.Join(corpus, "photo", "*.png"))
	if len(files) == 0 {
		t.Skipf("no photos in %s", corpus)
	}
	h := startHost(t, bundledPlugins(t, "vtracer"), "", "--workers", "1")
	total := map[string]int{}
	for _, f := range files {
		img, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		line := filepath.Base(f)
		for _, kind := range []string{"json", "svg"} {
			for _, enc := range []string{"identity", "gzip", "zstd"} {
				header := []string{"Accept-Encoding", enc}
				if kind == "svg" {
					header = append(header, "Accept", "image/svg+xml")
				}
				r := rawDo(t, h.vectorizeRequest(img, `{"preset":"photo"}`, header...))
				if r.status != 200 {
					t.Fatalf("%s: %s", f, r)
				}
				total[kind+" "+enc] += len(r.body)
				line += " " + kind + "/" + enc + "=" + strconv.Itoa(len(r.body))
			}
		}
		t.Log(line)
	}
	for _, kind := range []string{"json", "svg"} {
		id := total[kind+" identity"]
		t.Logf("total %s: identity %d, gzip %d (%.1f %%), zstd %d (%.1f %%)", kind, id,
			total[kind+" gzip"], 100*float64(total[kind+" gzip"])/float64(id),
			total[kind+" zstd"], 100*float64(total[kind+" zstd"])/float64(id))
	}
}

// TestTwoSettingsFieldsAreRefused: a request with two settings fields is 400
// invalid_request, like one with two images, whose message says to send one; before,
// the last settings field won.
func TestTwoSettingsFieldsAreRefused(t *testing.T) {
	t.Parallel()
	h := startHost(t, newPlugins(t, "tracecraft"), "", "--workers", "1")
	img := testbin.SolidPNG(t, 8, 8, color.NRGBA{200, 10, 10, 255})
	tests := []struct {
		name  string
		parts []part
	}{
		{"settings, image, settings", []part{
			{name: "settings", data: []byte(`{"engine":"tracecraft"}`)},
			{name: "image", filename: "in.png", data: img},
			{name: "settings", data: []byte(`{"engine":"nosuchengine"}`)}}},
		{"two settings before the image, the first empty", []part{
			{name: "settings"},
			{name: "settings", data: []byte(`{"engine":"tracecraft"}`)},
			{name: "image", filename: "in.png", data: img}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctype, body := form(tc.parts...)
			req, _ := http.NewRequest(http.MethodPost, h.url+"/api/vectorize", bytes.NewReader(body))
			req.Header.Set("Content-Type", ctype)
			r := do(t, req)
			if r.status != http.StatusBadRequest || r.errorCode() != "invalid_request" {
				t.Fatalf("got %s, want 400 invalid_request", r)
			}
			if !strings.Contains(string(r.body), "more than one settings field") || !strings.Contains(string(r.body), "single settings field") {
				t.Errorf("the message does not say what to do: %s", r.body)
			}
		})
	}
	// One settings field still traces.
	if r := h.vectorize(img, `{"engine":"tracecraft"}`); r.status != http.StatusOK {
		t.Errorf("one settings field: %s, want 200", r)
	}
}

// TestRefusalsThatNeedNoBodyComeBeforeIt: a 2 MB upload with a bad key (401), to a full
// lane (429) or with a Content-Length over the limit (400 image_too_large) is answered
// before its body is read. curl, which sends Expect: 100-continue for such an upload,
// gets the answer at once with almost nothing sent (before, net/http read up to 256 KiB
// of the body first, which sent curl 100 Continue: it waited 1 s and uploaded megabytes
// to be told 401). A raw client that sends only the headers with Expect: 100-continue
// gets the final answer, never 100 Continue. The bounds are generous against a loaded
// machine; the target is under 50 ms, and the test logs the times measured.
func TestRefusalsThatNeedNoBodyComeBeforeIt(t *testing.T) {
	t.Parallel()
	h := startHost(t, newPlugins(t, "tracecraft"), "", "--workers", "1", "--queue", "1")
	const upload = 2 << 20
	file := filepath.Join(t.TempDir(), "big.png")
	if err := os.WriteFile(file, bytes.Repeat([]byte{0x89}, upload), 0o644); err != nil {
		t.Fatal(err)
	}
	curl, _ := exec.LookPath("curl")
	refused := func(name, key string, contentLength int64, status int, code string) {
		t.Helper()
		if curl == "" {
			t.Logf("curl is not installed; only the raw client runs")
		} else if contentLength == upload { // curl sends the size its file has
			out, err := exec.Command(curl, "-sS", "-o", "/dev/null", "-w", "%{http_code} %{size_upload} %{time_total}",
				"-H", "X-API-Key: "+key, "-F", "image=@"+file, h.url+"/api/vectorize").Output()
			if err != nil {
				t.Fatalf("curl: %v", err)
			}
			var got int
			var sent, secs float64
			if _, err := fmt.Sscan(string(out), &got, &sent, &secs); err != nil {
				t.Fatalf("curl wrote %q: %v", out, err)
			}
			t.Logf("curl, %s: %d in %.1f ms with %.0f bytes sent", name, got, secs*1000, sent)
			if got != status || sent >= 64<<10 || secs >= 1 {
				t.Errorf("curl, %s: %d in %.3f s with %.0f bytes sent, want %d in under 1 s (target 50 ms) with under 64 KiB sent",
					name, got, secs, sent, status)
			}
		}
		if contentLength == upload {
			// Go's client sends the body without Expect: 100-continue; it gets the
			// answer, not a broken connection, though the host reads no more of it.
			req, _ := http.NewRequest(http.MethodPost, h.url+"/api/vectorize", bytes.NewReader(make([]byte, upload)))
			req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
			if key != "" {
				req.Header.Set("X-API-Key", key)
			}
			start := time.Now()
			r := do(t, req)
			took := time.Since(start)
			t.Logf("Go client, %s: %d in %.1f ms", name, r.status, float64(took.Microseconds())/1000)
			if r.status != status || r.errorCode() != code || took >= time.Second {
				t.Errorf("Go client, %s: %s in %v, want %d %s in under 1 s", name, r, took, status, code)
			}
		}
		conn, err := net.Dial("tcp", strings.TrimPrefix(h.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		head := "POST /api/vectorize HTTP/1.1\r\nHost: tracecraft\r\nContent-Type: multipart/form-data; boundary=b\r\n" +
			"Content-Length: " + strconv.FormatInt(contentLength, 10) + "\r\nExpect: 100-continue\r\n"
		if key != "" {
			head += "X-API-Key: " + key + "\r\n"
		}
		start := time.Now()
		if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("raw client, %s: no answer to the headers alone: %v", name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		took := time.Since(start)
		t.Logf("raw client, %s: %d in %.1f ms", name, resp.StatusCode, float64(took.Microseconds())/1000)
		if resp.StatusCode != status || !strings.Contains(string(body), `"`+code+`"`) || took >= time.Second {
			t.Errorf("raw client, %s: %d %s in %v, want %d %s in under 1 s (target 50 ms), before any byte of the body",
				name, resp.StatusCode, body, took, status, code)
		}
	}
	refused("a bad key", "tc_bad", upload, http.StatusUnauthorized, "invalid_api_key")
	refused("a Content-Length over the limit", "", 200<<20, http.StatusBadRequest, "image_too_large")

	// Fill the public lane: one job running, one queued.
	img := testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255})
	slow := `{"engine":"tracecraft","tracecraft":{"action":"sleep","ms":3000}}`
	lane := func(field string) float64 {
		r := h.get("/api/health")
		l := r.json["lanes"].([]any)[0].(map[string]any)
		return l[field].(float64)
	}
	results := make(chan reply, 2)
	go func() { results <- h.vectorize(img, slow) }()
	if !testbin.Eventually(10*time.Second, func() bool { return lane("busy") == 1 }) {
		t.Fatal("the first job never started")
	}
	go func() { results <- h.vectorize(img, slow) }()
	if !testbin.Eventually(10*time.Second, func() bool { return lane("queued") == 1 }) {
		t.Fatal("the second job never queued")
	}
	refused("a full lane", "", upload, http.StatusTooManyRequests, "queue_full")
	for range 2 {
		if r := <-results; r.status != http.StatusOK {
			t.Errorf("a job that filled the lane: %s", r)
		}
	}
}
