package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// TestWebPageDrawsStrokesOverTheOriginal traces line art with the centerline engine in
// the browser and turns on "Strokes over the original": the overlay shows the SVG,
// recoloured in the contrasting colour, over the whole original; turning it off
// restores the SVG's own colours.
func TestWebPageDrawsStrokesOverTheOriginal(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	plugins := t.TempDir()
	testbin.Install(t, testbin.Build(t, "./plugins/centerline"), plugins, "centerline")
	h := startHost(t, plugins, "")
	art := writeTemp(t, "lineart.png", lineArt(t))
	p := openBrowser(t, browser)
	p.do("load the page", chromedp.Navigate(h.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)))
	p.choose("#engine", "centerline")
	n := p.answers()
	p.do("upload the line art", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{art}))
	p.waitAnswer(n, "done")
	if got := p.text(`[data-fact="engine"]`); !strings.Contains(got, "centerline") {
		t.Fatalf("engine fact = %q, want centerline", got)
	}
	// magenta is the share of the overlay SVG's painted pixels in the contrasting
	// colour, drawn on a canvas as the page shows it.
	magenta := func() float64 {
		return eval[float64](p, `(async () => {
			const img = document.getElementById('ov-svg');
			await img.decode();
			const c = document.createElement('canvas');
			c.width = img.naturalWidth; c.height = img.naturalHeight;
			const g = c.getContext('2d');
			g.drawImage(img, 0, 0);
			const px = g.getImageData(0, 0, c.width, c.height).data;
			let painted = 0, m = 0;
			for (let i = 0; i < px.length; i += 4) {
				if (px[i + 3] < 128) continue;
				painted++;
				if (px[i] > 200 && px[i + 1] < 60 && px[i + 2] > 90 && px[i + 2] < 170) m++;
			}
			return painted ? m / painted : 0;
		})()`)
	}
	if m := magenta(); m > 0.01 {
		t.Errorf("before the toggle %.0f%% of the overlay is in the contrasting colour", m*100)
	}
	p.do("strokes over the original", chromedp.Click(chromedp.ID("strokes-over")))
	if got := p.text("#overlay-caption"); got != "Strokes over the original" {
		t.Errorf("caption %q, want Strokes over the original", got)
	}
	if eval[bool](p, `document.getElementById('ov-top').hidden || getComputedStyle(document.getElementById('ov-top')).clipPath !== 'none'`) {
		t.Error("the SVG layer is hidden or clipped with strokes over the original")
	}
	if eval[bool](p, `document.querySelector('.pane-overlay').offsetParent === null`) {
		t.Error("the overlay pane is not shown")
	}
	if m := magenta(); m < 0.9 {
		t.Errorf("with strokes over the original %.0f%% of the overlay's strokes are in the contrasting colour, want nearly all", m*100)
	}
	p.viewShot("10-strokes-over-original")
	p.do("strokes off", chromedp.Click(chromedp.ID("strokes-over")))
	if m := magenta(); m > 0.01 {
		t.Errorf("after turning the toggle off %.0f%% of the overlay is in the contrasting colour", m*100)
	}
}
