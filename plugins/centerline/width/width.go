// Package width measures strokes across: at each point it samples the ink coverage
// along the normal, moves the point to the coverage's centroid (a sub-pixel centre
// line, where the skeleton only knows pixel centres) and takes the integral of the
// coverage as the line's width there. A stroke's width is the median of its points'.
package width

import (
	"math"
	"slices"

	"github.com/tracecraft/tracecraft/plugins/centerline/graph"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
)

// Measured is a stroke after measuring: points moved to the centre of the ink, and
// the width at each (NaN where the ink is shared with another stroke).
type Measured struct {
	Points []graph.Point
	Widths []float64
	Closed bool
}

// Median returns the median of the known widths, or fallback when none is known.
func (m *Measured) Median(fallback float64) float64 {
	var ws []float64
	for _, w := range m.Widths {
		if !math.IsNaN(w) {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return fallback
	}
	slices.Sort(ws)
	if len(ws)%2 == 1 {
		return ws[len(ws)/2]
	}
	return (ws[len(ws)/2-1] + ws[len(ws)/2]) / 2
}

// InkLevel returns the darkness of solid ink in g: the 90th percentile of the darkness
// of mask pixels at least two pixels from the paper, or of all mask pixels when there
// are none so deep, in [0, 1]. Coverage is measured relative to it.
func InkLevel(g *ink.Image, mask []bool, d []int32) float64 {
	var hist [256]int
	n := 0
	for i, on := range mask {
		if on && d[i] >= 4 {
			hist[g.Pix[i]]++
			n++
		}
	}
	if n == 0 {
		for i, on := range mask {
			if on {
				hist[g.Pix[i]]++
				n++
			}
		}
	}
	if n == 0 {
		return 1
	}
	target := n - n/10
	c := 0
	for v := 0; v < 256; v++ {
		c += hist[v]
		if c >= target && c > 0 {
			return math.Max(float64(v)/255, 0.25)
		}
	}
	return 1
}

// Measure centres and measures stroke s on the darkness image g whose solid ink is
// level. Points within a junction's radius of it are left where they are and get no
// width; a move farther than a pixel is refused as a sign of neighbouring ink.
func Measure(s graph.Stroke, g *ink.Image, level float64) Measured {
	pts := slices.Clone(s.Points)
	n := len(pts)
	m := Measured{Points: pts, Widths: make([]float64, n), Closed: s.Closed}
	near := nearJunction(s)
	for i := range pts {
		m.Widths[i] = math.NaN()
		if near[i] {
			continue
		}
		tx, ty := tangent(s.Points, i, s.Closed)
		if tx == 0 && ty == 0 {
			// A dot: no direction; its width is its diameter.
			m.Widths[i] = 2 * s.Points[i].R
			continue
		}
		nx, ny := -ty, tx
		p := s.Points[i]
		reach := p.R + 2.5
		const step = 0.25
		var sum, moment float64
		for _, sign := range [2]float64{1, -1} {
			for t := 0.0; t <= reach; t += step {
				if t == 0 && sign < 0 {
					continue
				}
				c := g.Bilinear(p.X+sign*t*nx, p.Y+sign*t*ny) / level
				if c < 0.08 && t > 0.5 {
					break
				}
				c = math.Min(c, 1)
				wgt := step
				if t == 0 {
					wgt = step
				}
				sum += c * wgt
				moment += sign * t * c * wgt
			}
		}
		if sum <= 0 {
			continue
		}
		off := moment / sum
		if math.Abs(off) > 1 {
			continue
		}
		pts[i].X += off * nx
		pts[i].Y += off * ny
		m.Widths[i] = sum
	}
	bridge(&m, near)
	return m
}

// bridge replaces the points of a stroke inside junctions, where the ink of other
// strokes pulls the skeleton aside, by the straight line between the centred points
// on either side; points with centred points on one side only (the stroke ends at the
// junction) stay.
func bridge(m *Measured, near []bool) {
	n := len(m.Points)
	for i := 0; i < n; {
		if !near[i] {
			i++
			continue
		}
		j := i
		for j < n && near[j] {
			j++
		}
		if i > 0 && j < n {
			a, b := m.Points[i-1], m.Points[j]
			for k := i; k < j; k++ {
				t := float64(k-i+1) / float64(j-i+1)
				m.Points[k].X = a.X + t*(b.X-a.X)
				m.Points[k].Y = a.Y + t*(b.Y-a.Y)
			}
		}
		i = j
	}
}

// Ends moves each free end of m (not at a junction) along the stroke's direction so
// that the ink beyond it measures half the stroke's width wd, as it does past the
// centre of a round end: the skeleton's end pixel is only within a pixel or so of it.
func Ends(m *Measured, g *ink.Image, level, wd float64) {
	n := len(m.Points)
	if n < 2 || m.Closed {
		return
	}
	for _, end := range [2]int{0, n - 1} {
		p := m.Points[end]
		if p.Junction {
			continue
		}
		// The outward direction, from a point about a width inside.
		k := end
		var l float64
		for l < math.Max(3, wd) {
			next := k + 1
			if end > 0 {
				next = k - 1
			}
			if next < 0 || next >= n {
				break
			}
			l += math.Hypot(m.Points[next].X-m.Points[k].X, m.Points[next].Y-m.Points[k].Y)
			k = next
		}
		q := m.Points[k]
		ux, uy := p.X-q.X, p.Y-q.Y
		d := math.Hypot(ux, uy)
		if d == 0 {
			continue
		}
		ux, uy = ux/d, uy/d
		// The ink's extent past p along the direction (starting a little inside).
		const step = 0.25
		var extent float64
		for t := -1.0; t <= wd+3; t += step {
			c := math.Min(1, g.Bilinear(p.X+t*ux, p.Y+t*uy)/level)
			if t > 0.5 && c < 0.08 {
				break
			}
			extent += c * step
		}
		extent -= 1 // the part inside p
		shift := extent - wd/2
		if math.Abs(shift) > wd/2+1 {
			continue
		}
		m.Points[end].X += shift * ux
		m.Points[end].Y += shift * uy
	}
}

// nearJunction marks the points within a junction's radius (plus a pixel) of a
// junction point along the stroke.
func nearJunction(s graph.Stroke) []bool {
	near := make([]bool, len(s.Points))
	for j, p := range s.Points {
		if !p.Junction {
			continue
		}
		reach := p.R*1.5 + 1
		for _, dir := range [2]int{1, -1} {
			var l float64
			for i := j; i >= 0 && i < len(s.Points); i += dir {
				if i != j {
					q, r := s.Points[i], s.Points[i-dir]
					l += math.Hypot(q.X-r.X, q.Y-r.Y)
				}
				if l > reach {
					break
				}
				near[i] = true
			}
		}
	}
	return near
}

// tangent returns the unit direction of the stroke at point i, from the points about
// three pixels (or the line's radius) before and after it.
func tangent(pts []graph.Point, i int, closed bool) (float64, float64) {
	n := len(pts)
	k := max(3, int(pts[i].R+0.5))
	a, b := i-k, i+k
	if closed {
		a, b = (a%n+n)%n, b%n
	} else {
		a, b = max(0, a), min(n-1, b)
	}
	dx, dy := pts[b].X-pts[a].X, pts[b].Y-pts[a].Y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return 0, 0
	}
	return dx / l, dy / l
}

// Split cuts a stroke where its width changes by more than ratio (and a pixel) for a
// stretch of at least minRun points, so each part can carry its own width. Parts share
// their end points. A closed stroke is not split.
func Split(m Measured, ratio float64, minRun int) []Measured {
	n := len(m.Points)
	if m.Closed || n < 2*minRun {
		return []Measured{m}
	}
	// Smooth the widths with a running median over minRun points.
	sm := make([]float64, n)
	for i := range sm {
		var win []float64
		for j := max(0, i-minRun/2); j <= min(n-1, i+minRun/2); j++ {
			if !math.IsNaN(m.Widths[j]) {
				win = append(win, m.Widths[j])
			}
		}
		sm[i] = math.NaN()
		if len(win) > 0 {
			slices.Sort(win)
			sm[i] = win[len(win)/2]
		}
	}
	var parts []Measured
	start := 0
	ref := math.NaN()
	for i := 0; i < n; i++ {
		if math.IsNaN(sm[i]) {
			continue
		}
		if math.IsNaN(ref) {
			ref = sm[i]
			continue
		}
		hi, lo := math.Max(ref, sm[i]), math.Min(ref, sm[i])
		if hi > lo*ratio && hi-lo > 1 && i-start >= minRun && n-i >= minRun {
			parts = append(parts, Measured{Points: m.Points[start : i+1], Widths: m.Widths[start : i+1]})
			start = i
			ref = sm[i]
		}
	}
	parts = append(parts, Measured{Points: m.Points[start:], Widths: m.Widths[start:]})
	return parts
}

// Snap moves each stroke end that stops at a junction onto the nearest centred point of
// another stroke running through that junction (a T's stem onto its bar), within the
// junction's radius and a pixel: the junction's own centre sits off the bar's centre
// line, towards the stem.
func Snap(ms []Measured) {
	// The candidates, the inner points of every stroke (ends never move onto ends), in
	// a grid of snapCell-pixel cells; only ends move, so the grid stays valid.
	grid := newPointGrid(ms)
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
			// The nearest inner point of another stroke closer than the radius and a
			// pixel; of equally near ones, the first by stroke and then by point.
			best := p.R + 1
			bj, bk := -1, -1
			grid.near(p.X, p.Y, best, func(j, k int) {
				if j == i {
					return
				}
				o := ms[j].Points[k]
				d := math.Hypot(o.X-p.X, o.Y-p.Y)
				if d < best || (d == best && bj >= 0 && (j < bj || j == bj && k < bk)) {
					best, bj, bk = d, j, k
				}
			})
			if bj >= 0 {
				o := ms[bj].Points[bk]
				m.Points[end].X, m.Points[end].Y = o.X, o.Y
			}
		}
	}
}

// snapCell is the least side of pointGrid's cells, in pixels: about a junction's
// radius.
const snapCell = 4

// pointGrid files the inner points of strokes by the grid cell they lie in.
type pointGrid struct {
	cell               float64
	x0, y0, cols, rows int
	start              []int32    // cell c's points are refs[start[c]:start[c+1]]
	refs               [][2]int32 // stroke, point
}

func newPointGrid(ms []Measured) *pointGrid {
	g := &pointGrid{cell: snapCell}
	inner := func(yield func(j, k int) bool) {
		for j := range ms {
			pts := ms[j].Points
			for k := 1; k+1 < len(pts); k++ {
				if v := pts[k].X + pts[k].Y; !math.IsNaN(v) && !math.IsInf(v, 0) && !yield(j, k) {
					return
				}
			}
		}
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	count := 0
	for j, k := range inner {
		p := ms[j].Points[k]
		minX, minY, maxX, maxY = math.Min(minX, p.X), math.Min(minY, p.Y), math.Max(maxX, p.X), math.Max(maxY, p.Y)
		count++
	}
	if count == 0 {
		return g
	}
	for {
		g.x0, g.y0 = int(math.Floor(minX/g.cell)), int(math.Floor(minY/g.cell))
		g.cols = int(math.Floor(maxX/g.cell)) - g.x0 + 1
		g.rows = int(math.Floor(maxY/g.cell)) - g.y0 + 1
		// Points spread far apart: larger cells, so the grid stays about as large as
		// the points' list.
		if float64(g.cols)*float64(g.rows) <= float64(4*count+1<<16) {
			break
		}
		g.cell *= 2
	}
	g.start = make([]int32, g.cols*g.rows+1)
	cell := func(p graph.Point) int {
		return (int(math.Floor(p.Y/g.cell))-g.y0)*g.cols + int(math.Floor(p.X/g.cell)) - g.x0
	}
	for j, k := range inner {
		g.start[cell(ms[j].Points[k])+1]++
	}
	for c := 1; c < len(g.start); c++ {
		g.start[c] += g.start[c-1]
	}
	g.refs = make([][2]int32, count)
	next := slices.Clone(g.start)
	for j, k := range inner {
		c := cell(ms[j].Points[k])
		g.refs[next[c]] = [2]int32{int32(j), int32(k)}
		next[c]++
	}
	return g
}

// near calls fn with every filed point in the cells that a square of half-side r
// around (x, y) touches, a superset of the points within r.
func (g *pointGrid) near(x, y, r float64, fn func(j, k int)) {
	if g.cols == 0 || math.IsNaN(x+y+r) || math.IsInf(x+y+r, 0) {
		return
	}
	cx0 := max(g.x0, int(math.Floor((x-r)/g.cell)))
	cx1 := min(g.x0+g.cols-1, int(math.Floor((x+r)/g.cell)))
	cy0 := max(g.y0, int(math.Floor((y-r)/g.cell)))
	cy1 := min(g.y0+g.rows-1, int(math.Floor((y+r)/g.cell)))
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			c := (cy-g.y0)*g.cols + cx - g.x0
			for _, ref := range g.refs[g.start[c]:g.start[c+1]] {
				fn(int(ref[0]), int(ref[1]))
			}
		}
	}
}
