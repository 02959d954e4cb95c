package regions_test

import (
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/testimg"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/quantize"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/regions"
)

// specks returns a 30 x 30 white image with a 2 x 2 red speck, a 5 x 5 red square, a
// pinkish 2 x 3 speck touching the square and two blue pixels touching only diagonally.
func specks() *image.NRGBA {
	return testimg.Paint(30, 30, func(x, y int) color.NRGBA {
		in := func(x0, y0, x1, y1 int) bool { return x >= x0 && x < x1 && y >= y0 && y < y1 }
		switch {
		case in(3, 3, 5, 5), in(10, 10, 15, 15):
			return testimg.Red
		case in(15, 11, 19, 15):
			return color.NRGBA{230, 120, 130, 255}
		case x == 24 && y == 24, x == 25 && y == 25:
			return testimg.Blue
		}
		return testimg.White
	})
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name      string
		minRegion int
		// want lists the regions' colours and sizes in raster order.
		want []struct {
			c color.NRGBA
			n int
		}
	}{
		{"no merging: 4-connected components", 0, []struct {
			c color.NRGBA
			n int
		}{{testimg.White, 900 - 4 - 25 - 16 - 2}, {testimg.Red, 4}, {testimg.Red, 25}, {color.NRGBA{230, 120, 130, 255}, 16}, {testimg.Blue, 1}, {testimg.Blue, 1}}},
		{"specks below 5 pixels merge into their most similar neighbour", 5, []struct {
			c color.NRGBA
			n int
		}{{testimg.White, 900 - 25 - 16}, {testimg.Red, 25}, {color.NRGBA{230, 120, 130, 255}, 16}}},
		// The merged region keeps the red square's palette colour.
		{"the pink square joins the red one, not the white", 17, []struct {
			c color.NRGBA
			n int
		}{{testimg.White, 900 - 41}, {testimg.Red, 41}}},
	}
	img := specks()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			q, err := quantize.Quantize(ctx, img, quantize.Options{MaxColors: 16})
			if err != nil {
				t.Fatal(err)
			}
			m, err := regions.Build(ctx, img, q, regions.Options{MinRegion: tt.minRegion})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Regions) != len(tt.want) {
				t.Fatalf("%d regions %+v, want %d", len(m.Regions), m.Regions, len(tt.want))
			}
			for i, r := range m.Regions {
				if r.Pixels != tt.want[i].n || r.Color != tt.want[i].c {
					t.Errorf("region %d: %d pixels of %v, want %d of %v", i, r.Pixels, r.Color, tt.want[i].n, tt.want[i].c)
				}
			}
			// Labels agree with the sizes.
			count := make([]int, len(m.Regions))
			for _, l := range m.Labels {
				count[l]++
			}
			for i, r := range m.Regions {
				if count[i] != r.Pixels {
					t.Errorf("region %d: %d labels, %d pixels", i, count[i], r.Pixels)
				}
			}
		})
	}
}
