package pathfit

import "math"

// Cubic is one cubic Bézier segment of a spline: it starts where the previous segment
// ends and has control points C1, C2 and end point P.
type Cubic struct{ C1, C2, P Point }

// Splice returns the indices of the vertices of the closed smooth polygon pts where the
// spline is cut into separately fitted pieces, starting with 0: every corner, every
// inflection (where the path starts turning the other way), and every vertex where the
// turning accumulated since the last cut reaches threshold degrees.
func Splice(dst []int, pts []Point, corner []bool, threshold float64) []int {
	n := len(pts)
	dst = append(dst, 0)
	limit := threshold * math.Pi / 180
	acc, sign := 0.0, 0
	for i := 1; i < n; i++ {
		if corner[i] {
			dst = append(dst, i)
			acc, sign = 0, 0
			continue
		}
		u, v := pts[i].sub(pts[i-1]), at(pts, i+1).sub(pts[i])
		if u.isZero() || v.isZero() {
			continue
		}
		t := math.Atan2(u.cross(v), u.dot(v))
		s := 0
		if t > 1e-9 {
			s = 1
		} else if t < -1e-9 {
			s = -1
		}
		if s != 0 && sign != 0 && s != sign {
			dst = append(dst, i)
			acc, sign = 0, 0
			continue
		}
		if s != 0 {
			sign = s
		}
		acc += t
		if math.Abs(acc) >= limit {
			dst = append(dst, i)
			acc, sign = 0, 0
		}
	}
	return dst
}

// Fit appends to dst one cubic per piece of the closed polygon pts between consecutive
// cuts (from Splice; the last piece returns to pts[cuts[0]]) and returns the extended
// slice. Each piece is fitted by least squares with chord-length parameters, the end
// points fixed and the end tangents taken from the first and last edges (Schneider,
// "An Algorithm for Automatically Fitting Digitized Curves", Graphics Gems 1990).
func Fit(dst []Cubic, pts []Point, cuts []int) []Cubic {
	var f Fitter
	return f.Fit(dst, pts, cuts)
}

// Fitter runs Fit with scratch buffers it keeps from one call to the next.
type Fitter struct {
	piece []Point
	u     []float64
}

// Fit is the function Fit.
func (f *Fitter) Fit(dst []Cubic, pts []Point, cuts []int) []Cubic {
	n := len(pts)
	piece := f.piece
	defer func() { f.piece = piece }()
	for k, c := range cuts {
		end := n + cuts[0]
		if k+1 < len(cuts) {
			end = cuts[k+1]
		}
		piece = piece[:0]
		for i := c; i <= end; i++ {
			piece = append(piece, at(pts, i))
		}
		dst = f.fitSplit(dst, piece, 0)
	}
	return dst
}

// MaxError is the distance in pixels a fitted cubic may stray from the points it
// replaces before Fit splits the piece in two.
const MaxError = 1.0

// fitSplit appends a cubic fitted to q, or, where that cubic strays more than MaxError
// from q (a long straight run ending in a bend cannot be one cubic), the fits of the two
// halves of q split at the worst point.
func (f *Fitter) fitSplit(dst []Cubic, q []Point, depth int) []Cubic {
	if cap(f.u) < len(q) {
		f.u = make([]float64, len(q))
	}
	c, u := fitPiece(q, f.u[:len(q)])
	if len(q) <= 3 || depth >= 16 || u == nil {
		return append(dst, c)
	}
	worst, at := 0.0, 0
	for i := 1; i < len(q)-1; i++ {
		if d := c.point(q[0], u[i]).dist(q[i]); d > worst {
			worst, at = d, i
		}
	}
	if worst <= MaxError {
		return append(dst, c)
	}
	// The halves' fits reuse f.u: u is not needed any more.
	dst = f.fitSplit(dst, q[:at+1], depth+1)
	return f.fitSplit(dst, q[at:], depth+1)
}

// point returns the point of c, starting at from, at parameter t.
func (c Cubic) point(from Point, t float64) Point {
	s := 1 - t
	return from.scale(s * s * s).add(c.C1.scale(3 * s * s * t)).add(c.C2.scale(3 * s * t * t)).add(c.P.scale(t * t * t))
}

// fitPiece fits one cubic to the points q, keeping q's end points, and returns it with
// the parameters of q's points, written to u (len(q) long), or nil when the cubic is the
// chord.
func fitPiece(q []Point, u []float64) (Cubic, []float64) {
	m := len(q) - 1
	p0, p3 := q[0], q[m]
	line := func() (Cubic, []float64) { c1, c2 := lerp3(p0, p3); return Cubic{c1, c2, p3}, nil }
	if m < 2 || p0 == p3 {
		return line()
	}
	t1, t2 := tangent(q, 1), tangent(q, -1)
	if t1.isZero() || t2.isZero() {
		return line()
	}
	// Chord-length parameters.
	u[0] = 0
	for i := 1; i <= m; i++ {
		u[i] = u[i-1] + q[i].dist(q[i-1])
	}
	total := u[m]
	if total == 0 {
		return line()
	}
	var c11, c12, c22, x1, x2 float64
	for i := 0; i <= m; i++ {
		t := u[i] / total
		s := 1 - t
		b0, b1, b2, b3 := s*s*s, 3*t*s*s, 3*t*t*s, t*t*t
		a1, a2 := t1.scale(b1), t2.scale(b2)
		c11 += a1.dot(a1)
		c12 += a1.dot(a2)
		c22 += a2.dot(a2)
		r := q[i].sub(p0.scale(b0 + b1)).sub(p3.scale(b2 + b3))
		x1 += r.dot(a1)
		x2 += r.dot(a2)
	}
	det := c11*c22 - c12*c12
	chord := p0.dist(p3)
	alpha1, alpha2 := chord/3, chord/3
	if math.Abs(det) > 1e-12 {
		a1 := (x1*c22 - c12*x2) / det
		a2 := (c11*x2 - c12*x1) / det
		eps := 1e-6 * chord
		if a1 > eps && a2 > eps && a1 < 2*total && a2 < 2*total {
			alpha1, alpha2 = a1, a2
		}
	}
	for i := range u {
		u[i] /= total
	}
	return Cubic{p0.add(t1.scale(alpha1)), p3.add(t2.scale(alpha2)), p3}, u
}

// tangent returns the unit direction from an end of q into q: from the first point when
// dir is 1, from the last when dir is -1; zero if all points coincide.
func tangent(q []Point, dir int) Point {
	m := len(q) - 1
	from, i := q[0], 1
	if dir < 0 {
		from, i = q[m], m-1
	}
	for ; i >= 0 && i <= m; i += dir {
		if d := q[i].sub(from); !d.isZero() {
			return d.unit()
		}
	}
	return Point{}
}

// IsLine reports whether c, starting at from, is a straight line: both control points
// lie on the chord (within 1e-6 pixels), between its ends, as Fit writes them for a
// piece of two points or a straight run of points.
func (c Cubic) IsLine(from Point) bool {
	d := c.P.sub(from)
	l2 := d.dot(d)
	if l2 == 0 {
		return c.C1 == from && c.C2 == from
	}
	on := func(q Point) bool {
		v := q.sub(from)
		t := v.dot(d) / l2
		dist := math.Abs(v.cross(d)) / math.Sqrt(l2)
		return t >= 0 && t <= 1 && dist <= 1e-6
	}
	return on(c.C1) && on(c.C2)
}
