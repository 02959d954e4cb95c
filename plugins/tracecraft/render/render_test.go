package render_test

import (
	"image"
	"math"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/render"
)

func rect(x0, y0, x1, y1 float64) fit.Path {
	return fit.Path{From: fit.Point{X: x0, Y: y0}, Segs: []fit.Segment{
		{To: fit.Point{X: x1, Y: y0}}, {To: fit.Point{X: x1, Y: y1}}, {To: fit.Point{X: x0, Y: y1}}}}
}

// TestAddSharedEdge draws two rectangles that share a vertical edge at x = 4.3: adding
// their coverage gives full alpha everywhere, and the pixel the edge crosses holds 30 %
// of the left colour and 70 % of the right one. Painting one over the other (as SVG
// renderers do) leaves the background showing there.
func TestAddSharedEdge(t *testing.T) {
	full := image.Rect(0, 0, 10, 4)
	red := [4]float32{255, 0, 0, 255}
	blue := [4]float32{0, 0, 255, 255}
	tests := []struct {
		name      string
		draw      func(c *render.Canvas, p []fit.Path, pm [4]float32)
		wantAlpha float32
	}{
		{"add", func(c *render.Canvas, p []fit.Path, pm [4]float32) { c.Add(p, full, pm) }, 255},
		{"over", func(c *render.Canvas, p []fit.Path, pm [4]float32) { c.Over(p, full, pm) }, 255 * (1 - 0.7*0.3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := render.NewCanvas(10, 4)
			tt.draw(c, []fit.Path{rect(0, 0, 4.3, 4)}, red)
			tt.draw(c, []fit.Path{rect(4.3, 0, 10, 4)}, blue)
			for x := 0; x < 10; x++ {
				p := c.Pix[4*(10+x) : 4*(10+x)+4]
				want := float32(255)
				if x == 4 {
					want = tt.wantAlpha
				}
				if math.Abs(float64(p[3]-want)) > 2 {
					t.Errorf("pixel %d: alpha %v, want %v", x, p[3], want)
				}
			}
			if tt.name == "add" {
				p := c.Pix[4*14 : 4*14+4]
				if math.Abs(float64(p[0]-0.3*255)) > 2 || math.Abs(float64(p[2]-0.7*255)) > 2 {
					t.Errorf("edge pixel %v, want 30 %% red and 70 %% blue", p)
				}
			}
		})
	}
}
