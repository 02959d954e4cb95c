package layers

import (
	"context"
	"image/color"
	"math"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// square returns a 40 x 40 white image with a red square from x = 10 to 25.5 (the last
// column half covered) and y = 10 to 26.
func square() *Stack {
	img := enginetest.Fill(40, 40, color.NRGBA{255, 255, 255, 255})
	red := color.NRGBA{220, 0, 0, 255}
	half := color.NRGBA{238, 128, 128, 255}
	for y := 10; y < 26; y++ {
		for x := 10; x < 25; x++ {
			img.SetNRGBA(x, y, red)
		}
		img.SetNRGBA(25, y, half)
	}
	seg, err := segment.Segment(context.Background(), img, segment.Options{MaxColors: 4, MinRegion: 0})
	if err != nil {
		panic(err)
	}
	st, err := Build(context.Background(), img, seg.Regions)
	if err != nil {
		panic(err)
	}
	return st
}

func TestOrderAndStacking(t *testing.T) {
	st := square()
	if len(st.Layers) != 2 || st.Layers[0].Color.R != 255 || st.Layers[1].Color.G != 0 {
		t.Fatalf("layers %+v, want white then red", st.Layers)
	}
	// The bottom layer's bitmap holds the red square too: nothing shows through.
	bm, _ := st.Bitmap(context.Background(), 0, 1)
	if bm.Count() != 40*40 {
		t.Errorf("white layer covers %d pixels, want all %d", bm.Count(), 40*40)
	}
	bm, _ = st.Bitmap(context.Background(), 1, 1)
	if n := bm.Count(); n != 15*16 && n != 16*16 {
		t.Errorf("red layer covers %d pixels, want the square", n)
	}
}

func TestCoverage(t *testing.T) {
	st := square()
	v := st.Coverage(1)
	if got := v[12*40+25]; math.Abs(float64(got)-0.5) > 0.05 {
		t.Errorf("half-covered pixel has coverage %v, want 0.5", got)
	}
	if v[12*40+15] != 1 || v[12*40+30] != 0 {
		t.Errorf("inside %v outside %v, want 1 and 0", v[12*40+15], v[12*40+30])
	}
}

// TestUpscaledEdge: at scale 4 the red layer ends in the middle of the half-covered
// column: 4*25 + 2 bitmap columns.
func TestUpscaledEdge(t *testing.T) {
	st := square()
	bm, _ := st.Bitmap(context.Background(), 1, 4)
	y := 4*12 + 1
	last := -1
	for x := range bm.Width {
		if bm.At(x, y) {
			last = x
		}
	}
	if last+1 != 4*25+2 {
		t.Errorf("row ends at column %d, want %d", last+1, 4*25+2)
	}
}

func TestSampleAt(t *testing.T) {
	tests := []struct{ i, scale, n, i0, i1 int }{
		{0, 2, 10, 0, 0}, {1, 2, 10, 0, 1}, {19, 2, 10, 9, 9}, {5, 1, 10, 5, 6},
	}
	for _, tc := range tests {
		if i0, i1, _ := sampleAt(tc.i, tc.scale, tc.n); i0 != tc.i0 || i1 != tc.i1 {
			t.Errorf("sampleAt(%d, %d, %d) = %d, %d, want %d, %d", tc.i, tc.scale, tc.n, i0, i1, tc.i0, tc.i1)
		}
	}
}
