package trace

import "math"

// This file is stage 5 of the paper (section 2.5): curve optimisation. A run of
// consecutive curve segments that bend the same way, contain no corner and turn by less
// than 179 degrees in all may be replaced by a single Bézier. Its ends and end tangents
// are those of the run; its control points are placed so that it encloses the same area
// as the run. The replacement is allowed only if it passes within optTolerance of every
// polygon side and of every original segment's apex. Among all ways of joining, dynamic
// programming picks the fewest segments, then the least total squared deviation.

var cos179 = math.Cos(179 * math.Pi / 180)

// joined is the single Bézier that replaces segments i+1..j of a curve.
type joined struct {
	pen    float64 // the sum of squared deviations
	c      [2]vec  // its control points
	alpha  float64
	s      float64 // where the Bézier's end tangent meets the start one: p3 + s(p2-p3)
	usable bool
}

// optimize builds s.optimized from s.smoothed.
func (s *scratch) optimize(tol float64) {
	cv := &s.smoothed
	m := len(cv.c)
	v := cv.vertex
	// conv[i]: +1 or -1 for the direction segment i bends in, 0 at a corner.
	conv := grow(s.conv, m)
	s.conv = conv
	for i := 0; i < m; i++ {
		conv[i] = 0
		if !cv.corner[i] {
			conv[i] = sign(dpara(v[mod(i-1, m)], v[i], v[mod(i+1, m)]))
		}
	}
	// areas[i]: the area enclosed, as seen from v_0, by the curve up to the end of
	// segment i-1, counting curve segments only.
	areas := grow(s.areas, m+1)
	s.areas = areas
	area := 0.0
	areas[0] = 0
	p0 := v[0]
	for i := 0; i < m; i++ {
		i1 := mod(i+1, m)
		if !cv.corner[i1] {
			alpha := cv.alpha[i1]
			// The area between a segment's chord and the Bézier is 0.3 alpha (4 - alpha)
			// times the area of the triangle chord-vertex.
			area += 0.3 * alpha * (4 - alpha) * dpara(cv.c[i][2], v[i1], cv.c[i1][2]) / 2
			area += dpara(p0, cv.c[i][2], cv.c[i1][2]) / 2
		}
		areas[i+1] = area
	}

	// The best way from the end of segment 0 to the end of segment j (j = m: all the
	// way round) has count[j] segments with total penalty pen[j]; its last segment
	// starts at the end of segment from[j], joined as opt[j] unless from[j] = j-1. The
	// joins tried for j, longer and longer, stop at the first that fails, as Potrace
	// does (a failed bend or convexity test fails for every longer run as well).
	from := grow(s.from, m+1)
	count := grow(s.count, m+1)
	pen := grow(s.optPen, m+1)
	if cap(s.opt) < m+1 {
		s.opt = make([]joined, m+1, m+1+m/4)
	}
	opt := s.opt[:m+1]
	s.from, s.count, s.optPen = from, count, pen
	from[0], pen[0], count[0] = -1, 0, 0
	for j := 1; j <= m; j++ {
		from[j], pen[j], count[j] = j-1, pen[j-1], count[j-1]+1
		for i := j - 2; i >= 0; i-- {
			o := s.join(i, mod(j, m), tol)
			if !o.usable {
				break
			}
			if count[j] > count[i]+1 || (count[j] == count[i]+1 && pen[j] > pen[i]+o.pen) {
				from[j], pen[j], count[j], opt[j] = i, pen[i]+o.pen, count[i]+1, o
			}
		}
	}

	om := count[m]
	out := &s.optimized
	out.resize(om)
	for i, j := om-1, m; i >= 0; i-- {
		jm := mod(j, m)
		if from[j] == j-1 {
			out.corner[i], out.c[i], out.vertex[i], out.alpha[i] = cv.corner[jm], cv.c[jm], cv.vertex[jm], cv.alpha[jm]
		} else {
			o := opt[j]
			out.corner[i] = false
			out.c[i] = [3]vec{o.c[0], o.c[1], cv.c[jm][2]}
			out.vertex[i] = interval(o.s, cv.c[jm][2], v[jm])
			out.alpha[i] = o.alpha
		}
		j = from[j]
	}
}

// join tries to replace segments i+1..j (cyclically) of s.smoothed by one Bézier.
func (s *scratch) join(i, j int, tol float64) joined {
	var res joined
	cv := &s.smoothed
	v, c := cv.vertex, cv.c
	m := len(v)
	if i == j { // a whole loop is never one segment
		return res
	}
	// Same bending direction, no corners, and less than 179 degrees of turn.
	i1 := mod(i+1, m)
	conv := s.conv[i1]
	if conv == 0 {
		return res
	}
	d := dist(v[i], v[i1])
	for k, k1 := i1, 0; k != j; k = k1 {
		k1 = mod(k+1, m)
		k2 := mod(k+2, m)
		if s.conv[k1] != conv {
			return res
		}
		if sign(cprod(v[i], v[i1], v[k1], v[k2])) != conv {
			return res
		}
		if iprod1(v[i], v[i1], v[k1], v[k2]) < d*dist(v[k1], v[k2])*cos179 {
			return res
		}
	}

	// The candidate runs from p0 to p3 with tangents towards p1 and p2.
	p0, p1, p2, p3 := c[i][2], v[i1], v[j], c[j][2]
	area := s.areas[j] - s.areas[i]
	area -= dpara(v[0], c[i][2], c[j][2]) / 2
	if i >= j {
		area += s.areas[m]
	}
	// o, where the tangents meet, is p0 + t(p1-p0) = p3 + s(p2-p3); A is the area of
	// the triangle p0 o p3.
	A1 := dpara(p0, p1, p2)
	A2 := dpara(p0, p1, p3)
	A3 := dpara(p0, p2, p3)
	A4 := A1 + A3 - A2
	if A2 == A1 {
		return res
	}
	t := A3 / (A3 - A4)
	sp := A2 / (A2 - A1)
	A := A2 * t / 2
	if A == 0 {
		return res
	}
	R := area / A // the area relative to the triangle's
	disc := 4 - R/0.3
	if !(disc >= 0) {
		return res
	}
	alpha := 2 - math.Sqrt(disc)
	res.c[0] = interval(t*alpha, p0, p1)
	res.c[1] = interval(sp*alpha, p3, p2)
	res.alpha, res.s = alpha, sp
	p1, p2 = res.c[0], res.c[1]

	// The curve must follow each polygon side within tol, touching it between its ends.
	for k, k1 := i1, 0; k != j; k = k1 {
		k1 = mod(k+1, m)
		t := tangent(p0, p1, p2, p3, v[k], v[k1])
		if t < -0.5 {
			return res
		}
		pt := bezier(t, p0, p1, p2, p3)
		d := dist(v[k], v[k1])
		if d == 0 {
			return res
		}
		d1 := dpara(v[k], v[k1], pt) / d
		if math.Abs(d1) > tol {
			return res
		}
		if iprod(v[k], v[k1], pt) < 0 || iprod(v[k1], v[k], pt) < 0 {
			return res
		}
		res.pen += d1 * d1
	}
	// ... and must not fall short of any original segment's apex by more than tol.
	for k, k1 := i, 0; k != j; k = k1 {
		k1 = mod(k+1, m)
		t := tangent(p0, p1, p2, p3, c[k][2], c[k1][2])
		if t < -0.5 {
			return res
		}
		pt := bezier(t, p0, p1, p2, p3)
		d := dist(c[k][2], c[k1][2])
		if d == 0 {
			return res
		}
		d1 := dpara(c[k][2], c[k1][2], pt) / d
		d2 := dpara(c[k][2], c[k1][2], v[k1]) / d
		d2 *= 0.75 * cv.alpha[k1]
		if d2 < 0 {
			d1, d2 = -d1, -d2
		}
		if d1 < d2-tol {
			return res
		}
		if d1 < d2 {
			res.pen += (d1 - d2) * (d1 - d2)
		}
	}
	res.usable = true
	return res
}
