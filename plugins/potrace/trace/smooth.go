package trace

import "math"

// This file is stage 4 of the paper (section 2.4): corners and smoothing. Every vertex
// of the adjusted polygon becomes one segment of the curve, running from the midpoint of
// the side before it to the midpoint of the side after it. How far the vertex sticks out
// from the line through its neighbours, measured against the unit square it may move in,
// gives a smoothness alpha; at alpha >= alphaMax the vertex stays a sharp corner,
// otherwise the segment is a Bézier curve whose control points lie on the two sides at
// a fraction (1+alpha)/2 of the way to the vertex.

// curve is a closed curve in the making: segment i ends at c[i][2], and runs around
// polygon vertex vertex[i]. A corner segment goes in two straight lines through c[i][1]
// (the vertex); a curve segment is the Bézier with control points c[i][0] and c[i][1].
type curve struct {
	corner []bool
	c      [][3]vec
	vertex []vec
	alpha  []float64 // the smoothness of curve segments, clamped to [0.55, 1]
}

func (c *curve) resize(m int) {
	if cap(c.corner) < m {
		m2 := m + m/4
		*c = curve{corner: make([]bool, m, m2), c: make([][3]vec, m, m2), vertex: make([]vec, m, m2), alpha: make([]float64, m, m2)}
		return
	}
	c.corner, c.c, c.vertex, c.alpha = c.corner[:m], c.c[:m], c.vertex[:m], c.alpha[:m]
}

// smooth builds s.smoothed from the polygon vertices in s.vertex.
func (s *scratch) smooth(alphaMax float64) {
	m := len(s.vertex)
	cv := &s.smoothed
	cv.resize(m)
	copy(cv.vertex, s.vertex)
	v := cv.vertex
	for i := 0; i < m; i++ {
		j, k := mod(i+1, m), mod(i+2, m)
		end := interval(0.5, v[k], v[j])
		alpha := 4.0 / 3
		if denom := math.Abs(v[k].x-v[i].x) + math.Abs(v[k].y-v[i].y); denom != 0 {
			// The distance of v_j from the line v_i v_k, relative to the reach of the
			// unit square along it.
			dd := math.Abs(dpara(v[i], v[j], v[k]) / denom)
			alpha = 0
			if dd > 1 {
				alpha = 1 - 1/dd
			}
			alpha /= 0.75
		}
		if alpha >= alphaMax {
			cv.corner[j] = true
			cv.c[j] = [3]vec{{}, v[j], end}
		} else {
			alpha = min(max(alpha, 0.55), 1)
			cv.corner[j] = false
			cv.c[j] = [3]vec{interval(0.5+0.5*alpha, v[i], v[j]), interval(0.5+0.5*alpha, v[k], v[j]), end}
		}
		cv.alpha[j] = alpha
	}
}

// interval returns the point a fraction l of the way from a to b.
func interval(l float64, a, b vec) vec {
	return vec{a.x + l*(b.x-a.x), a.y + l*(b.y-a.y)}
}

// dpara returns the cross product (p1-p0) x (p2-p0): twice the signed area of the
// triangle.
func dpara(p0, p1, p2 vec) float64 {
	return (p1.x-p0.x)*(p2.y-p0.y) - (p2.x-p0.x)*(p1.y-p0.y)
}

// cprod returns the cross product (p1-p0) x (p3-p2).
func cprod(p0, p1, p2, p3 vec) float64 {
	return (p1.x-p0.x)*(p3.y-p2.y) - (p3.x-p2.x)*(p1.y-p0.y)
}

// iprod returns the dot product (p1-p0) . (p2-p0).
func iprod(p0, p1, p2 vec) float64 {
	return (p1.x-p0.x)*(p2.x-p0.x) + (p1.y-p0.y)*(p2.y-p0.y)
}

// iprod1 returns the dot product (p1-p0) . (p3-p2).
func iprod1(p0, p1, p2, p3 vec) float64 {
	return (p1.x-p0.x)*(p3.x-p2.x) + (p1.y-p0.y)*(p3.y-p2.y)
}

// dist returns the Euclidean distance of p and q.
func dist(p, q vec) float64 {
	return math.Sqrt((p.x-q.x)*(p.x-q.x) + (p.y-q.y)*(p.y-q.y))
}

// bezier returns the point at parameter t of the cubic Bézier p0 p1 p2 p3.
func bezier(t float64, p0, p1, p2, p3 vec) vec {
	s := 1 - t
	return vec{
		s*s*s*p0.x + 3*(s*s*t)*p1.x + 3*(t*t*s)*p2.x + t*t*t*p3.x,
		s*s*s*p0.y + 3*(s*s*t)*p1.y + 3*(t*t*s)*p2.y + t*t*t*p3.y,
	}
}

// tangent returns the parameter in [0, 1] at which the Bézier p0 p1 p2 p3 runs parallel
// to q0 q1, or -1 if it nowhere does. The derivative's cross product with q1-q0 is a
// quadratic in t.
func tangent(p0, p1, p2, p3, q0, q1 vec) float64 {
	A := cprod(p0, p1, q0, q1)
	B := cprod(p1, p2, q0, q1)
	C := cprod(p2, p3, q0, q1)
	a := A - 2*B + C
	b := -2*A + 2*B
	c := A
	d := b*b - 4*a*c
	if a == 0 || d < 0 {
		return -1
	}
	sq := math.Sqrt(d)
	r1 := (-b + sq) / (2 * a)
	r2 := (-b - sq) / (2 * a)
	if r1 >= 0 && r1 <= 1 {
		return r1
	}
	if r2 >= 0 && r2 <= 1 {
		return r2
	}
	return -1
}
