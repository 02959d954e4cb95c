package main

import (
	"context"
	"encoding/json"
	"image/color"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// hostileSVG tries every way an SVG can run script or fetch something: a script
// element, an onload attribute, an image with an onerror handler, HTML in a
// foreignObject. Each would fetch base+"/pwned-<way>". It paints a green square, so a
// test can see it was shown.
func hostileSVG(base string) string {
	return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" onload="fetch('` + base + `/pwned-onload')">` +
		`<script>fetch('` + base + `/pwned-script');try{top.document.body.dataset.pwned='script'}catch(e){}</script>` +
		`<image href="` + base + `/pwned-image" width="1" height="1" onerror="fetch('` + base + `/pwned-onerror')"/>` +
		`<foreignObject width="16" height="16"><img xmlns="http://www.w3.org/1999/xhtml" src="` + base + `/pwned-html" ` +
		`onerror="fetch('` + base + `/pwned-html-onerror')"/></foreignObject>` +
		`<rect width="16" height="16" fill="#0a0"/></svg>`
}

// pwnLog is an HTTP server that records every request a hostile SVG makes, and serves
// the hostile SVG itself at /svg with the given headers.
type pwnLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *pwnLog) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.paths...)
}

// TestHostileSVGCannotRunInTheBrowser shows that an SVG that got past the output check
// still could not run script: the page shows results only as images (an SVG in an img
// element runs no script and loads nothing), and the bare SVG the API answers, opened
// in a tab, is under a policy that forbids both. The hostile SVG is put in the page's
// way by the browser itself (the API's answer is replaced in flight), since the host
// would refuse it.
func TestHostileSVGCannotRunInTheBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	h := startHost(t, newPlugins(t, "testengine"), "")

	// The headers of a real bare-SVG answer of the host.
	real := h.vectorize(testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255}), `{"engine":"testengine"}`, "Accept", "image/svg+xml")
	csp, nosniff := real.header.Get("Content-Security-Policy"), real.header.Get("X-Content-Type-Options")
	if real.status != 200 || csp == "" || nosniff != "nosniff" {
		t.Fatalf("bare SVG answer: %s with Content-Security-Policy %q and X-Content-Type-Options %q, want both", real, csp, nosniff)
	}
	if js := h.vectorize(testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255}), `{"engine":"testengine"}`); js.header.Get("X-Content-Type-Options") != "nosniff" ||
		js.header.Get("Content-Security-Policy") != csp {
		t.Errorf("JSON answer headers: nosniff %q, policy %q; want those of the bare SVG", js.header.Get("X-Content-Type-Options"), js.header.Get("Content-Security-Policy"))
	}

	pwn := &pwnLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pwn.mu.Lock()
		pwn.paths = append(pwn.paths, r.URL.Path)
		pwn.mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		switch r.URL.Path {
		case "/svg-as-served": // with the host's headers
			w.Header().Set("Content-Security-Policy", csp)
			w.Header().Set("X-Content-Type-Options", nosniff)
			fallthrough
		case "/svg-bare": // without: the control, where the script runs
			w.Header().Set("Content-Type", "image/svg+xml")
			_, _ = w.Write([]byte(hostileSVG(serverBase(r))))
		}
	}))
	defer srv.Close()

	p := openBrowser(t, browser)
	p.do("load the page", chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)))
	p.choose("#engine", "testengine")

	// The page's request for a trace is answered, in the browser, with the hostile SVG.
	answer, _ := json.Marshal(map[string]any{"svg": hostileSVG(srv.URL), "engine": "testengine", "originalSize": 100,
		"svgSize": 600, "width": 16, "height": 16, "settings": map[string]any{"engine": "testengine"}, "lane": "public",
		"engineVersion": "1.0.0", "timings": map[string]any{"queueMs": 0, "analyzeMs": 0, "decodeMs": 0, "traceMs": 1, "totalMs": 1}})
	var fulfilled sync.WaitGroup
	chromedp.Listen(p.ctx, func(ev any) {
		if ev, ok := ev.(*fetch.EventRequestPaused); ok {
			fulfilled.Go(func() {
				_, err := chromedp.Run(p.ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
					_, err := chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 200,
						ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}}, Body: answer})
					return err
				}))
				if err != nil {
					t.Errorf("answering the page's request: %v", err)
				}
			})
		}
	})
	p.do("intercept the API", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/vectorize*"}}})
		return err
	}))
	n := p.answers()
	p.do("upload", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{logoFile(t)}))
	p.waitAnswer(n, "done")
	fulfilled.Wait()
	// It is shown: the image decodes (an SVG with a foreignObject taints a canvas, so its
	// pixels cannot be read back; the screenshot shows the green square).
	shown := testbin.Eventually(15*time.Second, func() bool {
		return eval[bool](p, `(async () => {
			const img = document.getElementById('img-svg');
			try { await img.decode(); } catch (e) { return false; }
			return img.src.startsWith('blob:') && img.naturalWidth > 0 && !img.hidden;
		})()`)
	})
	if !shown {
		t.Errorf("the page does not show the SVG as a blob: image")
	}
	if got := eval[string](p, `document.body.dataset.pwned || ''`); got != "" {
		t.Errorf("the SVG's script ran in the page: %q", got)
	}
	if strings.Contains(eval[string](p, `document.getElementById('views').innerHTML`), "pwned") {
		t.Errorf("the SVG's markup is in the page's DOM")
	}
	p.viewShot("20-hostile-svg-shown-inert")

	// Opened in a tab as the host serves it, its script does not run either; without the
	// host's headers it does (the control that shows the test can see a script run).
	p.do("open the SVG as served", chromedp.Navigate(srv.URL+"/svg-as-served"))
	time.Sleep(time.Second)
	for _, path := range pwn.seen() {
		if strings.HasPrefix(path, "/pwned") {
			t.Errorf("the hostile SVG reached %s: its script or a load ran", path)
		}
	}
	p.do("open the SVG without the headers", chromedp.Navigate(srv.URL+"/svg-bare"))
	if !testbin.Eventually(10*time.Second, func() bool {
		for _, path := range pwn.seen() {
			if path == "/pwned-script" {
				return true
			}
		}
		return false
	}) {
		t.Errorf("the control failed: the SVG's script did not run even without the host's headers (requests: %v)", pwn.seen())
	}
	// The control's own fetches are not the page's problems.
	p.mu.Lock()
	p.problems = nil
	p.mu.Unlock()
}

// serverBase returns the scheme and host a request came to.
func serverBase(r *http.Request) string { return "http://" + r.Host }
