// Package order sorts strokes to shorten the pen's travel between them: greedily the
// stroke with an end nearest to where the pen is, drawn from that end.
package order

import "math"

// Ends are a stroke's first and last points; a closed stroke has both at its start.
type Ends struct{ X0, Y0, X1, Y1 float64 }

// Step is one stroke in drawing order: its index and whether to draw it backwards.
type Step struct {
	Index    int
	Reversed bool
}

// Greedy returns the drawing order of strokes with ends ends, starting from the pen at
// (0, 0), and the length of the pen-up travel between strokes (from the first stroke's
// start to the last stroke's start, not counting the move to the first). Ties go to the
// lower index, so the order is deterministic.
func Greedy(ends []Ends) ([]Step, float64) {
	n := len(ends)
	done := make([]bool, n)
	steps := make([]Step, 0, n)
	var x, y, travel float64
	for k := 0; k < n; k++ {
		best, rev, bestD := -1, false, math.Inf(1)
		// Only ends whose squared distance is about the best's or less can be nearer:
		// the distance itself (math.Hypot, as the travel adds it) is taken of those
		// alone. The margin is far wider than the rounding of either.
		lim := math.Inf(1)
		for i, e := range ends {
			if done[i] {
				continue
			}
			if dx, dy := e.X0-x, e.Y0-y; dx*dx+dy*dy <= lim {
				if d := math.Hypot(dx, dy); d < bestD {
					best, rev, bestD = i, false, d
					lim = d * d * (1 + 1e-9)
				}
			}
			if dx, dy := e.X1-x, e.Y1-y; dx*dx+dy*dy <= lim {
				if d := math.Hypot(dx, dy); d < bestD {
					best, rev, bestD = i, true, d
					lim = d * d * (1 + 1e-9)
				}
			}
		}
		done[best] = true
		if k > 0 {
			travel += bestD
		}
		steps = append(steps, Step{best, rev})
		e := ends[best]
		if rev {
			x, y = e.X0, e.Y0
		} else {
			x, y = e.X1, e.Y1
		}
	}
	return steps, travel
}

// Travel returns the pen-up length of drawing strokes in the order given.
func Travel(ends []Ends) float64 {
	var t float64
	for i := 1; i < len(ends); i++ {
		t += math.Hypot(ends[i].X0-ends[i-1].X1, ends[i].Y0-ends[i-1].Y1)
	}
	return t
}
