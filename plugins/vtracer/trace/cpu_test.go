//go:build unix

package trace

import (
	"context"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// cpuNow returns the CPU time the process has used, user and system.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCPUTime reports, per corpus category, the median over the images of each image's
// median CPU time (user and system, garbage collection included) of Trace with a preset.
// On a loaded machine CPU time is steadier than BenchmarkTrace's wall time. It runs only
// when VTRACER_CPU names the preset (default, poster, photo or bw); run it with
// GOMAXPROCS=1 so that the process's CPU time is Trace's.
func TestCPUTime(t *testing.T) {
	preset := os.Getenv("VTRACER_CPU")
	if preset == "" {
		t.Skip()
	}
	o := DefaultOptions()
	switch preset {
	case "poster":
		o.ColorPrecision = 8
	case "photo":
		o.ColorPrecision, o.FilterSpeckle, o.LayerDifference, o.CornerThreshold = 8, 10, 48, 180
	case "bw":
		o.BW = true
	case "default":
	default:
		t.Fatalf("VTRACER_CPU=%s: want default, poster, photo or bw", preset)
	}
	for _, cat := range []string{"logo", "poster", "photo", "lineart"} {
		var meds []float64
		for _, path := range enginetest.CorpusImages(t, cat) {
			img := enginetest.LoadPNG(t, path)
			if _, err := Trace(context.Background(), img, o); err != nil {
				t.Fatal(err)
			}
			var ts []float64
			for range 5 {
				c := cpuNow()
				if _, err := Trace(context.Background(), img, o); err != nil {
					t.Fatal(err)
				}
				ts = append(ts, float64(cpuNow()-c)/1e6)
			}
			slices.Sort(ts)
			meds = append(meds, ts[2])
		}
		slices.Sort(meds)
		if len(meds) == 0 {
			continue
		}
		t.Logf("%s %s: CPU ms, median of %d images: %.1f", preset, cat, len(meds), median(meds))
	}
}

// median returns the median of the sorted values v.
func median(v []float64) float64 {
	n := len(v)
	return (v[(n-1)/2] + v[n/2]) / 2
}
