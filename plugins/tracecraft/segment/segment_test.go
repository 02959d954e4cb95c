package segment_test

import (
	"context"
	"image/color"
	"reflect"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/testimg"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// TestNeighboursOfOnePaletteColourAreOneRegion checks the palette is applied before the
// regions are found: no two neighbouring regions have the same colour, and every region
// has a palette colour.
func TestNeighboursOfOnePaletteColourAreOneRegion(t *testing.T) {
	red, darkRed, blue := color.NRGBA{230, 20, 20, 255}, color.NRGBA{150, 10, 10, 255}, color.NRGBA{20, 20, 200, 255}
	// Three stripes: two reds side by side, then blue.
	stripes := testimg.Paint(60, 20, func(x, y int) color.NRGBA {
		switch {
		case x < 20:
			return red
		case x < 40:
			return darkRed
		}
		return blue
	})
	tests := []struct {
		name        string
		palette     []string
		wantRegions int
	}{
		{"no palette keeps the two reds apart", nil, 3},
		{"red and navy join the reds", []string{"red", "navy"}, 2},
		{"one colour is one region", []string{"#333"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seg, err := segment.Segment(context.Background(), stripes, segment.Options{MaxColors: 16, MinRegion: 4, Palette: tt.palette})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(seg.Regions.Regions); got != tt.wantRegions {
				t.Errorf("%d regions, want %d: %+v", got, tt.wantRegions, seg.Regions.Regions)
			}
		})
	}
	palette := []string{"black", "white", "#e63946", "#1d3557", "#a8dadc"}
	for _, path := range enginetest.CorpusImages(t, "logo") {
		img := enginetest.LoadPNG(t, path)
		seg, err := segment.Segment(context.Background(), img, segment.Options{MaxColors: 16, MinRegion: 25, Palette: palette})
		if err != nil {
			t.Fatal(err)
		}
		rm := seg.Regions
		for y := range rm.Height {
			for x := range rm.Width {
				a := rm.At(x, y)
				for _, b := range []int32{rm.At(x+1, y), rm.At(x, y+1)} {
					if b >= 0 && b != a && rm.Regions[a].Palette == rm.Regions[b].Palette {
						t.Fatalf("%s: neighbouring regions %d and %d at (%d, %d) both have palette entry %d (%v)",
							enginetest.Name(path), a, b, x, y, rm.Regions[a].Palette, rm.Regions[a].Color)
					}
				}
			}
		}
	}
}

// TestRegionsIsSegmentWithoutThePlanarMap: Regions gives Segment's palette and regions,
// and no planar map.
func TestRegionsIsSegmentWithoutThePlanarMap(t *testing.T) {
	tests := []struct {
		name string
		opt  segment.Options
	}{
		{"defaults", segment.Options{MaxColors: 16, MinRegion: 25}},
		{"every region kept", segment.Options{MaxColors: 4, MinRegion: 0}},
		{"palette", segment.Options{MaxColors: 8, MinRegion: 4, Palette: []string{"navy", "#ffcc00"}}},
	}
	img := enginetest.Noise(50, 40, 3)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full, err := segment.Segment(context.Background(), img, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := segment.Regions(context.Background(), img, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got.Planar != nil || !reflect.DeepEqual(got.Quant, full.Quant) || !reflect.DeepEqual(got.Regions, full.Regions) {
				t.Errorf("Regions differs from Segment without its planar map (planar %v)", got.Planar != nil)
			}
		})
	}
}
