package vector_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"regexp"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/vector"
	tracecraft "github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	tracecraft2 "github.com/tracecraft/tracecraft/plugins/tracecraft2/engine"
)

// seamSVG draws flat abutting shapes in dark colours, so that any seam or leftover
// outline stands out: a background, a slanted band across it and a disc overlapping the
// band.
const seamSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 90">` +
	`<path fill="#141e50" d="M0 0H120V90H0Z"/>` +
	`<path fill="#146e28" d="M-5 27L125 49.5V67.5L-5 45Z"/>` +
	`<circle fill="#96141e" cx="44.4" cy="40.5" r="19.8"/></svg>`

// TestRecolouringAFillLeavesNoOldColour edits each engine's SVG the way Inkscape or
// Illustrator recolour a shape, by changing only the fill of the element (or colour
// group) that carries a colour, renders it with the resvg-like rasteriser and finds no
// pixel of the old colour: the engines with a gap filler draw it as the shape's own
// fill, not as a stroke that keeps the old colour. tracecraft2 writes <circle>, <rect>
// and <ellipse> elements, which only this package's renderer draws, so the test of
// both engines lives here.
func TestRecolouringAFillLeavesNoOldColour(t *testing.T) {
	const w, h = 120, 90
	doc, err := vector.Parse([]byte(seamSVG))
	if err != nil {
		t.Fatal(err)
	}
	drawn, err := vector.Rasterize(context.Background(), doc, w, h)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(drawn.Rect)
	draw.Draw(img, img.Rect, drawn, image.Point{}, draw.Src)
	colours := []color.NRGBA{{20, 30, 80, 255}, {20, 110, 40, 255}, {150, 20, 30, 255}}
	repl := color.NRGBA{250, 220, 0, 255}
	for _, e := range []struct {
		name  string
		trace func(*image.NRGBA) ([]byte, error)
	}{
		{"tracecraft", tracer(tracecraft.New())},
		{"tracecraft groupBy color", tracerWith(tracecraft.New(), map[string]any{"groupBy": "color"})},
		{"tracecraft stacked", tracerWith(tracecraft.New(), map[string]any{"shapeStacking": "stacked"})},
		{"tracecraft with a 2 px gap filler", tracerWith(tracecraft.New(), map[string]any{"gapFiller": "on", "gapFillerWidth": 2.0})},
		{"tracecraft2", tracer(tracecraft2.New())},
		{"tracecraft2 without primitives", tracerWith(tracecraft2.New(), map[string]any{"primitives": false})},
	} {
		svg, err := e.trace(img)
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		for _, old := range colours {
			t.Run(fmt.Sprintf("%s recoloured from %s", e.name, hex(old)), func(t *testing.T) {
				// The element an editor changes: the one that carries the colour's id
				// and fill (a path, a basic shape or a colour group).
				re := regexp.MustCompile(`<[a-z]+ id="c-[0-9a-f]{6}"[^>]*? fill="` + hex(old) + `"`)
				at := re.FindIndex(svg)
				if at == nil {
					t.Fatalf("no element filled %s in %s", hex(old), svg)
				}
				edited := slices.Concat(svg[:at[0]], bytes.Replace(svg[at[0]:at[1]], []byte(hex(old)), []byte(hex(repl)), 1), svg[at[1]:])
				d, err := vector.Parse(edited)
				if err != nil {
					t.Fatal(err)
				}
				out, err := vector.Paint(context.Background(), d, w, h, 0, h, color.RGBA{255, 255, 255, 255})
				if err != nil {
					t.Fatal(err)
				}
				oldLeft, replaced := 0, 0
				for y := 0; y < h; y++ {
					for x := 0; x < w; x++ {
						px := out.RGBAAt(x, y)
						if dist(px, old) < 40 {
							oldLeft++
						}
						if dist(px, repl) < 10 {
							replaced++
						}
					}
				}
				if oldLeft > 0 || replaced < 500 {
					t.Errorf("after the edit %d pixels keep the old colour %s (want 0) and %d have the new one (want the shape)\n%s", oldLeft, hex(old), replaced, edited)
				}
			})
		}
	}
}

func hex(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// dist is the Euclidean distance of an opaque pixel from a colour, in 8-bit RGB.
func dist(a color.RGBA, b color.NRGBA) float64 {
	dr, dg, db := float64(a.R)-float64(b.R), float64(a.G)-float64(b.G), float64(a.B)-float64(b.B)
	return math.Sqrt(dr*dr + dg*dg + db*db)
}
