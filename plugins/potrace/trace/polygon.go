package trace

import (
	"context"
	"math"

	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// parallelCorners is the path length (pixel corners) from which a Memo's trace finds
// the straight runs on all cores.
const parallelCorners = 4096

// This file is stage 2 of the paper (section 2.2): the optimal polygon of a path. A
// polygon's vertices are a subset of the path's; a side from v_i to v_j is allowed when
// the path from v_{i-1} to v_{j+1} is straight, and among the polygons with the fewest
// sides the one with the least total penalty wins.

// sum holds prefix sums of a path's vertex coordinates, taken relative to its first
// vertex: sums[k] covers vertices 0..k-1.
type sum struct{ x, y, xx, xy, yy float64 }

// prefixSums fills s.sums for pts.
func (s *scratch) prefixSums(pts []point) {
	n := len(pts)
	s.sums = grow(s.sums, n+1)
	x0, y0 := pts[0].x, pts[0].y
	var acc sum
	s.sums[0] = acc
	for i, p := range pts {
		x, y := float64(p.x-x0), float64(p.y-y0)
		acc.x += x
		acc.y += y
		acc.xx += x * x
		acc.xy += x * y
		acc.yy += y * y
		s.sums[i+1] = acc
	}
}

// straightRuns fills s.lon: lon[i] is the furthest vertex k (cyclically) such that the
// path from v_i to v_k, and every subpath of it that starts between them, is straight.
//
// A path is straight when its moves do not go in all four directions and a line passes
// within distance 1/2 (in the maximum norm) of every vertex. Seen from v_i that second
// condition is a cone of directions: every later vertex v must lie inside it, and then
// narrows it to the directions that pass within 1 of v. The cone is kept as two
// boundary vectors c0 (clockwise) and c1 (counterclockwise). Vertices between two
// corners lie on one line, so the walk goes from corner to corner and finds the exact
// last straight vertex on the final run by solving two linear inequalities.
func (s *scratch) straightRuns(pts []point) {
	n := len(pts)
	next := grow(s.next, n)
	pivot := grow(s.pivot, n)
	lon := grow(s.lon, n)
	s.next, s.pivot, s.lon = next, pivot, lon

	// next[i] is the first corner after v_i, where a corner is a vertex at which the
	// path turns. v_0 is always one: the path leaves it down after arriving going left.
	k := 0
	for i := n - 1; i >= 0; i-- {
		next[i] = k
		a, b := pts[mod(i-1, n)], pts[mod(i+1, n)]
		if a.x != b.x && a.y != b.y {
			k = i
		}
	}

	// Each vertex's pivot depends on the path alone: long paths (potrace2's upscaled
	// layers, through a Memo) spread the vertices over the cores.
	pivotOf := func(i int) {
		pi := pts[i]
		seen := direction(pts[mod(i+1, n)].x-pi.x, pts[mod(i+1, n)].y-pi.y)
		var c0, c1 ivec
		k1, k := i, next[i]
		done := false
		for steps := 0; ; steps++ {
			seen |= direction(pts[k].x-pts[k1].x, pts[k].y-pts[k1].y)
			if seen == 15 { // all four directions: v_k1 ends the straight path
				pivot[i] = k1
				done = true
				break
			}
			cur := ivec{int(pts[k].x - pi.x), int(pts[k].y - pi.y)}
			if cross(c0, cur) < 0 || cross(c1, cur) > 0 {
				break
			}
			if abs(cur.x) > 1 || abs(cur.y) > 1 {
				// Narrow the cone to the directions passing within 1 of cur: those
				// between the two extreme corners of the square of radius 1 around it.
				if off := clockwiseCorner(cur); cross(c0, off) >= 0 {
					c0 = off
				}
				if off := counterclockwiseCorner(cur); cross(c1, off) <= 0 {
					c1 = off
				}
			}
			k1, k = k, next[k]
			if !cyclic(k, i, k1) || steps > n {
				break // went all the way round
			}
		}
		if done {
			return
		}
		// v_k1 is inside the cone, v_k is not: find the last vertex of the run from
		// v_k1 towards v_k that is, the largest j with k1+j inside both boundaries.
		dk := ivec{sign(pts[k].x - pts[k1].x), sign(pts[k].y - pts[k1].y)}
		cur := ivec{int(pts[k1].x - pi.x), int(pts[k1].y - pi.y)}
		a, b := cross(c0, cur), cross(c0, dk)
		c, d := cross(c1, cur), cross(c1, dk)
		j := n // no bound yet
		if b < 0 {
			j = floorDiv(a, -b)
		}
		if d > 0 {
			j = min(j, floorDiv(-c, d))
		}
		pivot[i] = mod(k1+j, n)
	}
	if s.parallel && n >= parallelCorners {
		// Not cancelled halfway, so every pivot is set: one path takes milliseconds
		// and the trace checks for cancellation between paths.
		_ = parallel.For(context.Background(), n, parallelCorners/4, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				pivotOf(i)
			}
		})
	} else {
		for i := n - 1; i >= 0; i-- {
			pivotOf(i)
		}
	}

	// A subpath of a straight path starting later must be straight too: lon[i] is the
	// cyclically nearest of pivot[i'] over the vertices i' from i up to it.
	j := pivot[n-1]
	lon[n-1] = j
	for i := n - 2; i >= 0; i-- {
		if cyclic(i+1, pivot[i], j) {
			j = pivot[i]
		}
		lon[i] = j
	}
	for i := n - 1; cyclic(mod(i+1, n), j, lon[i]); i-- {
		lon[i] = j
	}
}

// bestPolygon fills s.poly with the indices of the optimal polygon's vertices, starting
// at v_0, by dynamic programming over the possible sides. It needs prefixSums and
// straightRuns first.
func (s *scratch) bestPolygon(pts []point) {
	n := len(pts)
	// reach[i]: the furthest j such that i->j is a possible side (n stands for v_0
	// again, closing the polygon); back[j]: the smallest i that reaches j.
	reach := grow(s.reach, n+1)
	back := grow(s.back, n+1)
	s.reach, s.back = reach, back
	for i := 0; i < n; i++ {
		c := mod(s.lon[mod(i-1, n)]-1, n)
		if c == i {
			c = mod(i+1, n)
		}
		if c < i {
			c = n
		}
		reach[i] = c
	}
	for i, j := 0, 1; i < n; i++ {
		for ; j <= reach[i]; j++ {
			back[j] = i
		}
	}
	// The fewest sides m: going greedily forward, v_j can be the k-th vertex only if
	// lo[k] <= j <= hi[k].
	hi := s.hi[:0]
	for i := 0; i < n; i = reach[i] {
		hi = append(hi, i)
	}
	m := len(hi)
	hi = append(hi, n)
	lo := grow(s.lo, m+1)
	for k, i := m, n; k > 0; k-- {
		lo[k] = i
		i = back[i]
	}
	lo[0] = 0
	s.hi, s.lo = hi, lo

	pen := grow(s.pen, n+1)
	prev := grow(s.prev, n+1)
	s.pen, s.prev = pen, prev
	pen[0] = 0
	for k := 1; k <= m; k++ {
		for j := lo[k]; j <= hi[k]; j++ {
			best := -1.0
			for i := hi[k-1]; i >= back[j]; i-- {
				p := s.penalty(pts, i, j) + pen[i]
				if best < 0 || p < best {
					prev[j] = i
					best = p
				}
			}
			pen[j] = best
		}
	}
	poly := grow(s.poly, m)
	for k, j := m-1, n; j > 0; k-- {
		j = prev[j]
		poly[k] = j
	}
	s.poly = poly
}

// penalty of the side v_i -> v_j (0 <= i < j <= n, j = n meaning v_0): its length times
// the root mean square distance of the vertices v_i..v_j from the line through its
// ends, computed from the prefix sums in constant time.
func (s *scratch) penalty(pts []point, i, j int) float64 {
	n := len(pts)
	wrap := j >= n
	if wrap {
		j -= n
	}
	a, b := s.sums[i], s.sums[j+1]
	x, y, xx, xy, yy := b.x-a.x, b.y-a.y, b.xx-a.xx, b.xy-a.xy, b.yy-a.yy
	k := float64(j + 1 - i)
	if wrap {
		t := s.sums[n]
		x, y, xx, xy, yy = x+t.x, y+t.y, xx+t.xx, xy+t.xy, yy+t.yy
		k += float64(n)
	}
	p0, pi, pj := pts[0], pts[i], pts[j]
	// The midpoint of the side, relative to v_0, and the side's normal scaled to its
	// length.
	px := float64(pi.x+pj.x)/2 - float64(p0.x)
	py := float64(pi.y+pj.y)/2 - float64(p0.y)
	ey := float64(pj.x - pi.x)
	ex := -float64(pj.y - pi.y)
	// Means of (x-px)^2, (x-px)(y-py), (y-py)^2 over the vertices.
	sxx := (xx-2*x*px)/k + px*px
	sxy := (xy-x*py-y*px)/k + px*py
	syy := (yy-2*y*py)/k + py*py
	return math.Sqrt(ex*ex*sxx + 2*ex*ey*sxy + ey*ey*syy)
}

// ivec is an integer vector.
type ivec struct{ x, y int }

func cross(a, b ivec) int { return a.x*b.y - a.y*b.x }

// clockwiseCorner returns the corner of the square of radius 1 around c (which does
// not contain the origin) that is furthest clockwise seen from the origin.
func clockwiseCorner(c ivec) ivec {
	o := ivec{c.x - 1, c.y - 1}
	if c.y > 0 || (c.y == 0 && c.x < 0) {
		o.x = c.x + 1
	}
	if c.x < 0 || (c.x == 0 && c.y < 0) {
		o.y = c.y + 1
	}
	return o
}

// counterclockwiseCorner returns the corner of the square of radius 1 around c that is
// furthest counterclockwise seen from the origin.
func counterclockwiseCorner(c ivec) ivec {
	o := ivec{c.x - 1, c.y - 1}
	if c.y < 0 || (c.y == 0 && c.x < 0) {
		o.x = c.x + 1
	}
	if c.x > 0 || (c.x == 0 && c.y < 0) {
		o.y = c.y + 1
	}
	return o
}

// direction returns a bit for each of the four unit moves.
func direction(dx, dy int32) uint8 {
	switch {
	case dx > 0:
		return 1
	case dx < 0:
		return 2
	case dy > 0:
		return 4
	default:
		return 8
	}
}

// cyclic reports whether b lies in [a, c) going round the path: a <= b < c, or the
// interval wraps.
func cyclic(a, b, c int) bool {
	if a <= c {
		return a <= b && b < c
	}
	return a <= b || b < c
}

func mod(a, n int) int {
	if a >= n {
		return a % n
	}
	if a >= 0 {
		return a
	}
	return n - 1 - (-1-a)%n
}

func floorDiv(a, b int) int {
	if a >= 0 {
		return a / b
	}
	return -1 - (-1-a)/b
}

// sign returns 1, -1 or 0 as a is positive, negative or zero.
func sign[T int32 | float64](a T) int {
	switch {
	case a > 0:
		return 1
	case a < 0:
		return -1
	}
	return 0
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// grow returns s resized to n elements, reusing its storage when it is large enough.
// The contents are not cleared.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}
