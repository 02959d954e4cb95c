package fidelity_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	potrace "github.com/tracecraft/tracecraft/plugins/potrace/engine"
	tracecraft "github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	vtracer "github.com/tracecraft/tracecraft/plugins/vtracer/engine"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// BenchmarkScore times the quality score of a corpus trace as the service computes it
// (decode the PNG, parse and paint the SVG, measure), per megapixel of the image.
func BenchmarkScore(b *testing.B) {
	corpus := enginetest.CorpusDir(b)
	for _, c := range []struct {
		name, image string
		trace       func(*testing.B, string) []byte
	}{
		{"tracecraft/photo", "photo/skimage-astronaut.png", traceWith(tracer(tracecraft.New()))},
		{"vtracer/photo", "photo/skimage-astronaut.png", traceWith(tracer(vtracer.New()))},
		{"tracecraft/poster", "poster/twemoji-1f3a0-carousel.png", traceWith(tracer(tracecraft.New()))},
		{"potrace/lineart", "lineart/openclipart-trumpet.png", traceWith(tracer(potrace.New()))},
	} {
		path := filepath.Join(corpus, c.image)
		data, err := os.ReadFile(path)
		if err != nil {
			b.Skip(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		svg := c.trace(b, path)
		mp := float64(cfg.Width*cfg.Height) / 1e6
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := fidelity.ScoreFile(context.Background(), data, 0, svg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/mp, "ms/MP")
			// CPU time is what a busy machine does not inflate as much as wall time.
			b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N)/mp, "cpu-ms/MP")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func traceWith(trace func(*image.NRGBA) ([]byte, error)) func(*testing.B, string) []byte {
	return func(b *testing.B, path string) []byte {
		svg, err := trace(enginetest.LoadPNG(b, path))
		if err != nil {
			b.Fatal(err)
		}
		return svg
	}
}
