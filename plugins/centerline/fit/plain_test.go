package fit

import (
	"math"
	"slices"
	"testing"
)

// This file keeps the plain forms of the fit's sped-up steps, as they were before,
// and tests that the fast forms give the same bits: the speed-ups keep the output.

// normal and distances are the fit's measure of a curve in its plain two-pass form,
// which pieces.cubic no longer calls (it takes distancesAt or slid, then equations):
// the tests check the step's equations through it, against their definition.

// normal returns the largest distance between pts and c at parameters u, the sum of
// the squared distances, and the normal equations of the Gauss-Newton step on (a1,
// a2) that minimises the squared distances measured across the curve, with each point
// free to slide along it: the step (d1, d2) solves [m11 m12; m12 m22] (d1, d2) =
// -(r1, r2), and slides parameter i by -(s[i][0] + s[i][1]*d1 + s[i][2]*d2). Once a
// distance exceeds stop, or the sum reaches most with a distance above tol, it returns
// the largest distance so far and an infinite sum: a step whose sum is not below most
// is taken back unless the curve is within tol. d is its scratch space, as long as
// pts. (cubic calls its halves apart: distancesAt or slid, then equations.)
func (c *curve) normal(pts []Vec, u []float64, s [][3]float64, d []Vec, stop, tol, most float64) sums {
	e := c.distances(pts, u, d, stop, tol, most)
	if !math.IsInf(e.sum, 1) {
		c.equations(u[:len(pts)], d, s, &e)
	}
	return e
}

// distances is normal's first half: the largest distance and the sum of the squared
// ones, leaving each inner point's offset from the curve in d. Most of a piece's fits
// need no more (they fit, or stray too far, or their step is taken back), so the
// normal equations wait until a step is taken (owl: 40 % of normal's calls).
func (c *curve) distances(pts []Vec, u []float64, d []Vec, stop, tol, most float64) sums {
	x0, y0, x1, y1, x2, y2, x3, y3 := c.controls()
	var worst, sum float64
	stop2, tol2 := stop*stop, tol*tol
	pts, u, d = pts[:len(pts)-1], u[:len(pts)-1], d[:len(pts)-1]
	for i := 1; i < len(pts); i++ {
		t := u[i]
		mt := 1 - t
		b0, b1, b2, b3 := mt*mt*mt, 3*mt*mt*t, 3*mt*t*t, t*t*t
		dx := b0*x0 + b1*x1 + b2*x2 + b3*x3 - pts[i].X
		dy := b0*y0 + b1*y1 + b2*y2 + b3*y3 - pts[i].Y
		d[i] = Vec{dx, dy}
		dd := dx*dx + dy*dy
		if dd > worst {
			worst = dd
			if dd > stop2 {
				return sums{worst: math.Sqrt(dd), sum: math.Inf(1)}
			}
		}
		sum += dd
		if sum >= most && worst > tol2 {
			return sums{worst: math.Sqrt(worst), sum: math.Inf(1)}
		}
	}
	return sums{worst: math.Sqrt(worst), sum: sum}
}

// normalPlain is curve.normal in one pass: the distances and the normal equations
// summed together at every point.
func (c *curve) normalPlain(pts []Vec, u []float64, s [][3]float64, stop, tol, most float64) sums {
	x0, y0, x1, y1, x2, y2, x3, y3 := c.controls()
	var e sums
	stop2, tol2 := stop*stop, tol*tol
	pts, u, s = pts[:len(pts)-1], u[:len(pts)-1], s[:len(pts)-1]
	for i := 1; i < len(pts); i++ {
		t := u[i]
		mt := 1 - t
		b0, b1, b2, b3 := mt*mt*mt, 3*mt*mt*t, 3*mt*t*t, t*t*t
		dx := b0*x0 + b1*x1 + b2*x2 + b3*x3 - pts[i].X
		dy := b0*y0 + b1*y1 + b2*y2 + b3*y3 - pts[i].Y
		dd := dx*dx + dy*dy
		if dd > e.worst {
			e.worst = dd
			if dd > stop2 {
				return sums{worst: math.Sqrt(dd), sum: math.Inf(1)}
			}
		}
		e.sum += dd
		if e.sum >= most && e.worst > tol2 {
			return sums{worst: math.Sqrt(e.worst), sum: math.Inf(1)}
		}
		// the curve's direction at t
		k0, k1, k2 := 3*mt*mt, 6*mt*t, 3*t*t
		gx := k0*(x1-x0) + k1*(x2-x1) + k2*(x3-x2)
		gy := k0*(y1-y0) + k1*(y2-y1) + k2*(y3-y2)
		gg := gx*gx + gy*gy
		if gg == 0 {
			s[i] = [3]float64{}
			continue
		}
		inv := 1 / gg
		// the offset and the control points' moves, across the curve and along it
		a1x, a1y, a2x, a2y := c.t1.X*b1, c.t1.Y*b1, c.t2.X*b2, c.t2.Y*b2
		rn := gx*dy - gy*dx
		j1 := gx*a1y - gy*a1x
		j2 := gx*a2y - gy*a2x
		e.m11 += j1 * j1 * inv
		e.m12 += j1 * j2 * inv
		e.m22 += j2 * j2 * inv
		e.r1 += j1 * rn * inv
		e.r2 += j2 * rn * inv
		s[i] = [3]float64{(gx*dx + gy*dy) * inv, (gx*a1x + gy*a1y) * inv, (gx*a2x + gy*a2y) * inv}
	}
	e.worst = math.Sqrt(e.worst)
	return e
}

// cubicPlain is pieces.cubic with normalPlain, the normal equations summed at every
// measurement, in scratch slices of its own.
func cubicPlain(q []Vec, u []float64, t1, t2 Vec, tol float64) (Segment, bool) {
	n := len(q)
	u = slices.Clone(u)
	w, v := make([][4]float64, n), make([]float64, n)
	s, z := make([][3]float64, n), make([][3]float64, n)
	v[0], v[n-1] = 0, 1
	first := generate(q, u, t1, t2, w)
	c := curve{p0: q[0], p3: q[n-1], t1: t1, t2: t2, a1: first.P1.sub(first.P0).dot(t1), a2: first.P2.sub(first.P3).dot(t2)}
	stop := hopeless * tol
	e := c.normalPlain(q, u, s, stop, tol, math.Inf(1))
	if e.worst <= tol || e.worst > stop {
		return c.segment(), e.worst <= tol
	}
	chord := c.p3.dist(c.p0)
	damp, last, rejected := firstDamping, e.worst, 0
	for range steps {
		m11, m12, m22 := e.m11*(1+damp), e.m12, e.m22*(1+damp)
		det := m11*m22 - m12*m12
		if !(math.Abs(det) > 1e-12) {
			break
		}
		next := c
		next.a1 = min(2*chord, max(chord*1e-3, c.a1-(e.r1*m22-e.r2*m12)/det))
		next.a2 = min(2*chord, max(chord*1e-3, c.a2-(m11*e.r2-m12*e.r1)/det))
		d1, d2 := next.a1-c.a1, next.a2-c.a2
		for k := 1; k < n-1; k++ {
			v[k] = clamp01(u[k] - (s[k][0] + s[k][1]*d1 + s[k][2]*d2))
		}
		ne := next.normalPlain(q, v, z, math.Inf(1), tol, e.sum)
		if ne.worst <= tol {
			return next.segment(), true
		}
		if ne.sum >= e.sum {
			if rejected++; rejected == rejections {
				break
			}
			damp *= 4
			continue
		}
		rejected = 0
		c, e, u, v, s, z = next, ne, v, u, z, s
		damp /= 4
		if e.worst-2*(last-e.worst) > tol {
			break
		}
		last = e.worst
	}
	return c.segment(), false
}

// same says whether a and b are the same bits, or both NaN.
func same(a, b float64) bool { return a == b && math.Signbit(a) == math.Signbit(b) || a != a && b != b }

func TestNormalInTwoHalvesIsNormalInOnePass(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
	}{
		{"three points", 3},
		{"short", 12},
		{"long", 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(30) {
				pts, u, _, seg := firstFit(seed, tc.n)
				c := curve{p0: seg.P0, p3: seg.P3, t1: startTangent(pts, 3), t2: endTangent(pts, 3)}
				c.a1, c.a2 = seg.P1.sub(seg.P0).dot(c.t1)*(0.8+0.03*float64(seed%10)), seg.P2.sub(seg.P3).dot(c.t2)
				want := c.normalPlain(pts, u, make([][3]float64, len(pts)), math.Inf(1), 0, math.Inf(1))
				for _, stop := range []struct{ stop, tol, most float64 }{
					{math.Inf(1), 0, math.Inf(1)},
					{want.worst / 2, 0, math.Inf(1)},
					{math.Inf(1), 0, want.sum / 2},
					{math.Inf(1), want.worst * 1.001, want.sum / 2},
				} {
					ws, gs := make([][3]float64, len(pts)), make([][3]float64, len(pts))
					want := c.normalPlain(pts, u, ws, stop.stop, stop.tol, stop.most)
					got := c.normal(pts, u, gs, make([]Vec, len(pts)), stop.stop, stop.tol, stop.most)
					if !same(got.worst, want.worst) || !same(got.sum, want.sum) ||
						!math.IsInf(want.sum, 1) && (!same(got.m11, want.m11) || !same(got.m12, want.m12) || !same(got.m22, want.m22) || !same(got.r1, want.r1) || !same(got.r2, want.r2)) {
						t.Fatalf("seed %d, %+v: got %+v, want %+v", seed, stop, got, want)
					}
					if !math.IsInf(want.sum, 1) && !slices.Equal(gs[1:len(pts)-1], ws[1:len(pts)-1]) {
						t.Fatalf("seed %d, %+v: slides %v, want %v", seed, stop, gs, ws)
					}
				}
			}
		})
	}
}

func TestCubicIsCubicWithNormalInOnePass(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		tol  float64
	}{
		{"short, tight", 8, 0.05},
		{"medium", 40, 0.3},
		{"long, loose", 200, 0.9},
		{"long, tight", 200, 0.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fits := 0
			for seed := range uint64(40) {
				pts := randomRun(100+seed, tc.n)
				var bf buffers
				pts = bf.smooth(pts, 2, 1)
				ps := pieces{pts: pts, reach: 3, arc: []float64{0}}
				ps.from(0)
				for j := 2; j < len(pts); j += 1 + j/4 {
					ps.chord(j)
					t1, t2 := startTangent(pts, 3), midTangent(pts, j, 3).mul(-1)
					want, wantOK := cubicPlain(ps.q, ps.u, t1, t2, tc.tol)
					got, ok := ps.cubic(t1, t2, tc.tol)
					if got != want || ok != wantOK {
						t.Fatalf("seed %d, piece 0..%d: %+v %v, want %+v %v", seed, j, got, ok, want, wantOK)
					}
					if ok {
						fits++
					}
				}
			}
			if fits == 0 {
				t.Fatalf("no piece fits: the test tries only failures")
			}
		})
	}
}

// smoothStepsPlain is buffers.smoothSteps stepping every point at every pass.
func smoothStepsPlain(run []Vec, passes int) []Vec {
	a := slices.Clone(run)
	b := make([]Vec, len(a))
	for s := range 2 * passes {
		f := taubinLambda
		if s%2 == 1 {
			f = taubinMu
		}
		b[0], b[len(a)-1] = a[0], a[len(a)-1]
		for i := 1; i+1 < len(a); i++ {
			lx := (a[i-1].X+a[i+1].X)/2 - a[i].X
			ly := (a[i-1].Y+a[i+1].Y)/2 - a[i].Y
			b[i] = Vec{a[i].X + f*lx, a[i].Y + f*ly}
		}
		a, b = b, a
	}
	return a
}

// smoothPlain is buffers.smooth returning every point, each end's points stepped
// from the end forwards by smoothStepsPlain.
func smoothPlain(run []Vec, passes int) []Vec {
	if len(run) < 3 || passes == 0 {
		return slices.Clone(run)
	}
	r := 2 * passes
	n := len(run)
	if n < 4*r+2 {
		return smoothStepsPlain(run, passes)
	}
	k := taubinKernel(passes)
	k0, kk := k[0], k[1:]
	out := make([]Vec, n)
	for i := r; i < n-r; i++ {
		x, y := k0*run[i].X, k0*run[i].Y
		for j, c := range kk {
			x += c * (run[i-1-j].X + run[i+1+j].X)
			y += c * (run[i-1-j].Y + run[i+1+j].Y)
		}
		out[i] = Vec{x, y}
	}
	copy(out[:r], smoothStepsPlain(run[:2*r+1], passes))
	copy(out[n-r:], smoothStepsPlain(run[n-2*r-1:], passes)[r+1:])
	return out
}

// TestSmoothTakesEveryFewPointsOfThePlainSmoothing smooths runs of all lengths (some
// stepped, some by the kernel) taking every few points, in buffers left dirty, and
// compares them bit for bit with the plain smoothing's points at the same places:
// the run's first, every every-th and its last.
func TestSmoothTakesEveryFewPointsOfThePlainSmoothing(t *testing.T) {
	for _, passes := range []int{0, 1, 5, 10} {
		for _, n := range []int{2, 3, 4, 8, 8*passes + 1, 8*passes + 2, 8*passes + 3, 8*passes + 4, 200, 201, 202} {
			for _, every := range []int{1, 2, 3, 4, 7} {
				for seed := range uint64(3) {
					run := randomRun(seed, n)
					whole := smoothPlain(run, passes)
					var want []Vec
					for k := 0; k < n-1; k += every {
						want = append(want, whole[k])
					}
					want = append(want, whole[n-1])
					var bf buffers
					bf.smooth(randomRun(seed+7, 300), passes, every) // leaves the buffers dirty
					if got := bf.smooth(run, passes, every); !slices.Equal(got, want) {
						t.Fatalf("passes %d, %d points, every %d, seed %d: %v, want %v", passes, n, every, seed, got, want)
					}
					if !slices.Equal(run, randomRun(seed, n)) {
						t.Fatalf("passes %d, %d points, every %d: the run was changed", passes, n, every)
					}
				}
			}
		}
	}
}

// TestSmoothStepsUpToAPointAreThePlainSteps steps runs only as far as their first
// few points need, and compares those bit for bit with the plain steps.
func TestSmoothStepsUpToAPointAreThePlainSteps(t *testing.T) {
	for _, passes := range []int{1, 5, 10} {
		for _, n := range []int{3, 9, 4*passes + 1, 60} {
			for upto := range n {
				run := randomRun(uint64(n+upto), n)
				want := smoothStepsPlain(run, passes)[:upto+1]
				if got := new(buffers).smoothSteps(run, passes, upto)[:upto+1]; !slices.Equal(got, want) {
					t.Fatalf("passes %d, %d points, up to %d: %v, want %v", passes, n, upto, got, want)
				}
			}
		}
	}
}
