package web

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func newPage(t *testing.T) *Page {
	t.Helper()
	p, err := New(Config{MaxBytes: 5 << 20, MaxPixels: 12_000_000})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func serve(p *Page, method, path string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, req)
	return rec
}

func TestThePageNamesTheServiceLimitsAndItsAssets(t *testing.T) {
	p := newPage(t)
	rec := serve(p, http.MethodGet, "/")
	body := rec.Body.String()
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET / = %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	for _, want := range []string{`data-max-bytes="5242880"`, `data-max-pixels="12000000"`, "at most 5 MB and 12 megapixels"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Every asset the page links is served, and every served asset is linked.
	linked := regexp.MustCompile(`(?:href|src)="(/assets/[^"]+)"`).FindAllStringSubmatch(body, -1)
	seen := map[string]bool{}
	for _, m := range linked {
		seen[m[1]] = true
		if rec := serve(p, http.MethodGet, m[1]); rec.Code != 200 || rec.Body.Len() == 0 {
			t.Errorf("GET %s = %d (%d bytes)", m[1], rec.Code, rec.Body.Len())
		}
	}
	for _, path := range p.Paths() {
		if path != "/" && !seen[path] {
			t.Errorf("%s is served but the page does not link it", path)
		}
	}
	if len(p.Paths()) != len(assetNames)+1 {
		t.Errorf("Paths() = %v, want / and %d assets", p.Paths(), len(assetNames))
	}
}

func TestResponsesCarryCachingAndSecurityHeaders(t *testing.T) {
	p := newPage(t)
	var js, css string
	for _, path := range p.Paths() {
		switch {
		case strings.HasSuffix(path, ".js"):
			js = path
		case strings.HasSuffix(path, ".css"):
			css = path
		}
	}
	for _, tc := range []struct {
		path, contentType, cacheControl string
	}{
		{"/", "text/html; charset=utf-8", "no-cache"},
		{js, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"},
		{css, "text/css; charset=utf-8", "public, max-age=31536000, immutable"},
	} {
		rec := serve(p, http.MethodGet, tc.path)
		h := rec.Header()
		if h.Get("Content-Type") != tc.contentType || h.Get("Cache-Control") != tc.cacheControl {
			t.Errorf("%s: Content-Type %q, Cache-Control %q; want %q, %q", tc.path, h.Get("Content-Type"), h.Get("Cache-Control"), tc.contentType, tc.cacheControl)
		}
		if h.Get("Content-Security-Policy") != ContentSecurityPolicy || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: CSP %q, X-Content-Type-Options %q", tc.path, h.Get("Content-Security-Policy"), h.Get("X-Content-Type-Options"))
		}
		etag := h.Get("ETag")
		if etag == "" {
			t.Errorf("%s has no ETag", tc.path)
			continue
		}
		if again := serve(p, http.MethodGet, tc.path, "If-None-Match", etag); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
			t.Errorf("%s with If-None-Match its ETag = %d (%d bytes), want 304 and no body", tc.path, again.Code, again.Body.Len())
		}
	}
}

func TestOtherPathsAndMethodsAreRefused(t *testing.T) {
	p := newPage(t)
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/assets/app.js", http.StatusNotFound}, // only the hashed name
		{http.MethodGet, "/index.html", http.StatusNotFound},
		{http.MethodPost, "/", http.StatusMethodNotAllowed},
		{http.MethodHead, "/", http.StatusOK},
	} {
		if rec := serve(p, tc.method, tc.path); rec.Code != tc.status {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, rec.Code, tc.status)
		}
	}
}

func TestThePageHasNoInlineScriptOrStyle(t *testing.T) {
	// The Content-Security-Policy allows neither; an inline one would silently not run.
	body := serve(newPage(t), http.MethodGet, "/").Body.String()
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]+</script>`),
		regexp.MustCompile(`<style`),
		regexp.MustCompile(`\sstyle="`),
		regexp.MustCompile(`\son[a-z]+="`),
	} {
		if m := bad.FindString(body); m != "" {
			t.Errorf("the page has %q, which its policy blocks", m)
		}
	}
}
