// Package web is the service's web page: plain HTML, CSS and JavaScript embedded in the
// binary and served at / with its assets, for tracing an image by hand through the same
// API that programs use. There is no build step: the files in static/ are the page.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"mime"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
)

//go:embed static
var static embed.FS

// ContentSecurityPolicy is sent with every response of the page: scripts, styles and
// fetches only from the service itself, images also from blob: URLs (the page shows the
// chosen file and the SVG through object URLs, never as inline markup), and nothing else.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Config is what the page needs to know about the service it is served by.
type Config struct {
	// MaxBytes is the largest upload accepted, in bytes; the page refuses larger files
	// before sending them.
	MaxBytes int64
	// MaxPixels is the largest width x height accepted, shown to the user.
	MaxPixels int64
}

// Page serves the web page at / and its assets. Assets have their content's hash in
// their names, so they are cached for a year; the page itself is revalidated each time.
type Page struct {
	files map[string]file // by URL path
}

type file struct {
	body        []byte
	contentType string
	etag        string
	immutable   bool
}

// assetNames are the files of static/ besides the page, in the order they are listed.
var assetNames = []string{"app.css", "app.js", "icon.svg"}

// New renders the page for cfg. It fails only if the embedded files are broken.
func New(cfg Config) (*Page, error) {
	p := &Page{files: map[string]file{}}
	urls := map[string]string{}
	for _, name := range assetNames {
		body, err := static.ReadFile("static/" + name)
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(name)
		url := "/assets/" + strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		urls[name] = url
		p.files[url] = file{body: body, contentType: contentType(ext), etag: `"` + hex.EncodeToString(sum[:12]) + `"`, immutable: true}
	}
	tmpl, err := template.ParseFS(static, "static/index.html")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	var b bytes.Buffer
	data := struct {
		Assets            map[string]string
		MaxBytes          int64
		MaxPixels         int64
		MaxMB, MegaPixels string
	}{Assets: urls, MaxBytes: cfg.MaxBytes, MaxPixels: cfg.MaxPixels,
		MaxMB: imagecheck.Megabytes(cfg.MaxBytes, false), MegaPixels: strconv.FormatFloat(float64(cfg.MaxPixels)/1e6, 'f', -1, 64)}
	if err := tmpl.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	sum := sha256.Sum256(b.Bytes())
	p.files["/"] = file{body: b.Bytes(), contentType: "text/html; charset=utf-8", etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	return p, nil
}

// Paths returns the URL paths the page answers: / and each asset.
func (p *Page) Paths() []string {
	out := make([]string, 0, len(p.files))
	for k := range p.files {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ServeHTTP answers GET and HEAD for the paths of Paths (404 for others), with ETag
// revalidation and the page's security headers.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	f, ok := p.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", f.etag)
	if f.immutable {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}

func contentType(ext string) string {
	if ext == ".js" {
		return "text/javascript; charset=utf-8"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}
