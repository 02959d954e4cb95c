package quantize_test

import (
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/testimg"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/quantize"
)

// antialiased returns a 40 x 40 image: red left of x = 20.5, blue right of it, the
// column x = 20 half and half, and the top rows transparent (with a half-transparent
// row between).
func antialiased() *image.NRGBA {
	return testimg.Paint(40, 40, func(x, y int) color.NRGBA {
		switch {
		case y < 4:
			return color.NRGBA{0, 0, 0, 0}
		case y == 4:
			return color.NRGBA{200, 30, 40, 100}
		case x < 20:
			return testimg.Red
		case x == 20:
			return color.NRGBA{115, 45, 120, 255}
		}
		return testimg.Blue
	})
}

func TestQuantize(t *testing.T) {
	eight := testimg.Paint(64, 8, func(x, y int) color.NRGBA {
		k := uint8(x / 8)
		return color.NRGBA{k * 32, 255 - k*32, k * 16, 255}
	})
	tests := []struct {
		name      string
		img       *image.NRGBA
		maxColors int
		// want is the palette (any order) when not nil; wantLen its size.
		want    []color.NRGBA
		wantLen int
	}{
		{"two flat colours, blended edge and transparency", antialiased(), 16, []color.NRGBA{testimg.Red, testimg.Blue}, 2},
		{"eight colours into four", eight, 4, nil, 4},
		{"eight colours, room for all", eight, 16, nil, 8},
		{"one colour", testimg.Paint(8, 8, func(int, int) color.NRGBA { return testimg.Green }), 2, []color.NRGBA{testimg.Green}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := quantize.Quantize(context.Background(), tt.img, quantize.Options{MaxColors: tt.maxColors})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Palette) != tt.wantLen {
				t.Fatalf("palette %v, want %d colours", res.Palette, tt.wantLen)
			}
			for _, c := range tt.want {
				found := false
				for _, p := range res.Palette {
					found = found || p == c
				}
				if !found {
					t.Errorf("palette %v lacks %v", res.Palette, c)
				}
			}
		})
	}
}

// TestQuantizeAssignsBlendsAndAlpha checks pixel assignments on the anti-aliased image:
// transparent pixels (alpha below one half) get no colour, and the blended column joins
// one of the two colours it blends rather than a colour of its own.
func TestQuantizeAssignsBlendsAndAlpha(t *testing.T) {
	img := antialiased()
	res, err := quantize.Quantize(context.Background(), img, quantize.Options{MaxColors: 16})
	if err != nil {
		t.Fatal(err)
	}
	at := func(x, y int) int16 { return res.Index[y*40+x] }
	for _, p := range []image.Point{{0, 0}, {30, 3}, {10, 4}} {
		if k := at(p.X, p.Y); k != quantize.Transparent {
			t.Errorf("pixel %v has index %d, want Transparent", p, k)
		}
	}
	red, blue := at(5, 20), at(35, 20)
	if red == blue {
		t.Fatal("red and blue share a palette entry")
	}
	for y := 5; y < 40; y++ {
		if k := at(20, y); k != red && k != blue {
			t.Errorf("blended pixel (20, %d) has its own entry %d", y, k)
		}
	}
}

func TestOklab(t *testing.T) {
	tests := []struct {
		name string
		c    color.NRGBA
		want quantize.Lab
	}{
		{"white", color.NRGBA{255, 255, 255, 255}, quantize.Lab{L: 1, Alpha: 1}},
		{"black", color.NRGBA{0, 0, 0, 255}, quantize.Lab{Alpha: 1}},
		{"red", color.NRGBA{255, 0, 0, 255}, quantize.Lab{L: 0.628, A: 0.2249, B: 0.1258, Alpha: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := quantize.ToLab(tt.c.R, tt.c.G, tt.c.B, tt.c.A)
			if d := quantize.Dist2(got, tt.want); d > 1e-5 {
				t.Errorf("ToLab(%v) = %+v, want %+v", tt.c, got, tt.want)
			}
		})
	}
}

// TestPaletteGrowsWithMaxColors quantises a smooth two-axis gradient, which has colours
// to spare: the palette must use what is asked for, not stop at a fixed count.
func TestPaletteGrowsWithMaxColors(t *testing.T) {
	img := testimg.Paint(256, 256, func(x, y int) color.NRGBA {
		return color.NRGBA{uint8(x), uint8(y), uint8(255 - (x+y)/2), 255}
	})
	for _, n := range []int{8, 16, 64, 200} {
		res, err := quantize.Quantize(context.Background(), img, quantize.Options{MaxColors: n})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Palette); got > n || got < n*3/4 {
			t.Errorf("maxColors %d: %d colours, want between %d and %d", n, got, n*3/4, n)
		}
	}
}
