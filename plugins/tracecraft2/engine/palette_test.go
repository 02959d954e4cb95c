package engine_test

import (
	"bytes"
	"context"
	"image/color"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft2/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// TestAPalettedTraceHoldsOnlyThePalettesColours traces every logo and poster of the
// corpus with palettes that fit none of them well and checks each fill and stroke of
// the SVG is one of the palette's colours.
func TestAPalettedTraceHoldsOnlyThePalettesColours(t *testing.T) {
	palettes := [][]string{
		{"black", "white", "#e63946", "rgb(29 53 87)"},
		{"hsl(200 80% 40%)"},
	}
	styles := []map[string]any{{}}
	paths := append(enginetest.CorpusImages(t, "logo"), enginetest.CorpusImages(t, "poster")...)
	e := engine.New()
	for n, path := range paths {
		img := enginetest.LoadPNG(t, path)
		for i, pal := range palettes {
			allowed := parsePalette(t, pal)
			given := map[string]any{"palette": pal}
			for k, v := range styles[(n+i)%len(styles)] {
				given[k] = v
			}
			p, err := sdk.Decode[engine.Params](given)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := e.Trace(context.Background(), img, p)
			if err != nil {
				t.Fatalf("%s: %v", enginetest.Name(path), err)
			}
			paints, err := enginetest.Paints(doc)
			if err != nil {
				t.Fatalf("%s: %v", enginetest.Name(path), err)
			}
			for _, c := range paints {
				if !slices.Contains(allowed, c) {
					t.Errorf("%s with palette %v paints with %v, not in the palette", enginetest.Name(path), pal, c)
				}
			}
			if again, _ := e.Trace(context.Background(), img, p); !bytes.Equal(doc, again) {
				t.Errorf("%s with palette %v: two traces differ", enginetest.Name(path), pal)
			}
		}
	}
}

func parsePalette(t *testing.T, pal []string) []color.NRGBA {
	t.Helper()
	out := make([]color.NRGBA, len(pal))
	for i, s := range pal {
		c, err := sdk.ParseColor(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c
	}
	return out
}
