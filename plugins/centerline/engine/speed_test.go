package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/plugins/centerline/engine"
	potrace "github.com/tracecraft/tracecraft/plugins/potrace/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// BenchmarkVsPotrace_Lineart traces each line-art corpus image with the potrace engine
// and the centerline engine in turn, in one process, at their defaults, and reports
// the ratio of their times (x-potrace: centerline's time over potrace's, summed over
// the pairs, so a drift of the machine's speed moves both alike) beside each engine's
// milliseconds per trace.
func BenchmarkVsPotrace_Lineart(b *testing.B) {
	cl, pt := engine.New(), potrace.New()
	clp, ptp := sdk.Defaults[engine.Params](), sdk.Defaults[potrace.Params]()
	ctx := context.Background()
	for _, path := range enginetest.CorpusImages(b, "lineart") {
		img := enginetest.LoadPNG(b, path)
		b.Run(enginetest.Name(path), func(b *testing.B) {
			var tc, tp time.Duration
			n := 0
			for b.Loop() {
				t0 := time.Now()
				if _, err := pt.Trace(ctx, img, ptp); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := cl.Trace(ctx, img, clp); err != nil {
					b.Fatal(err)
				}
				tp += t1.Sub(t0)
				tc += time.Since(t1)
				n++
			}
			b.ReportMetric(float64(tc)/float64(tp), "x-potrace")
			b.ReportMetric(float64(tc)/1e6/float64(n), "ms-centerline")
			b.ReportMetric(float64(tp)/1e6/float64(n), "ms-potrace")
		})
	}
}
