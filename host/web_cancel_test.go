package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// bigPhotoFile returns a large photo: the bench corpus's Hubble image when the corpus
// is there, else a generated 4 MP photo-like PNG. auto traces it with vtracer, for
// seconds.
func bigPhotoFile(t *testing.T) string {
	t.Helper()
	corpus := corpusDir()
	path := filepath.Join(corpus, "photo", "skimage-hubble.png")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	return writeTemp(t, "photo.png", photoPNG(t, 2400, 1600))
}

var elapsedStatus = regexp.MustCompile(`^Tracing (\S+)… (\d+\.\d) s$`)

// TestWebPageAbortsAStaleTraceAndCancels: a trace started while another is in flight
// aborts it (AbortController), so a logo chosen 0.5 s after a large photo shows its
// result within its own trace time plus 0.5 s and the photo's answer never shows; the
// status counts the elapsed time while tracing; Cancel abandons the trace in flight.
func TestWebPageAbortsAStaleTraceAndCancels(t *testing.T) {
	// Not parallel: it compares two timings, which other tests' load would blur.
	browser := chromium(t)
	plugins := t.TempDir()
	for _, e := range []string{"tracecraft", "vtracer", "potrace"} {
		testbin.Install(t, testbin.Build(t, "./plugins/"+e), plugins, e)
	}
	h := startHost(t, plugins, "", "--workers", "2")
	logo, photo := logoFile(t), bigPhotoFile(t)
	p := openBrowser(t, browser)
	p.do("load the page", chromedp.Navigate(h.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-state="ready"]`)))

	// The logo alone, twice: its own trace time, as the page shows it from the upload.
	alone := time.Duration(1 << 62)
	for i := range 2 {
		n := p.answers()
		start := time.Now()
		if i == 0 {
			p.do("upload the logo", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{logo}))
		} else {
			p.do("trace the logo again", chromedp.Click(chromedp.ID("trace")))
		}
		p.waitAnswer(n, "done")
		alone = min(alone, time.Since(start))
	}
	t.Logf("the logo alone: %v", alone)

	// The photo; while it traces the status counts the seconds and Cancel shows.
	n := p.answers()
	p.do("upload the photo", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{photo}))
	time.Sleep(250 * time.Millisecond)
	first := p.text("#status")
	time.Sleep(250 * time.Millisecond)
	second := p.text("#status")
	m1, m2 := elapsedStatus.FindStringSubmatch(first), elapsedStatus.FindStringSubmatch(second)
	if m1 == nil || m2 == nil || m1[1] != filepath.Base(photo) {
		t.Errorf("status while tracing = %q, then %q; want Tracing %s… and the seconds", first, second, filepath.Base(photo))
	} else if a, b := atof(m1[2]), atof(m2[2]); b <= a || b < 0.3 {
		t.Errorf("the elapsed time went from %s to %s in 0.25 s", m1[2], m2[2])
	}
	if eval[bool](p, `document.getElementById('cancel').hidden`) {
		t.Errorf("no Cancel button while tracing")
	}
	if p.answers() != n {
		t.Fatalf("the photo was traced in under 0.5 s: the test needs a slower one")
	}

	// The logo 0.5 s after the photo: it shows within its own time plus 0.5 s.
	start := time.Now()
	p.do("upload the logo", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{logo}))
	p.waitAnswer(n, "done")
	took := time.Since(start)
	t.Logf("the logo after the photo: %v", took)
	if took > alone+500*time.Millisecond {
		t.Errorf("the logo chosen while the photo traced showed after %v; alone it takes %v (allowed: %v)", took, alone, alone+500*time.Millisecond)
	}
	status := p.text("#status")
	if !strings.Contains(status, "Traced "+filepath.Base(logo)) {
		t.Errorf("status = %q, want the logo's result", status)
	}
	p.viewShot("21-logo-after-aborted-photo")
	// The photo's answer never replaces it (it was aborted, not ignored until it came).
	time.Sleep(time.Second)
	if got := p.answers(); got != n+1 || p.text("#status") != status {
		t.Errorf("after the logo: %d answers shown (want %d), status %q", got, n+1, p.text("#status"))
	}

	// Cancel: the trace in flight is abandoned, the page says so and shows no answer.
	n = p.answers()
	p.do("upload the photo", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{photo}))
	time.Sleep(300 * time.Millisecond)
	p.do("cancel", chromedp.Click(chromedp.ID("cancel")))
	if st := eval[string](p, `document.body.dataset.state`); st == "tracing" || !strings.HasPrefix(p.text("#status"), "Cancelled") ||
		!eval[bool](p, `document.getElementById('cancel').hidden`) {
		t.Errorf("after Cancel: state %q, status %q, Cancel hidden %v", st, p.text("#status"), eval[bool](p, `document.getElementById('cancel').hidden`))
	}
	p.viewShot("22-cancelled")
	time.Sleep(time.Second)
	if got := p.answers(); got != n {
		t.Errorf("a cancelled trace's answer was shown")
	}
	// And the page traces again.
	p.do("upload the logo", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{logo}))
	p.waitAnswer(n, "done")
}

func atof(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
