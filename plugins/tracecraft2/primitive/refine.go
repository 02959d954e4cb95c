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

// maxParams is the most free parameters a shape has (a rectangle's six).
const maxParams = 6

// refine returns s moved to the least-squares fit of the free points.
func refine(s Shape, pts []fit.Point, border []bool) Shape {
	var p [maxParams]float64
	k := copy(p[:], s.params())
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
	// One buffer holds the residuals and the k columns of the Jacobian.
	buf := make([]float64, (k+1)*free)
	res := buf[:free]
	var jac [maxParams][]float64
	for j := range k {
		jac[j] = buf[(j+1)*free : (j+2)*free]
	}
	for range refineIterations {
		sh := s.withParams(p[:k]).frame()
		n := 0
		for i, q := range pts {
			if !border[i] {
				res[n] = sh.distance(q)
				n++
			}
		}
		for j := range k {
			h := 1e-4 * math.Max(1, math.Abs(p[j]))
			pp := p
			pp[j] += h
			sp := s.withParams(pp[:k]).frame()
			pp[j] -= 2 * h
			sm := s.withParams(pp[:k]).frame()
			n := 0
			for i, q := range pts {
				if !border[i] {
					jac[j][n] = (sp.distance(q) - sm.distance(q)) / (2 * h)
					n++
				}
			}
		}
		// Normal equations (JᵀJ + λ·diag) δ = -Jᵀr.
		var a system
		for r := range k {
			// JᵀJ is symmetric: entry (c, r) sums the same products in the same order.
			for c := range r {
				a[r][c] = a[c][r]
			}
			for c := r; c < k; c++ {
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
			m := a
			for r := range k {
				m[r][r] += lambda * math.Max(a[r][r], 1e-9)
			}
			delta, ok := m.solve(k)
			if !ok {
				break
			}
			next := p
			for j := range k {
				next[j] += delta[j]
			}
			if c := s.withParams(next[:k]).cost(pts, border); c < cur {
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
	return s.withParams(p[:k])
}

// system is an augmented matrix of up to maxParams equations: row r holds its
// coefficients, then its right-hand side at column k (the number of unknowns).
type system [maxParams][maxParams + 1]float64

// solve solves the k x k system in m by Gaussian elimination with partial pivoting.
func (m *system) solve(k int) ([maxParams]float64, bool) {
	var out [maxParams]float64
	for c := range k {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-12 {
			return out, false
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
	for r := range k {
		out[r] = m[r][k] / m[r][r]
	}
	return out, true
}
