package cluster

import (
	"image/color"
	"testing"
)

// TestRepaintFoldsAShapeIntoItsParentOfTheSameColour: a dark red square inside a red
// field (a shape of its own, far above the layer difference) and a blue square beside
// it. With a palette of red and blue, the dark red takes red, folds into the field, and
// the field covers the square's pixels, stacked and cut out; blue stays a shape.
func TestRepaintFoldsAShapeIntoItsParentOfTheSameColour(t *testing.T) {
	darkRed := color.NRGBA{R: 160, A: 255}
	img := paint(12, 6, func(x, y int) color.NRGBA {
		switch {
		case x >= 1 && x < 4 && y >= 1 && y < 4:
			return darkRed
		case x >= 7 && x < 10 && y >= 1 && y < 4:
			return blue
		}
		return red
	})
	h := build(t, img, Config{SpeckleArea: 4, LayerDifference: 16})
	if len(h.Shapes) != 3 {
		t.Fatalf("%d shapes, want 3 (field, dark red, blue): %+v", len(h.Shapes), h.Shapes)
	}
	h.Repaint([]color.NRGBA{{R: 250, G: 10, B: 10, A: 255}, {B: 200, A: 255}})
	var drawn []color.NRGBA
	for i, s := range h.Shapes {
		if !s.Folded {
			drawn = append(drawn, s.Color)
			continue
		}
		if s.Color != h.Shapes[s.Parent].Color {
			t.Errorf("shape %d (%v) folded into a parent of colour %v", i, s.Color, h.Shapes[s.Parent].Color)
		}
	}
	want := []color.NRGBA{{R: 250, G: 10, B: 10, A: 255}, {B: 200, A: 255}}
	if len(drawn) != 2 || drawn[0] != want[0] || drawn[1] != want[1] {
		t.Errorf("drawn shapes have colours %v, want %v", drawn, want)
	}
	inside := 2*12 + 2 // a pixel of the dark red square
	for _, m := range []Mode{Stacked, Cutout} {
		if !h.Covers(0, m, inside) {
			t.Errorf("mode %d: the field does not cover the folded square's pixel", m)
		}
	}
	if h.Covers(0, Cutout, 2*12+8) {
		t.Error("cut out, the field covers the blue square")
	}
}
