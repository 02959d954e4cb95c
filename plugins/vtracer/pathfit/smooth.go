package pathfit

import "math"

// Corners reports, for each vertex of the closed polygon pts, whether the direction of
// the path changes there by at least threshold degrees.
func Corners(dst []bool, pts []Point, threshold float64) []bool {
	n := len(pts)
	for i := 0; i < n; i++ {
		a, b, c := at(pts, i-1), pts[i], at(pts, i+1)
		dst = append(dst, angle(b.sub(a), c.sub(b)) >= threshold*math.Pi/180)
	}
	return dst
}

// angle returns the unsigned angle between two directions, in radians (0 when either
// is zero).
func angle(u, v Point) float64 {
	if u.isZero() || v.isZero() {
		return 0
	}
	return math.Abs(math.Atan2(u.cross(v), u.dot(v)))
}

// Smooth refines the closed polygon pts with the interpolating 4-point subdivision scheme
// (Dyn, Levin and Gregory): every edge longer than maxLength gets a new vertex
// (-p0 + 9 p1 + 9 p2 - p3) / 16, and the pass repeats until no edge is longer or after
// maxIter passes. The original vertices stay where they are, and corners stay sharp:
// across a corner the missing neighbour is extrapolated along the edge, so the curve
// leaves a corner straight. corner flags pts' vertices (see Corners). It returns the
// refined polygon and its corner flags (new vertices are never corners), in buffers
// that alternate with the arguments' and may reuse them.
func Smooth(pts []Point, corner []bool, maxLength float64, maxIter int) ([]Point, []bool) {
	var s Smoother
	return s.Smooth(pts, corner, maxLength, maxIter)
}

// Smoother runs Smooth with spare buffers it keeps from one call to the next.
type Smoother struct {
	next   []Point
	corner []bool
}

// Smooth is the function Smooth. Its results may reuse the arguments' storage or the
// Smoother's; the buffers it does not return are kept for the next call, so the results
// are valid until then.
func (sm *Smoother) Smooth(pts []Point, corner []bool, maxLength float64, maxIter int) ([]Point, []bool) {
	next, nextCorner := sm.next, sm.corner
	defer func() { sm.next, sm.corner = next, nextCorner }()
	for it := 0; it < maxIter && len(pts) >= 3; it++ {
		n := len(pts)
		next, nextCorner = next[:0], nextCorner[:0]
		grew := false
		for i := 0; i < n; i++ {
			p1, p2 := pts[i], at(pts, i+1)
			next = append(next, p1)
			nextCorner = append(nextCorner, corner[i])
			if p1.dist(p2) <= maxLength {
				continue
			}
			p0, p3 := at(pts, i-1), at(pts, i+2)
			if corner[i] {
				p0 = p1.scale(2).sub(p2)
			}
			if corner[(i+1)%n] {
				p3 = p2.scale(2).sub(p1)
			}
			m := p1.add(p2).scale(9).sub(p0).sub(p3).scale(1.0 / 16)
			next = append(next, m)
			nextCorner = append(nextCorner, false)
			grew = true
		}
		if !grew {
			break
		}
		pts, next = next, pts
		corner, nextCorner = nextCorner, corner
	}
	return pts, corner
}
