package cluster

import (
	"context"
	"errors"
	"image"
	"image/color"
	"slices"
	"testing"
)

var (
	red   = color.NRGBA{R: 255, A: 255}
	blue  = color.NRGBA{B: 255, A: 255}
	white = color.NRGBA{R: 255, G: 255, B: 255, A: 255}
	black = color.NRGBA{A: 255}
	clear = color.NRGBA{}
)

// paint returns a w x h image coloured by f.
func paint(w, h int, f func(x, y int) color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, f(x, y))
		}
	}
	return img
}

func build(t *testing.T, img *image.NRGBA, cfg Config) *Hierarchy {
	t.Helper()
	h, err := Build(context.Background(), img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// covered returns the pixels shape i paints in mode m, in index order.
func covered(h *Hierarchy, i int, m Mode) []int {
	var ps []int
	for p := 0; p < h.Width*h.Height; p++ {
		if h.Covers(i, m, p) {
			ps = append(ps, p)
		}
	}
	return ps
}

func TestTwoColours(t *testing.T) {
	// Left 3 columns red, right 5 blue (8x4): red merges into blue, a step far above
	// the layer difference, so it stays a shape of its own drawn over blue.
	img := paint(8, 4, func(x, _ int) color.NRGBA {
		if x < 3 {
			return red
		}
		return blue
	})
	h := build(t, img, Config{SpeckleArea: 4, LayerDifference: 16})
	if len(h.Shapes) != 2 {
		t.Fatalf("%d shapes, want 2", len(h.Shapes))
	}
	bottom, top := h.Shapes[0], h.Shapes[1]
	if bottom.Color != blue || bottom.Parent != -1 || bottom.Area != 32 {
		t.Errorf("bottom shape = %+v, want blue, root, area 32 (stacked: the whole image)", bottom)
	}
	if top.Color != red || top.Parent != 0 || top.Area != 12 {
		t.Errorf("top shape = %+v, want red, child of 0, area 12", top)
	}
	if got := len(covered(h, 0, Stacked)); got != 32 {
		t.Errorf("stacked bottom covers %d pixels, want 32", got)
	}
	if got := len(covered(h, 0, Cutout)); got != 20 {
		t.Errorf("cut-out bottom covers %d pixels, want 20", got)
	}
	for _, p := range covered(h, 1, Cutout) {
		if p%8 >= 3 {
			t.Errorf("red covers pixel %d outside its columns", p)
		}
	}
	if h.Owner(0) != 1 || h.Owner(7) != 0 {
		t.Errorf("owners %d, %d; want 1 (red), 0 (blue)", h.Owner(0), h.Owner(7))
	}
}

func TestShapeColourIsTheMeanRoundedDown(t *testing.T) {
	// One area (the channels differ by one step at most) of 10 pixels at 1 and 6 at 0:
	// the mean 0.625 is written as 0, as VTracer writes it, not rounded up to 1.
	img := paint(4, 4, func(x, y int) color.NRGBA {
		if y*4+x < 10 {
			return color.NRGBA{1, 1, 201, 255}
		}
		return color.NRGBA{0, 0, 200, 255}
	})
	h := build(t, img, Config{Tolerance: 1, LayerDifference: 16})
	if len(h.Shapes) != 1 {
		t.Fatalf("%d shapes, want 1", len(h.Shapes))
	}
	if want := (color.NRGBA{0, 0, 200, 255}); h.Shapes[0].Color != want {
		t.Errorf("colour %v, want %v", h.Shapes[0].Color, want)
	}
}

func TestLayerDifference(t *testing.T) {
	// Two greys 10 apart per channel (30 in all): one shape when the layer difference
	// is 30 or more, two below.
	img := paint(8, 4, func(x, _ int) color.NRGBA {
		if x < 4 {
			return color.NRGBA{100, 100, 100, 255}
		}
		return color.NRGBA{110, 110, 110, 255}
	})
	tests := []struct {
		layer, want int
	}{{0, 2}, {29, 2}, {30, 1}, {200, 1}}
	for _, tt := range tests {
		h := build(t, img, Config{LayerDifference: tt.layer})
		if len(h.Shapes) != tt.want {
			t.Errorf("layer difference %d: %d shapes, want %d", tt.layer, len(h.Shapes), tt.want)
		}
	}
}

func TestSpeckle(t *testing.T) {
	// A 2x2 black dot in white: a shape when speckles are smaller than 4 pixels, merged
	// into the white otherwise (the white's colour then includes it).
	img := paint(8, 8, func(x, y int) color.NRGBA {
		if x >= 3 && x < 5 && y >= 3 && y < 5 {
			return black
		}
		return white
	})
	tests := []struct {
		speckle   int
		want      int
		wantColor color.NRGBA
	}{
		{4, 2, white},
		{5, 1, color.NRGBA{239, 239, 239, 255}}, // 60*255/64
	}
	for _, tt := range tests {
		h := build(t, img, Config{SpeckleArea: tt.speckle, LayerDifference: 16})
		if len(h.Shapes) != tt.want || h.Shapes[0].Color != tt.wantColor {
			t.Errorf("speckle %d: %d shapes, bottom %v; want %d, %v", tt.speckle, len(h.Shapes), h.Shapes[0].Color, tt.want, tt.wantColor)
		}
	}
}

func TestSameColour(t *testing.T) {
	// A horizontal ramp, one red level per column: at full precision every column is
	// an area of its own without tolerance and one area with it; dropping 3 bits joins
	// columns 8 at a time.
	img := paint(32, 2, func(x, _ int) color.NRGBA {
		return color.NRGBA{uint8(64 + x), 40, 40, 255}
	})
	tests := []struct {
		name string
		cfg  Config
		want int // areas
	}{
		{"exact", Config{}, 32},
		{"tolerance 1", Config{Tolerance: 1}, 1},
		{"3 bits dropped", Config{Shift: 3}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBuilder(img, tt.cfg)
			if err := b.label(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(b.area) != tt.want {
				t.Errorf("%d areas, want %d", len(b.area), tt.want)
			}
		})
	}
	t.Run("tolerance bounds the sum of the channels too", func(t *testing.T) {
		// One step in each of R, G and B is three in all: more than twice 1.
		img := paint(2, 1, func(x, _ int) color.NRGBA {
			v := uint8(100 + x)
			return color.NRGBA{v, v, v, 255}
		})
		b := newBuilder(img, Config{Tolerance: 1})
		if err := b.label(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(b.area) != 2 {
			t.Errorf("%d areas, want 2", len(b.area))
		}
	})
}

func TestDiagonal(t *testing.T) {
	// A checkerboard of black and white: 4-connected every pixel is its own area;
	// 8-connected there are two.
	img := paint(4, 4, func(x, y int) color.NRGBA {
		if (x+y)%2 == 0 {
			return black
		}
		return white
	})
	for _, tt := range []struct {
		diagonal bool
		want     int
	}{{false, 16}, {true, 2}} {
		b := newBuilder(img, Config{Diagonal: tt.diagonal})
		if err := b.label(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(b.area) != tt.want {
			t.Errorf("diagonal %v: %d areas, want %d", tt.diagonal, len(b.area), tt.want)
		}
	}
}

func TestTransparentPixelsBelongToNoShape(t *testing.T) {
	// Left half transparent, right half red with a blue dot: no shape holds or covers a
	// transparent pixel, in either mode.
	img := paint(8, 8, func(x, y int) color.NRGBA {
		switch {
		case x < 4:
			return clear
		case x == 5 && y >= 2 && y < 6 || x == 6 && y >= 2 && y < 6:
			return blue
		}
		return red
	})
	h := build(t, img, Config{SpeckleArea: 4, LayerDifference: 16})
	if len(h.Shapes) != 2 {
		t.Fatalf("%d shapes, want 2", len(h.Shapes))
	}
	for p := 0; p < 64; p++ {
		if p%8 >= 4 {
			continue
		}
		if h.Owner(p) != -1 {
			t.Errorf("transparent pixel %d owned by %d", p, h.Owner(p))
		}
		for i := range h.Shapes {
			for _, m := range []Mode{Stacked, Cutout} {
				if h.Covers(i, m, p) {
					t.Errorf("shape %d covers transparent pixel %d in mode %d", i, p, m)
				}
			}
		}
	}
	if h.Shapes[0].Area != 32 || h.Shapes[0].Color != red {
		t.Errorf("bottom shape %+v, want red over the 32 opaque pixels", h.Shapes[0])
	}
}

func TestTranslucentShapeIsCutOutOfItsParent(t *testing.T) {
	// A half-transparent blue square on opaque red: stacked, red must not paint under
	// the blue (what shows through is the background, as in the image).
	img := paint(8, 8, func(x, y int) color.NRGBA {
		if x >= 2 && x < 6 && y >= 2 && y < 6 {
			return color.NRGBA{B: 255, A: 128}
		}
		return red
	})
	h := build(t, img, Config{SpeckleArea: 4, LayerDifference: 16})
	if len(h.Shapes) != 2 {
		t.Fatalf("%d shapes, want 2", len(h.Shapes))
	}
	if c := h.Shapes[1].Color; c != (color.NRGBA{B: 255, A: 128}) {
		t.Errorf("top colour %v", c)
	}
	if got := len(covered(h, 0, Stacked)); got != 48 {
		t.Errorf("red covers %d pixels stacked, want 48", got)
	}
}

func TestPixelsListsTheStackedArea(t *testing.T) {
	img := paint(8, 4, func(x, _ int) color.NRGBA {
		if x < 3 {
			return red
		}
		return blue
	})
	h := build(t, img, Config{SpeckleArea: 4, LayerDifference: 16})
	for i := range h.Shapes {
		got := h.Pixels(nil, i)
		slices.Sort(got)
		want := covered(h, i, Stacked)
		if len(got) != len(want) {
			t.Errorf("shape %d: Pixels has %d, Covers %d", i, len(got), len(want))
			continue
		}
		for k := range got {
			if int(got[k]) != want[k] {
				t.Errorf("shape %d: pixel %d is %d, want %d", i, k, got[k], want[k])
				break
			}
		}
	}
}

func TestBuildStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	img := paint(64, 64, func(x, y int) color.NRGBA { return color.NRGBA{uint8(x * 4), uint8(y * 4), 0, 255} })
	if _, err := Build(ctx, img, Config{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestEmptyAndTransparentImages(t *testing.T) {
	for _, img := range []*image.NRGBA{
		image.NewNRGBA(image.Rect(0, 0, 0, 0)),
		paint(5, 3, func(int, int) color.NRGBA { return clear }),
	} {
		h := build(t, img, Config{SpeckleArea: 16})
		if len(h.Shapes) != 0 {
			t.Errorf("%v: %d shapes, want none", img.Rect, len(h.Shapes))
		}
	}
}
