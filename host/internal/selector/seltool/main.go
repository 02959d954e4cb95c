// Command seltool prints, for each image of a corpus laid out as DIR/<category>/NAME.png,
// its features, the category Choose picks and whether it matches the folder: the
// confusion check of the auto rule.
//
//	go run ./host/internal/selector/seltool ../shared/bench/corpus
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/sdk/analysis"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

func main() {
	files, _ := filepath.Glob(os.Args[1] + "/*/*.png")
	sort.Strings(files)
	ok := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		img, _, err := raster.Decode(data, 0)
		if err != nil {
			panic(err)
		}
		m := analysis.Measure(img)
		got := selector.Choose(m)
		want := filepath.Base(filepath.Dir(f))
		if got == want {
			ok++
		}
		fmt.Printf("%-8s %-8s %-40s colors=%.0f top1=%.2f top4=%.2f top16=%.2f edge=%.3f grad=%.3f flat=%.2f sat=%.2f gray=%.2f ext=%.2f tr=%.2f tex=%.3f t16f=%.2f unamb=%v\n", want, got, filepath.Base(f),
			m[analysis.Colors], m[analysis.Top1Share], m[analysis.Top4Share], m[analysis.Top16Share], m[analysis.EdgeShare], m[analysis.GradientShare], m[analysis.FlatShare], m[analysis.Saturation], m[analysis.GrayShare], m[analysis.ExtremeShare], m[analysis.TransparentShare], m[analysis.TextureShare], m[analysis.Top16FineShare], selector.Unambiguous(m))
	}
	fmt.Println("correct", ok, "of", len(files))
}
