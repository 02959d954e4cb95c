package fidelity_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/internal/testbin"
	potrace "github.com/tracecraft/tracecraft/plugins/potrace/engine"
	potrace2 "github.com/tracecraft/tracecraft/plugins/potrace2/engine"
	tracecraft "github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	tracecraft2 "github.com/tracecraft/tracecraft/plugins/tracecraft2/engine"
	vtracer "github.com/tracecraft/tracecraft/plugins/vtracer/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// MaxDiff is how far the service's score may be from the bench's, in SSIM.
const MaxDiff = 0.005

// The agreement test traces corpus images with every bundled engine at its defaults and
// scores each SVG twice: by ScoreSVG (rendered in Go) and as the bench scores it (resvg,
// then the bench's own lib/metrics.mjs under Node; testdata/bench-score.mjs). By default
// it takes the first image of each corpus category; TRACECRAFT_QUALITY=all takes every
// image, and TRACECRAFT_QUALITY_SVGS=DIR also writes the SVGs there as DIR/ENGINE/CATEGORY/
// NAME.svg, for `bench.sh score --svgs DIR/ENGINE`. It needs node and resvg (make
// fidelity-tools); without them it is skipped, and fails under CI.
func TestScoresAgreeWithTheBench(t *testing.T) {
	modules := testbin.ResvgModules(t)
	corpus := enginetest.CorpusDir(t)
	bench := filepath.Dir(corpus)
	if _, err := os.Stat(filepath.Join(bench, "lib", "metrics.mjs")); err != nil {
		testbin.Missing(t, "the bench's lib/metrics.mjs is not beside the corpus ("+bench+")")
	}
	paths, _ := filepath.Glob(filepath.Join(corpus, "*", "*.png"))
	sort.Strings(paths)
	if os.Getenv("TRACECRAFT_QUALITY") != "all" {
		seen := map[string]bool{}
		var first []string
		for _, p := range paths {
			if cat := filepath.Base(filepath.Dir(p)); !seen[cat] {
				seen[cat] = true
				first = append(first, p)
			}
		}
		paths = first
	}
	engines := []struct {
		name  string
		trace func(*image.NRGBA) ([]byte, error)
	}{
		{"tracecraft", tracer(tracecraft.New())},
		{"tracecraft2", tracer(tracecraft2.New())},
		{"vtracer", tracer(vtracer.New())},
		{"potrace", tracer(potrace.New())},
		{"potrace2", tracer(potrace2.New())},
	}
	keep := os.Getenv("TRACECRAFT_QUALITY_SVGS")
	dir := t.TempDir()
	type job struct {
		SVG    string `json:"svg"`
		RGBA   string `json:"rgba"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
	}
	type row struct {
		engine, image string
		ours          fidelity.Score
	}
	var jobs []job
	var rows []row
	for i, p := range paths {
		img := enginetest.LoadPNG(t, p)
		name := filepath.Base(filepath.Dir(p)) + "/" + strings.TrimSuffix(filepath.Base(p), ".png")
		rgba := filepath.Join(dir, strconv.Itoa(i)+".rgba")
		if err := os.WriteFile(rgba, img.Pix, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, e := range engines {
			svg, err := e.trace(img)
			if err != nil {
				t.Fatalf("%s on %s: %v", e.name, name, err)
			}
			file := filepath.Join(dir, fmt.Sprintf("%d-%s.svg", i, e.name))
			if err := os.WriteFile(file, svg, 0o644); err != nil {
				t.Fatal(err)
			}
			if keep != "" {
				out := filepath.Join(keep, e.name, name+".svg")
				os.MkdirAll(filepath.Dir(out), 0o755)
				if err := os.WriteFile(out, svg, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := fidelity.ScoreSVG(context.Background(), img, svg)
			if err != nil {
				t.Fatalf("%s on %s: %v", e.name, name, err)
			}
			jobs = append(jobs, job{file, rgba, img.Rect.Dx(), img.Rect.Dy()})
			rows = append(rows, row{e.name, name, s})
		}
	}
	js, _ := json.Marshal(jobs)
	jobsFile := filepath.Join(dir, "jobs.json")
	if err := os.WriteFile(jobsFile, js, 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "bench-score.mjs"))
	cmd := exec.Command("node", script, modules, bench, jobsFile)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench-score.mjs: %v", err)
	}
	var theirs []struct{ SSIM, PSNR float64 }
	if err := json.Unmarshal(out, &theirs); err != nil || len(theirs) != len(rows) {
		t.Fatalf("bench-score.mjs answered %d scores for %d SVGs (%v): %.200s", len(theirs), len(rows), err, out)
	}
	worst := map[string]float64{}
	table := []string{"| engine | image | ssim (Go) | ssim (bench) | diff | psnr (Go) | psnr (bench) |", "|---|---|---|---|---|---|---|"}
	for i, r := range rows {
		b := theirs[i]
		d := math.Abs(*r.ours.SSIM - b.SSIM)
		worst[r.engine] = math.Max(worst[r.engine], d)
		table = append(table, fmt.Sprintf("| %s | %s | %.4f | %.4f | %.4f | %.2f | %.2f |", r.engine, r.image, *r.ours.SSIM, b.SSIM, d, r.ours.PSNR, b.PSNR))
		if d > MaxDiff {
			t.Errorf("%s on %s: SSIM %.4f here, %.4f by the bench: %.4f apart, want at most %g", r.engine, r.image, *r.ours.SSIM, b.SSIM, d, MaxDiff)
		}
	}
	table = append(table, "", "| engine | images | max abs SSIM diff |", "|---|---|---|")
	for _, e := range engines {
		table = append(table, fmt.Sprintf("| %s | %d | %.4f |", e.name, len(paths), worst[e.name]))
	}
	t.Logf("quality score against the bench's:\n%s", strings.Join(table, "\n"))
}

func tracer[P any](e sdk.Engine[P]) func(*image.NRGBA) ([]byte, error) {
	return func(img *image.NRGBA) ([]byte, error) {
		params, err := sdk.Decode[P](map[string]any{})
		if err != nil {
			return nil, err
		}
		return e.Trace(context.Background(), img, params)
	}
}
