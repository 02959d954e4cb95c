package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// TestWebPageDownloadsEveryFormat traces a logo on the web page, then saves it as PDF,
// EPS, DXF and PNG with the page's download buttons: each is fetched from the service in
// its format and saved under the image's name.
func TestWebPageDownloadsEveryFormat(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	plugins := t.TempDir()
	testbin.Install(t, testbin.Build(t, "./plugins/potrace"), plugins, "potrace")
	h := startHost(t, plugins, "")
	logo := logoFile(t)
	p := openBrowser(t, browser)
	p.do("load the page", chromedp.Navigate(h.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)))
	p.choose("#engine", "potrace")
	n := p.answers()
	p.do("upload "+logo, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{logo}))
	p.waitAnswer(n, "done")
	formats := eval[[]string](p, `[...document.querySelectorAll('.download-as button')].map(b => b.dataset.format)`)
	if strings.Join(formats, ",") != "pdf,eps,dxf,png" {
		t.Fatalf("download buttons %v, want pdf, eps, dxf, png", formats)
	}
	p.viewShot("download-choices")
	base := strings.TrimSuffix(logo[strings.LastIndex(logo, "/")+1:], ".png")
	types := map[string]string{"pdf": "application/pdf", "eps": "application/postscript", "dxf": "image/vnd.dxf", "png": "image/png"}
	for i, f := range formats {
		p.do("download "+f, chromedp.Click(chromedp.CSS(`.download-as button[data-format="`+f+`"]`)))
		deadline := time.Now().Add(60 * time.Second)
		for eval[int](p, `Number(document.body.dataset.downloads || 0)`) < i+1 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: nothing saved; status %q", f, p.text("#status"))
			}
			time.Sleep(50 * time.Millisecond)
		}
		last := eval[string](p, `document.body.dataset.lastDownload`)
		if !regexp.MustCompile(`^` + regexp.QuoteMeta(base+"."+f+" "+types[f]) + ` [1-9][0-9]*$`).MatchString(last) {
			t.Errorf("%s: saved %q, want %s.%s of type %s", f, last, base, f, types[f])
		}
	}
}
