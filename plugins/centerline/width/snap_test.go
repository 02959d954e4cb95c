package width

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/graph"
)

// snapByDefinition is Snap by its definition: every junction end of an open stroke
// moves onto the nearest inner point of any other stroke closer than its radius plus a
// pixel, the first of equally near ones by stroke and point.
func snapByDefinition(ms []Measured) {
	for i := range ms {
		m := &ms[i]
		n := len(m.Points)
		if n < 2 || m.Closed {
			continue
		}
		for _, end := range [2]int{0, n - 1} {
			p := m.Points[end]
			if !p.Junction {
				continue
			}
			best := p.R + 1
			found := false
			var bx, by float64
			for j := range ms {
				if j == i {
					continue
				}
				o := ms[j].Points
				for k := 1; k+1 < len(o); k++ {
					if d := math.Hypot(o[k].X-p.X, o[k].Y-p.Y); d < best {
						best, bx, by, found = d, o[k].X, o[k].Y, true
					}
				}
			}
			if found {
				m.Points[end].X, m.Points[end].Y = bx, by
			}
		}
	}
}

func TestSnapEqualsItsDefinition(t *testing.T) {
	tests := []struct {
		name    string
		strokes int
		span    float64 // points lie in [0, span)²
		grid    bool    // on whole and half pixels, so that distances tie
		r       float64
		far     float64 // every other stroke lies this far away, diagonally
	}{
		{"a few strokes close together", 6, 20, false, 2, 0},
		{"many strokes, tied distances", 40, 30, true, 1.5, 0},
		{"two groups far apart", 16, 15, false, 3, 1e5},
		{"wide junctions", 12, 40, true, 9, 0},
		{"no inner points", 5, 10, false, 2, 0},
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, tt := range tests {
		ms := make([]Measured, tt.strokes)
		for j := range ms {
			n := 2 + r.IntN(12)
			if tt.name == "no inner points" {
				n = 2
			}
			for range n {
				x, y := r.Float64()*tt.span+float64(j%2)*tt.far, r.Float64()*tt.span+float64(j%2)*tt.far
				if tt.grid {
					x, y = math.Round(2*x)/2, math.Round(2*y)/2
				}
				ms[j].Points = append(ms[j].Points, graph.Point{X: x, Y: y, R: tt.r * r.Float64(), Junction: r.IntN(3) > 0})
			}
			ms[j].Closed = r.IntN(6) == 0
		}
		want := make([]Measured, len(ms))
		before := make([][]graph.Point, len(ms))
		for j := range ms {
			want[j] = Measured{Points: slices.Clone(ms[j].Points), Closed: ms[j].Closed}
			before[j] = slices.Clone(ms[j].Points)
		}
		snapByDefinition(want)
		Snap(ms)
		moved := 0
		for j := range ms {
			if !slices.Equal(ms[j].Points, want[j].Points) {
				t.Fatalf("%s: stroke %d snapped to %v, want %v", tt.name, j, ms[j].Points, want[j].Points)
			}
			for k := range ms[j].Points {
				if ms[j].Points[k] != before[j][k] {
					moved++
				}
			}
		}
		if wantMoves := tt.name != "no inner points"; (moved > 0) != wantMoves {
			t.Errorf("%s: %d ends moved; want some: %v", tt.name, moved, wantMoves)
		}
	}
}
