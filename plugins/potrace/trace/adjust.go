package trace

import "math"

// This file is stage 3 of the paper (section 2.3): vertex adjustment. Each side of the
// optimal polygon is replaced by the least-squares line through the path vertices it
// stands for, and each polygon vertex moves to the point that is closest (in squared
// distance) to its two adjacent lines while staying within the unit square centred on
// the original vertex.

// vec is a point or vector in the plane.
type vec struct{ x, y float64 }

// quad is a quadratic form on (x, y, 1): q(p) = (x, y, 1) Q (x, y, 1)^T.
type quad [3][3]float64

func (q *quad) add(r *quad) {
	for i := range q {
		for j := range q[i] {
			q[i][j] += r[i][j]
		}
	}
}

// at evaluates the form at p.
func (q *quad) at(p vec) float64 {
	v := [3]float64{p.x, p.y, 1}
	sum := 0.0
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			sum += v[i] * q[i][j] * v[j]
		}
	}
	return sum
}

// lineQuad returns the form giving the squared distance from the line through c with
// direction dir (zero when dir is zero).
func lineQuad(c, dir vec) quad {
	var q quad
	d := dir.x*dir.x + dir.y*dir.y
	if d == 0 {
		return q
	}
	v := [3]float64{dir.y, -dir.x, 0} // the normal, then the offset
	v[2] = -v[1]*c.y - v[0]*c.x
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			q[i][j] = v[i] * v[j] / d
		}
	}
	return q
}

// fitLine returns the centroid and the unit direction of the least-squares line through
// vertices v_i..v_j (j may pass n, wrapping round), relative to the path's first
// vertex: the principal axis of their covariance.
func (s *scratch) fitLine(n, i, j int) (ctr, dir vec) {
	r := 0
	for j >= n {
		j -= n
		r++
	}
	a, b := s.sums[i], s.sums[j+1]
	x, y, xx, xy, yy := b.x-a.x, b.y-a.y, b.xx-a.xx, b.xy-a.xy, b.yy-a.yy
	if r > 0 {
		t, f := s.sums[n], float64(r)
		x, y, xx, xy, yy = x+f*t.x, y+f*t.y, xx+f*t.xx, xy+f*t.xy, yy+f*t.yy
	}
	k := float64(j + 1 - i + r*n)
	ctr = vec{x / k, y / k}
	// The covariance matrix [[ca, cb], [cb, cc]] and its larger eigenvalue.
	ca := (xx - x*x/k) / k
	cb := (xy - x*y/k) / k
	cc := (yy - y*y/k) / k
	lambda := (ca + cc + math.Sqrt((ca-cc)*(ca-cc)+4*cb*cb)) / 2
	ca -= lambda
	cc -= lambda
	// The eigenvector is orthogonal to both rows of the shifted matrix; use the longer
	// row for accuracy.
	var l float64
	if math.Abs(ca) >= math.Abs(cc) {
		if l = math.Sqrt(ca*ca + cb*cb); l != 0 {
			dir = vec{-cb / l, ca / l}
		}
	} else {
		if l = math.Sqrt(cc*cc + cb*cb); l != 0 {
			dir = vec{-cc / l, cb / l}
		}
	}
	return ctr, dir
}

// adjustVertices fills s.vertex with the adjusted polygon vertices (absolute
// coordinates), from s.poly.
func (s *scratch) adjustVertices(pts []point) {
	n, m := len(pts), len(s.poly)
	po := s.poly
	if cap(s.quads) < m {
		s.quads = make([]quad, m, m+m/4)
	}
	quads := s.quads[:m]
	for i := 0; i < m; i++ {
		j := po[0] + n // the last side closes the polygon
		if i+1 < m {
			j = po[i+1]
		}
		j = mod(j-po[i], n) + po[i]
		c, d := s.fitLine(n, po[i], j)
		quads[i] = lineQuad(c, d)
	}
	vertex := grow(s.vertex, m)
	s.vertex = vertex
	x0, y0 := float64(pts[0].x), float64(pts[0].y)
	for i := 0; i < m; i++ {
		// The original vertex, relative to the first one, centres the unit square.
		sq := vec{float64(pts[po[i]].x) - x0, float64(pts[po[i]].y) - y0}
		q := quads[mod(i-1, m)]
		q.add(&quads[i])
		var w vec
		for {
			det := q[0][0]*q[1][1] - q[0][1]*q[1][0]
			if det != 0 {
				w.x = (-q[0][2]*q[1][1] + q[1][2]*q[0][1]) / det
				w.y = (q[0][2]*q[1][0] - q[1][2]*q[0][0]) / det
				break
			}
			// The two lines are parallel: add the line through the square's centre at
			// right angles to them, whose direction is the null vector of the form.
			var v [3]float64
			switch {
			case q[0][0] > q[1][1]:
				v[0], v[1] = -q[0][1], q[0][0]
			case q[1][1] != 0:
				v[0], v[1] = -q[1][1], q[1][0]
			default:
				v[0], v[1] = 1, 0
			}
			d := v[0]*v[0] + v[1]*v[1]
			v[2] = -v[1]*sq.y - v[0]*sq.x
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					q[a][b] += v[a] * v[b] / d
				}
			}
		}
		if math.Abs(w.x-sq.x) <= 0.5 && math.Abs(w.y-sq.y) <= 0.5 {
			vertex[i] = vec{w.x + x0, w.y + y0}
			continue
		}
		// The minimum is outside the square: take the best of the square's centre, the
		// minima along its four sides and its four corners.
		best, bp := q.at(sq), sq
		if q[0][0] != 0 {
			for z := 0; z < 2; z++ { // the bottom and top sides
				p := vec{0, sq.y - 0.5 + float64(z)}
				p.x = -(q[0][1]*p.y + q[0][2]) / q[0][0]
				if v := q.at(p); math.Abs(p.x-sq.x) <= 0.5 && v < best {
					best, bp = v, p
				}
			}
		}
		if q[1][1] != 0 {
			for z := 0; z < 2; z++ { // the left and right sides
				p := vec{sq.x - 0.5 + float64(z), 0}
				p.y = -(q[1][0]*p.x + q[1][2]) / q[1][1]
				if v := q.at(p); math.Abs(p.y-sq.y) <= 0.5 && v < best {
					best, bp = v, p
				}
			}
		}
		for a := 0; a < 2; a++ {
			for b := 0; b < 2; b++ {
				p := vec{sq.x - 0.5 + float64(a), sq.y - 0.5 + float64(b)}
				if v := q.at(p); v < best {
					best, bp = v, p
				}
			}
		}
		vertex[i] = vec{bp.x + x0, bp.y + y0}
	}
}
