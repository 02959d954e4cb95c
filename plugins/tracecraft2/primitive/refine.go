package primitive

import (
	"math"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
)

// The closed-form estimates are biased where the outline wobbles (a rectangle's extents
// take the outermost wobble, and its corner radius, from the area, doubles that error),
// so each candidate is refined by least squares on the signed distances of the points
// off the image border: Levenberg-Marquardt with numerical derivatives over the
// shape's parameters.

// refineIterations bounds the least-squares steps per candidate.
const refineIterations = 20

// params returns the shape's free parameters.
func (s Shape) params() []float64 {
	switch s.Kind {
	case Circle:
		return []float64{s.Center.X, s.Center.Y, s.R}
	case Ellipse:
		return []float64{s.Center.X, s.Center.Y, s.RX, s.RY, s.Angle}
	case Rect:
		return []float64{s.Center.X, s.Center.Y, s.W, s.H, s.Angle, s.R}
	}
	return nil
}

// withParams returns the shape with parameters p, kept valid (sizes positive, a
// rectangle's corner radius within half its smaller side).
func (s Shape) withParams(p []float64) Shape {
	s.Center = fit.Point{X: p[0], Y: p[1]}
	switch s.Kind {
	case Circle:
		s.R = math.Abs(p[2])
	case Ellipse:
		s.RX, s.RY, s.Angle = math.Abs(p[2]), math.Abs(p[3]), p[4]
	case Rect:
		s.W, s.H, s.Angle = math.Abs(p[2]), math.Abs(p[3]), p[4]
		s.R = math.Min(math.Max(p[5], 0), math.Min(s.W, s.H)/2)
	}
	return s
}

// cost returns the sum of squared signed distances of the free points.
func (s Shape) cost(pts []fit.Point, border []bool) float64 {
	var c float64
	f := s.frame()
	for i, p := range pts {
		if !border[i] {
			d := f.distance(p)
			c += d * d
		}
	}
	return c
}

// costWithin reports whether s.cost(pts, border) <= limit. It stops as soon as the sum
// passes limit: the terms are not negative, so the sum never falls back (most outlines
// tried are no basic shape and pass the limit early). The sum runs in cost's order, so
// the answer is cost's.
func (s Shape) costWithin(pts []fit.Point, border []bool, limit float64) bool {
	var c float64
	f := s.frame()
	for i, p := range pts {
		if !border[i] {
			d := f.distance(p)
			if c += d * d; c > limit {
				return false
			}
		}
	}
	return c <= limit
}

// refine returns s moved to the least-squares fit of the free points.
func refine(s Shape, pts []fit.Point, border []bool) Shape {
	p := s.params()
	k := len(p)
	if k == 0 {
		return s
	}
	free := 0
	for _, b := range border {
		if !b {
			free++
		}
	}
	cur := s.cost(pts, border)
	lambda := 1e-3
	jac := make([][]float64, k)
	for j := range jac {
		jac[j] = make([]float64, free)
	}
	res := make([]float64, free)
	for range refineIterations {
		sh := s.withParams(p).frame()
		n := 0
		for i, q := range pts {
			if !border[i] {
				res[n] = sh.distance(q)
				n++
			}
		}
		for j := range k {
			h := 1e-4 * math.Max(1, math.Abs(p[j]))
			pp := append([]float64(nil), p...)
			pp[j] += h
			sp := s.withParams(pp).frame()
			pp[j] -= 2 * h
			sm := s.withParams(pp).frame()
			n := 0
			for i, q := range pts {
				if !border[i] {
					jac[j][n] = (sp.distance(q) - sm.distance(q)) / (2 * h)
					n++
				}
			}
		}
		// Normal equations (JᵀJ + λ·diag) δ = -Jᵀr.
		a := make([][]float64, k)
		for r := range k {
			a[r] = make([]float64, k+1)
			for c := range k {
				var v float64
				for i := range free {
					v += jac[r][i] * jac[c][i]
				}
				a[r][c] = v
			}
			var g float64
			for i := range free {
				g += jac[r][i] * res[i]
			}
			a[r][k] = -g
		}
		improved := false
		for range 4 {
			m := make([][]float64, k)
			for r := range k {
				m[r] = append([]float64(nil), a[r]...)
				m[r][r] += lambda * math.Max(a[r][r], 1e-9)
			}
			delta, ok := solve(m)
			if !ok {
				break
			}
			next := append([]float64(nil), p...)
			for j := range k {
				next[j] += delta[j]
			}
			if c := s.withParams(next).cost(pts, border); c < cur {
				p, cur, improved = next, c, true
				lambda = math.Max(lambda/10, 1e-9)
				break
			}
			lambda *= 10
		}
		if !improved {
			break
		}
	}
	return s.withParams(p)
}

// solve solves the k x k system in the augmented matrix m by Gaussian elimination with
// partial pivoting.
func solve(m [][]float64) ([]float64, bool) {
	k := len(m)
	for c := range k {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-12 {
			return nil, false
		}
		m[c], m[p] = m[p], m[c]
		for r := range k {
			if r == c {
				continue
			}
			f := m[r][c] / m[c][c]
			for j := c; j <= k; j++ {
				m[r][j] -= f * m[c][j]
			}
		}
	}
	out := make([]float64, k)
	for r := range k {
		out[r] = m[r][k] / m[r][r]
	}
	return out, true
}
