package refine_test

import (
	"context"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/testimg"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/refine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
)

// edgeAt returns a 40 x 20 image: red left of x = e, blue right of it, the pixel column
// the boundary crosses anti-aliased (premultiplied blend of the two by coverage), and
// with alpha a in that column when a < 255 (a conflation seam).
func edgeAt(e float64, a uint8) *image.NRGBA {
	col := int(e)
	f := e - float64(col) // red coverage of that column
	mix := func(r, b uint8) uint8 { return uint8(math.Round(f*float64(r) + (1-f)*float64(b))) }
	return testimg.Paint(40, 20, func(x, y int) color.NRGBA {
		switch {
		case x < col:
			return testimg.Red
		case x > col:
			return testimg.Blue
		}
		r, b := testimg.Red, testimg.Blue
		return color.NRGBA{mix(r.R, b.R), mix(r.G, b.G), mix(r.B, b.B), a}
	})
}

// TestSubpixelEdge checks that the shared edge is placed where the anti-aliasing says,
// not on the pixel grid, with and without refinement passes, and through a seam of
// partial transparency in the input.
func TestSubpixelEdge(t *testing.T) {
	tests := []struct {
		name   string
		e      float64
		alpha  uint8
		passes int
	}{
		{"x = 20.3, fit only", 20.3, 255, 0},
		{"x = 20.3, refined", 20.3, 255, 2},
		{"x = 17.8, refined", 17.8, 255, 2},
		{"x = 20.25 through a seam", 20.25, 200, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := edgeAt(tt.e, tt.alpha)
			ctx := context.Background()
			seg, err := segment.Segment(ctx, img, segment.Options{MaxColors: 16})
			if err != nil {
				t.Fatal(err)
			}
			res, err := refine.Run(ctx, img, seg, refine.Options{Tolerance: 0.5, Passes: tt.passes})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for ei, e := range seg.Planar.Edges {
				if e.Left < 0 || e.Right < 0 {
					continue
				}
				found = true
				p := res.Edges[ei]
				pts := append([]float64{p.From.X}, p.End().X)
				for _, x := range pts {
					if math.Abs(x-tt.e) > 0.1 {
						t.Errorf("edge %d runs through x = %.3f, want %.2f: %+v", ei, x, tt.e, p)
					}
				}
			}
			if !found {
				t.Fatal("no shared edge")
			}
		})
	}
}

// TestCancel checks that a cancelled context stops the work with its error.
func TestCancel(t *testing.T) {
	img := edgeAt(20.5, 255)
	seg, err := segment.Segment(context.Background(), img, segment.Options{MaxColors: 16})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := refine.Run(ctx, img, seg, refine.Options{Tolerance: 0.5, Passes: 1}); err != context.Canceled {
		t.Errorf("Run on a cancelled context returned %v, want context.Canceled", err)
	}
}
