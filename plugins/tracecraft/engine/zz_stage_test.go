package engine_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/paint"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/planar"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/quantize"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/refine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/regions"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/svgout"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// TestZZStages prints per-stage minimum wall times (throwaway, not committed).
func TestZZStages(t *testing.T) {
	cat := os.Getenv("ZZ_CAT")
	if cat == "" {
		t.Skip()
	}
	ctx := context.Background()
	names := []string{"quant", "regions", "planar", "plan", "refine", "svgout", "total"}
	tot := make([][]float64, len(names))
	for _, path := range enginetest.CorpusImages(t, cat) {
		img := enginetest.LoadPNG(t, path)
		best := make([]time.Duration, len(names))
		for i := range best {
			best[i] = time.Hour
		}
		for range 15 {
			var d [7]time.Duration
			t0 := time.Now()
			q, _ := quantize.Quantize(ctx, img, quantize.Options{MaxColors: 16})
			t1 := time.Now()
			rm, _ := regions.Build(ctx, img, q, regions.Options{MinRegion: 25})
			t2 := time.Now()
			pm, _ := planar.Build(ctx, rm)
			t3 := time.Now()
			seg := &segment.Segmentation{Quant: q, Regions: rm, Planar: pm}
			opt := paint.Options{Underlap: true, GapFiller: !paint.FineDetail(seg, paint.AutoGapFillerWidth), GapFillerWidth: paint.AutoGapFillerWidth}
			plan := paint.NewPlan(seg, opt)
			t4 := time.Now()
			res, _ := refine.Fit(ctx, img, seg, plan, 0.5)
			t5 := time.Now()
			svgout.Write(res, plan, svgout.Options{Paint: opt, Precision: 2})
			t6 := time.Now()
			d = [7]time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), t5.Sub(t4), t6.Sub(t5), t6.Sub(t0)}
			for i := range d {
				best[i] = min(best[i], d[i])
			}
		}
		line := enginetest.Name(path)
		for i, b := range best {
			ms := float64(b.Microseconds()) / 1000
			tot[i] = append(tot[i], ms)
			line += fmt.Sprintf(" %s=%.2f", names[i], ms)
		}
		t.Log(line)
	}
	line := "MEDIAN"
	for i, v := range tot {
		sort.Float64s(v)
		line += fmt.Sprintf(" %s=%.2f", names[i], (v[len(v)/2]+v[(len(v)-1)/2])/2)
	}
	t.Log(line)
}
