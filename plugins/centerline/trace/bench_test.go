package trace_test

import (
	"context"
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
