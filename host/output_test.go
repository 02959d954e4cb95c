package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// rogueEngine builds the test engine that answers with the SVG it is told to, with the
// sdk's own output check in the engine process, or without it (checked false), so that
// its hostile SVGs reach the host even when the host does not ask the engine to leave
// the check to it.
func rogueEngine(t testing.TB, name string, checked bool) string {
	t.Helper()
	vars := []string{"main.name=" + name}
	if !checked {
		vars = append(vars, "github.com/tracecraft/tracecraft/sdk.skipOutputCheck=yes")
	}
	return testbin.Build(t, "./internal/rogueengine", vars...)
}

// hostileOutputs are the rogue engine's hostile answers and what the refusal must name.
var hostileOutputs = []struct{ output, problem string }{
	{"script", "<script> is not allowed"},
	{"foreignObject", "<foreignObject> is not allowed"},
	{"style", "<style> is not allowed"},
	{"styleURL", "refers outside the document"},
	{"onload", "event attribute onload"},
	{"href", "only a #fragment"},
	{"xxe", "<!DOCTYPE> is not allowed"},
	{"laughs", "<!DOCTYPE> is not allowed"},
	{"latin1", "not valid UTF-8"},
	{"viewBox", "does not match the image"},
	{"unclosed", "not well-formed"},
}

func TestHostRefusesHostileSVGs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testbin.Install(t, rogueEngine(t, "rogue", false), dir, "rogue")
	testbin.Install(t, rogueEngine(t, "checked", true), dir, "checked")
	h := startHost(t, dir, "", "--workers", "2")
	img := testbin.SolidPNG(t, 12, 7, color.NRGBA{200, 10, 10, 255})

	// The host's own check, with the sdk's check in the engine process off ("rogue") and
	// on ("checked", as in every engine built with the sdk): the host asks the engine to
	// leave the check to it (host_checks_output, sdk 2.4.0), so both hostile SVGs reach
	// the host's check and the client gets the same answer either way. The sdk's own
	// check, for a host that does not ask, is tested in sdk (TestTheServerLeavesTheOutputCheckToAHostThatChecks) and sdk/pluginhost.
	for _, engine := range []string{"rogue", "checked"} {
		for _, tt := range hostileOutputs {
			t.Run(engine+" "+tt.output, func(t *testing.T) {
				r := h.vectorize(img, fmt.Sprintf(`{"engine":%q,%q:{"output":%q}}`, engine, engine, tt.output), "Accept", "image/svg+xml")
				if r.status != 500 || r.errorCode() != "engine_bad_output" {
					t.Fatalf("got %s, want 500 engine_bad_output", r)
				}
				msg := r.json["error"].(map[string]any)["message"].(string)
				if !strings.Contains(msg, `engine "`+engine+`"`) || !strings.Contains(msg, tt.problem) {
					t.Errorf("message %q should name engine %q and the problem %q", msg, engine, tt.problem)
				}
				if strings.Contains(string(r.body), "alert") || strings.Contains(string(r.body), "passwd") {
					t.Errorf("the refusal repeats the hostile content: %s", r.body)
				}
			})
		}
	}

	// A harmless answer from the same engine passes, and the process that made the
	// hostile ones still serves.
	r := h.vectorize(img, `{"engine":"rogue"}`)
	if r.status != 200 || svg.Check([]byte(r.json["svg"].(string)), 12, 7) != nil {
		t.Fatalf("harmless output: %s", r)
	}

	m := scrapeMetrics(t, h)
	n := float64(len(hostileOutputs))
	for _, engine := range []string{"rogue", "checked"} {
		if got := m.value("tracecraft_engine_bad_outputs_total", "engine", engine); got != n {
			t.Errorf("tracecraft_engine_bad_outputs_total{engine=%q} = %v, want %v", engine, got, n)
		}
		if got := m.value("tracecraft_engine_job_duration_seconds", "engine", engine, "outcome", "bad_output"); got != n {
			t.Errorf("jobs with outcome bad_output for %s = %v, want %v", engine, got, n)
		}
	}
	h.log.waitFor(t, regexp.MustCompile(`engine output refused.*engine=rogue`), 5*time.Second)
}

// TestBundledEnginesCorpusPassesTheOutputCheck traces every image of the bench corpus
// with each bundled engine, through the host, which checks every SVG: all must be
// answered 200 (and pass svg.Check here again).
func TestBundledEnginesCorpusPassesTheOutputCheck(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("traces the whole corpus")
	}
	corpus := enginetest.CorpusDir(t)
	paths, _ := filepath.Glob(filepath.Join(corpus, "*", "*.png"))
	if len(paths) == 0 {
		t.Skipf("no PNG in %s", corpus)
	}
	dir := t.TempDir()
	engines := []string{"tracecraft", "vtracer", "potrace", "tracecraft2", "potrace2"}
	for _, e := range engines {
		testbin.Install(t, testbin.Build(t, "./plugins/"+e), dir, e)
	}
	h := startHost(t, dir, "", "--workers", "2", "--job-timeout", "5m")
	var wg sync.WaitGroup
	jobs := make(chan [2]string)
	for range 2 {
		wg.Go(func() {
			for j := range jobs {
				img, err := os.ReadFile(j[1])
				if err != nil {
					t.Error(err)
					continue
				}
				r := h.vectorize(img, fmt.Sprintf(`{"engine":%q}`, j[0]))
				rel, _ := filepath.Rel(corpus, j[1])
				if r.status != 200 {
					t.Errorf("%s on %s: %s", j[0], rel, r)
					continue
				}
				w, hh := int(r.json["width"].(float64)), int(r.json["height"].(float64))
				if err := svg.Check([]byte(r.json["svg"].(string)), w, hh); err != nil {
					t.Errorf("%s on %s: %v", j[0], rel, err)
				}
			}
		})
	}
	for _, e := range engines {
		for _, p := range paths {
			jobs <- [2]string{e, p}
		}
	}
	close(jobs)
	wg.Wait()
	t.Logf("%d corpus images x %d engines traced and checked", len(paths), len(engines))
}

// BenchmarkBigSVGPeakRSS has a fresh host answer one SVG of 50 MiB, made by the rogue
// engine, as JSON and bare, and reports the host's peak resident memory above what it
// held before the request (the target: at most 2 N + 50 MB for an SVG of N bytes).
func BenchmarkBigSVGPeakRSS(b *testing.B) {
	const mb = 50
	for _, mode := range []string{"json", "bare"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				dir := b.TempDir()
				testbin.Install(b, rogueEngine(b, "rogue", true), dir, "rogue")
				h := startHost(b, dir, "", "--workers", "1", "--max-svg", strconv.Itoa(64<<20))
				img := testbin.SolidPNG(b, 64, 64, color.NRGBA{1, 2, 3, 255})
				// A small trace first, so the engine process and the host's paths are warm.
				if r := h.vectorize(img, `{"engine":"rogue"}`); r.status != 200 {
					b.Fatal(r)
				}
				before := testbin.Memory(b, h.cmd.Process.Pid, "VmHWM")
				var hdr []string
				if mode == "bare" {
					hdr = []string{"Accept", "image/svg+xml"}
				}
				r := h.vectorize(img, fmt.Sprintf(`{"engine":"rogue","rogue":{"output":"big","mb":%d}}`, mb), hdr...)
				if r.status != 200 || len(r.body) < mb<<20 {
					b.Fatalf("%d, %d bytes", r.status, len(r.body))
				}
				peak := testbin.Memory(b, h.cmd.Process.Pid, "VmHWM")
				n := float64(len(r.body))
				b.ReportMetric(float64(before)/(1<<20), "RSS-before-MiB")
				b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
				b.ReportMetric(n/(1<<20), "answer-MiB")
				b.ReportMetric(float64(peak)/n, "peak/N")
				if limit := 2*n + 50<<20; float64(peak) > limit {
					b.Errorf("peak RSS %.0f MiB for an answer of %.0f MiB, over 2 N + 50 MB = %.0f MiB", float64(peak)/(1<<20), n/(1<<20), limit/(1<<20))
				}
				h.stop()
			}
		})
	}
}

func TestOutputOverTheLimitIsRefusedWithoutNamingTheEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testbin.Install(t, rogueEngine(t, "rogue", true), dir, "rogue")
	h := startHost(t, dir, "", "--max-svg", strconv.Itoa(2<<20))
	img := testbin.SolidPNG(t, 8, 8, color.NRGBA{1, 2, 3, 255})
	for _, mb := range []int{3, 40} {
		r := h.vectorize(img, fmt.Sprintf(`{"engine":"rogue","rogue":{"output":"big","mb":%d}}`, mb))
		msg, _ := r.json["error"].(map[string]any)["message"].(string)
		if r.status != 500 || r.errorCode() != "output_too_large" || !strings.Contains(msg, "limit of 2 MiB") || strings.Contains(msg, "rogue") {
			t.Errorf("a %d MiB SVG with --max-svg 2 MiB: %s; want 500 output_too_large naming the limit, not the engine", mb, r)
		}
	}
	if r := h.vectorize(img, `{"engine":"rogue","rogue":{"output":"big","mb":1}}`); r.status != 200 {
		t.Errorf("a 1 MiB SVG under a 2 MiB limit: %s", r)
	}
}
