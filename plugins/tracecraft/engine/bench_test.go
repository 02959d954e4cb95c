package engine_test

import (
	"context"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func benchmarkCategory(b *testing.B, category string) {
	e := engine.New()
	params := sdk.DefaultParams(e.Describe())
	for _, path := range enginetest.CorpusImages(b, category) {
		img := enginetest.LoadPNG(b, path)
		b.Run(enginetest.Name(path), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := e.Trace(context.Background(), img, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTrace_Logo(b *testing.B)    { benchmarkCategory(b, "logo") }
func BenchmarkTrace_Poster(b *testing.B)  { benchmarkCategory(b, "poster") }
func BenchmarkTrace_Photo(b *testing.B)   { benchmarkCategory(b, "photo") }
func BenchmarkTrace_Lineart(b *testing.B) { benchmarkCategory(b, "lineart") }
