package trace

import (
	"context"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
	"github.com/tracecraft/tracecraft/plugins/centerline/fill"
	"github.com/tracecraft/tracecraft/plugins/centerline/graph"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// BenchmarkGraph_Lineart times the graph stage alone (graph.BuildPixels) on the
// skeleton traceMask gives it for each line-art image with the default options: run it
// with -cpu 1,2 to see what building the skeleton's parts at once gains.
func BenchmarkGraph_Lineart(b *testing.B) {
	o := DefaultOptions()
	for _, path := range enginetest.CorpusImages(b, "lineart") {
		img := enginetest.LoadPNG(b, path)
		w, h := img.Rect.Dx(), img.Rect.Dy()
		// As traceMask does up to the graph.
		_, m := ink.Binarise(ink.Darkness(img), o.Threshold, o.Level)
		rs := distance.FindRuns(m.Pix, w, h)
		d := distance.TransformRuns(rs, w, h)
		_, blobs, blobRuns := areas(rs, d, w, h)
		sk, _, _, err := strokeSkeleton(context.Background(), rs, d, w, h, blobs, blobRuns, o, func() *fill.Parts { return fill.PartsOf(rs, w) })
		if err != nil {
			b.Fatal(err)
		}
		gopt := graph.DefaultOptions()
		gopt.JoinGaps, gopt.CloseLoops = o.JoinGaps, o.CloseLoops
		pix := sk.Pixels()
		b.Run(enginetest.Name(path), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				graph.BuildPixels(pix, d, w, h, gopt)
			}
		})
	}
}
