package engine_test

import (
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft2/engine"
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
	images := append(enginetest.CorpusImages(t, "logo"), enginetest.CorpusImages(t, "poster")...)
	enginetest.CheckPalette(t, engine.New(), images, palettes, nil)
}
