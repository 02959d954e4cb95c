// Package order sorts strokes to shorten the pen's travel between them: greedily the
// stroke with an end nearest to where the pen is, drawn from that end.
package order

import (
	"math"
	"slices"
)

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
// lower index, and then to the stroke's first end, so the order is deterministic.
//
// The ends are kept on a grid of cells, about two to a cell, and the nearest is
// looked for in rings of cells around the pen, out to where no cell can hold a nearer
// one: a drawing's next stroke is usually near, so each step looks at a few cells
// instead of every stroke.
func Greedy(ends []Ends) ([]Step, float64) {
	n := len(ends)
	steps := make([]Step, 0, n)
	if n == 0 {
		return steps, 0
	}
	g := newGrid(ends)
	var x, y, travel float64
	for k := 0; k < n; k++ {
		var c choice
		switch {
		case g == nil:
			c = scanAll(ends, steps, x, y)
		case k == 0:
			c = g.scan(ends, x, y) // the pen may be off the grid
		default:
			c = g.nearest(ends, x, y)
		}
		g.remove(ends, c.i)
		if k > 0 {
			travel += c.d
		}
		steps = append(steps, Step{c.i, c.rev})
		e := ends[c.i]
		if c.rev {
			x, y = e.X0, e.Y0
		} else {
			x, y = e.X1, e.Y1
		}
	}
	return steps, travel
}

// choice is the nearest end found so far: stroke i's (its last when rev), d from the
// pen, and lim, about d squared (see offer).
type choice struct {
	i      int
	rev    bool
	d, lim float64
}

// offer makes end rev of stroke i, at (ex, ey), the choice when it is nearer to the pen
// at (x, y), or as near and earlier (lower index, then first end first). Only ends
// whose squared distance is about the best's or less can be nearer: the distance
// itself (math.Hypot, as the travel adds it) is taken of those alone. The margin is
// far wider than the rounding of either.
func (c *choice) offer(i int, rev bool, ex, ey, x, y float64) {
	dx, dy := ex-x, ey-y
	if dx*dx+dy*dy > c.lim {
		return
	}
	d := math.Hypot(dx, dy)
	if d < c.d || d == c.d && (i < c.i || i == c.i && !rev && c.rev) {
		c.i, c.rev, c.d = i, rev, d
		c.lim = d * d * (1 + 1e-9)
	}
}

func none() choice { return choice{i: -1, d: math.Inf(1), lim: math.Inf(1)} }

// grid holds the ends of the strokes not yet drawn in cells of side size from (x0, y0),
// cw x ch of them; an end is numbered 2i (first) or 2i+1 (last) for stroke i, and at[e]
// is its place in its cell's list. left lists the strokes not yet drawn, where[i]
// stroke i's place in it.
type grid struct {
	x0, y0, size float64
	cw, ch       int
	cells        [][]int32
	at           []int32
	left, where  []int32
}

// newGrid puts ends on a grid, or returns nil when their extent is not finite (every
// step then scans every stroke).
func newGrid(ends []Ends) *grid {
	n := len(ends)
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, e := range ends {
		minX, maxX = min(minX, e.X0, e.X1), max(maxX, e.X0, e.X1)
		minY, maxY = min(minY, e.Y0, e.Y1), max(maxY, e.Y0, e.Y1)
	}
	w, h := maxX-minX, maxY-minY
	if math.IsInf(w, 0) || math.IsInf(h, 0) || math.IsNaN(w+h) {
		return nil
	}
	// About two ends a cell, no fewer cells than one, no more than 2n + 2 across.
	size := max(math.Sqrt(w*h/float64(n)), (w+h)/float64(2*n+2), 1e-9*max(1, w, h))
	g := &grid{x0: minX, y0: minY, size: size}
	g.cw, g.ch = int(w/size)+1, int(h/size)+1
	g.cells = make([][]int32, g.cw*g.ch)
	g.at = make([]int32, 2*n)
	g.left, g.where = make([]int32, n), make([]int32, n)
	for i, e := range ends {
		g.left[i], g.where[i] = int32(i), int32(i)
		for side, p := range [2][2]float64{{e.X0, e.Y0}, {e.X1, e.Y1}} {
			c := g.cell(p[0], p[1])
			g.at[2*i+side] = int32(len(g.cells[c]))
			g.cells[c] = append(g.cells[c], int32(2*i+side))
		}
	}
	return g
}

// cell returns the cell of point (x, y) of the grid's extent.
func (g *grid) cell(x, y float64) int {
	cx := min(g.cw-1, max(0, int((x-g.x0)/g.size)))
	cy := min(g.ch-1, max(0, int((y-g.y0)/g.size)))
	return cy*g.cw + cx
}

// remove takes stroke i's ends off the grid.
func (g *grid) remove(ends []Ends, i int) {
	if g == nil {
		return
	}
	e := ends[i]
	for side, p := range [2][2]float64{{e.X0, e.Y0}, {e.X1, e.Y1}} {
		c := g.cell(p[0], p[1])
		list := g.cells[c]
		k, last := g.at[2*i+side], list[len(list)-1]
		list[k], g.at[last] = last, k
		g.cells[c] = list[:len(list)-1]
	}
	k, last := g.where[i], g.left[len(g.left)-1]
	g.left[k], g.where[last] = last, k
	g.left = g.left[:len(g.left)-1]
}

// scanAll returns the end nearest to (x, y) of the strokes not in steps, scanning them
// all: Greedy's way when the ends do not fit on a grid (they are not all finite).
func scanAll(ends []Ends, steps []Step, x, y float64) choice {
	done := make([]bool, len(ends))
	for _, s := range steps {
		done[s.Index] = true
	}
	c := none()
	for i, e := range ends {
		if !done[i] {
			c.offer(i, false, e.X0, e.Y0, x, y)
			c.offer(i, true, e.X1, e.Y1, x, y)
		}
	}
	if c.i < 0 { // every end left is NaN: the first stroke left, as a scan found it
		c.i = slices.Index(done, false)
	}
	return c
}

// scan returns the end nearest to (x, y) of the strokes not yet drawn.
func (g *grid) scan(ends []Ends, x, y float64) choice {
	c := none()
	for _, i := range g.left {
		e := ends[i]
		c.offer(int(i), false, e.X0, e.Y0, x, y)
		c.offer(int(i), true, e.X1, e.Y1, x, y)
	}
	return c
}

// nearest returns the end nearest to the pen at (x, y), a point of the grid's extent
// (an end drawn), looking at the cells in rings around the pen's: the ends in ring r
// (the cells r cells away across or down, or both) are at least r-1 cells' sides
// away, so once r-2 cells' sides (one ring's margin for an end that rounding put in
// the next cell) exceed the nearest end's distance, no farther ring can hold a nearer
// one. When a ring would hold more cells than there
// are ends left, the ends left are scanned instead.
func (g *grid) nearest(ends []Ends, x, y float64) choice {
	c := none()
	pc := g.cell(x, y)
	px, py := pc%g.cw, pc/g.cw
	for r := 0; ; r++ {
		// Two rings' margin: an end whose cell rounding put a hair across a border.
		if float64(r-2)*g.size > c.d*(1+1e-6) {
			return c
		}
		if r > max(px, g.cw-1-px, py, g.ch-1-py) {
			return c // the rings cover the whole grid
		}
		if 8*r > 2*len(g.left) {
			return g.scan(ends, x, y)
		}
		for cy := py - r; cy <= py+r; cy++ {
			if cy < 0 || cy >= g.ch {
				continue
			}
			step := 2 * r // the ring's top and bottom rows whole, its sides' two cells
			if cy == py-r || cy == py+r || r == 0 {
				step = 1
			}
			for cx := px - r; cx <= px+r; cx += step {
				if cx < 0 || cx >= g.cw {
					continue
				}
				for _, e := range g.cells[cy*g.cw+cx] {
					i, rev := int(e/2), e%2 == 1
					p := ends[i]
					if rev {
						c.offer(i, true, p.X1, p.Y1, x, y)
					} else {
						c.offer(i, false, p.X0, p.Y0, x, y)
					}
				}
			}
		}
	}
}

// Travel returns the pen-up length of drawing strokes in the order given.
func Travel(ends []Ends) float64 {
	var t float64
	for i := 1; i < len(ends); i++ {
		t += math.Hypot(ends[i].X0-ends[i-1].X1, ends[i].Y0-ends[i-1].Y1)
	}
	return t
}
