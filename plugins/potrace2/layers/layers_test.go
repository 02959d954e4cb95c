package layers

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/potrace/trace"
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
	bm, _ := st.Bitmap(context.Background(), 0, 1, nil)
	if bm.Count() != 40*40 {
		t.Errorf("white layer covers %d pixels, want all %d", bm.Count(), 40*40)
	}
	bm, _ = st.Bitmap(context.Background(), 1, 1, nil)
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
	bm, _ := st.Bitmap(context.Background(), 1, 4, nil)
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

// blobs returns a w x h image of n anti-aliased discs of random colours (some
// translucent, some on a transparent background) drawn over each other, and noise
// pixels that segment into small regions.
func blobs(w, h, n int, seed uint64) *image.NRGBA {
	rng := rand.New(rand.NewPCG(seed, 1))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	if rng.IntN(2) == 0 {
		draw.Draw(img, img.Rect, image.NewUniform(color.NRGBA{250, 250, 240, 255}), image.Point{}, draw.Src)
	}
	for range n {
		c := color.NRGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 255}
		if rng.IntN(4) == 0 {
			c.A = uint8(80 + rng.IntN(160))
		}
		cx, cy := rng.Float64()*float64(w), rng.Float64()*float64(h)
		r := 2 + rng.Float64()*float64(min(w, h))/3
		for y := range h {
			for x := range w {
				// Coverage of the pixel by the disc, from its distance to the rim.
				d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) - r
				a := min(max(0.5-d, 0), 1)
				if a == 0 {
					continue
				}
				src := c
				src.A = uint8(float64(c.A) * a)
				draw.Draw(img, image.Rect(x, y, x+1, y+1), image.NewUniform(src), image.Point{}, draw.Over)
			}
		}
	}
	return img
}

// referenceBitmap samples layer k's coverage field pixel by pixel, as Bitmap's
// documentation says.
func referenceBitmap(st *Stack, k, scale int) *trace.Bitmap {
	v := st.Coverage(k)
	w, h := st.Width, st.Height
	bm := trace.NewBitmap(w*scale, h*scale)
	for Y := range h * scale {
		y0, y1, fy := sampleAt(Y, scale, h)
		for X := range w * scale {
			x0, x1, fx := sampleAt(X, scale, w)
			a, b, c, d := v[y0*w+x0], v[y0*w+x1], v[y1*w+x0], v[y1*w+x1]
			var black bool
			if a == b && b == c && c == d {
				black = a > 0.5
			} else {
				top, bot := a+(b-a)*fx, c+(d-c)*fx
				black = top+(bot-top)*fy > 0.5
			}
			bm.Set(X, Y, black)
		}
	}
	return bm
}

// TestBitmapSamplesTheCoverageField: the bitmaps made a run at a time are the ones the
// coverage field gives pixel by pixel, for every layer of generated images at every
// scale.
func TestBitmapSamplesTheCoverageField(t *testing.T) {
	ctx := context.Background()
	var sc Scratch // shared across images and sizes, as the engine's workers do
	for seed := range uint64(12) {
		w, h := 30+int(seed*37%90), 20+int(seed*53%80)
		img := blobs(w, h, 3+int(seed%6), seed)
		seg, err := segment.Segment(ctx, img, segment.Options{MaxColors: 8, MinRegion: int(seed % 3 * 4)})
		if err != nil {
			t.Fatal(err)
		}
		st, err := Build(ctx, img, seg.Regions)
		if err != nil {
			t.Fatal(err)
		}
		for k := range st.Layers {
			for scale := 1; scale <= 4; scale++ {
				got, err := st.Bitmap(ctx, k, scale, &sc)
				if err != nil {
					t.Fatal(err)
				}
				want := referenceBitmap(st, k, scale)
				for Y := range want.Height {
					for X := range want.Width {
						if got.At(X, Y) != want.At(X, Y) {
							t.Fatalf("seed %d (%dx%d) layer %d scale %d: pixel (%d, %d) is %v, want %v",
								seed, w, h, k, scale, X, Y, got.At(X, Y), want.At(X, Y))
						}
					}
				}
			}
		}
	}
}
