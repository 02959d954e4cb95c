package trace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/fit"
	"github.com/tracecraft/tracecraft/plugins/centerline/svgout"
	"github.com/tracecraft/tracecraft/plugins/centerline/synth"
	"github.com/tracecraft/tracecraft/plugins/centerline/trace"
)

// seeds is the number of images per scene kind and damage in the accuracy benchmark.
const seeds = 6

// sample turns traced strokes into polylines with their widths.
func sample(groups []svgout.Group) []synth.Stroke {
	var out []synth.Stroke
	for _, g := range groups {
		for _, s := range g.Strokes {
			var pts []synth.P
			for _, sg := range s.Segments {
				for k := 0; k <= 16; k++ {
					if k == 0 && len(pts) > 0 {
						continue
					}
					t := float64(k) / 16
					var v fit.Vec
					if sg.Line {
						v = fit.Vec{X: sg.P0.X + t*(sg.P3.X-sg.P0.X), Y: sg.P0.Y + t*(sg.P3.Y-sg.P0.Y)}
					} else {
						mt := 1 - t
						v = fit.Vec{
							X: mt*mt*mt*sg.P0.X + 3*mt*mt*t*sg.P1.X + 3*mt*t*t*sg.P2.X + t*t*t*sg.P3.X,
							Y: mt*mt*mt*sg.P0.Y + 3*mt*mt*t*sg.P1.Y + 3*mt*t*t*sg.P2.Y + t*t*t*sg.P3.Y}
					}
					pts = append(pts, synth.P{X: v.X, Y: v.Y})
				}
			}
			if s.Closed && len(pts) > 0 {
				pts = append(pts, pts[0])
			}
			out = append(out, synth.Stroke{Points: pts, Width: s.Width})
		}
	}
	return out
}

// BenchmarkAccuracy traces the synthetic stroke images and reports the centre-line
// figures of issue 21 (distance to the true line, ends and junctions, stroke count,
// width), per damage. With CENTERLINE_SYNTH_DIR set it also writes the images and the
// truth there, and scores DIR/<name>.skimage.json when present (strokes found by the
// scikit-image baseline, bench/skimage_baseline.py), reported as skimage-*.
func BenchmarkAccuracy(b *testing.B) {
	dir := os.Getenv("CENTERLINE_SYNTH_DIR")
	for _, dmg := range []synth.Damage{synth.Clean, synth.Noise, synth.JPEG} {
		b.Run(dmg.String(), func(b *testing.B) {
			var ours, base synth.Score
			haveBase := true
			for b.Loop() {
				ours, base = synth.Score{}, synth.Score{}
				for _, k := range synth.Kinds {
					for seed := uint64(1); seed <= seeds; seed++ {
						img, truth := synth.Scene(k, seed, dmg)
						res, err := trace.Trace(context.Background(), img, trace.DefaultOptions())
						if err != nil {
							b.Fatal(err)
						}
						ours.Add(truth, sample(res.Groups))
						if dir == "" {
							haveBase = false
							continue
						}
						name := fmt.Sprintf("%s-%s-%d", k, dmg, seed)
						writeCase(b, dir, name, img, truth)
						js, err := os.ReadFile(filepath.Join(dir, name+".skimage.json"))
						if err != nil {
							haveBase = false
							continue
						}
						var found []synth.Stroke
						if err := json.Unmarshal(js, &found); err != nil {
							b.Fatal(err)
						}
						base.Add(truth, found)
					}
				}
			}
			report(b, "", ours.Summary())
			if haveBase {
				report(b, "skimage-", base.Summary())
			}
		})
	}
}

func report(b *testing.B, prefix string, s synth.Summary) {
	b.ReportMetric(s.MeanDist, prefix+"mean-px")
	b.ReportMetric(s.P99Dist, prefix+"p99-px")
	b.ReportMetric(s.Recall, prefix+"key-recall")
	b.ReportMetric(s.Precision, prefix+"key-precision")
	b.ReportMetric(s.CountRatio, prefix+"count-ratio")
	b.ReportMetric(s.CountWithin10, prefix+"count-ok-share")
	b.ReportMetric(s.MedianWidthErr, prefix+"width-err-px")
}

func writeCase(b *testing.B, dir, name string, img *image.NRGBA, truth []synth.Stroke) {
	b.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, name+".png"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		b.Fatal(err)
	}
	js, _ := json.Marshal(truth)
	if err := os.WriteFile(filepath.Join(dir, name+".truth.json"), js, 0o644); err != nil {
		b.Fatal(err)
	}
}
