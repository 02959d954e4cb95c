package trace_test

import (
	"context"
	"image"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/trace"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func BenchmarkTrace_Lineart(b *testing.B) {
	for _, path := range enginetest.CorpusImages(b, "lineart") {
		img := enginetest.LoadPNG(b, path)
		b.Run(enginetest.Name(path), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := trace.Trace(context.Background(), img, trace.DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTrace_16MP traces a 16.6 MP drawing: the trumpet line art scaled up 2.88
// times (nearest neighbour). Run it alone under /usr/bin/time -v for the peak memory.
func BenchmarkTrace_16MP(b *testing.B) {
	var src string
	for _, p := range enginetest.CorpusImages(b, "lineart") {
		if enginetest.Name(p) == "openclipart-trumpet" {
			src = p
		}
	}
	if src == "" {
		b.Skip("no trumpet in the corpus")
	}
	small := enginetest.LoadPNG(b, src)
	const w, h = 5184, 3200
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	for y := 0; y < h; y++ {
		sy := y * sh / h
		for x := 0; x < w; x++ {
			sx := x * sw / w
			copy(img.Pix[y*img.Stride+4*x:y*img.Stride+4*x+4], small.Pix[sy*small.Stride+4*sx:])
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := trace.Trace(context.Background(), img, trace.DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
