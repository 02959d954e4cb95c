// Package fit approximates a chain of points with straight lines and cubic Bézier
// curves that stay within a tolerance of it: corners are found first, then each run
// between corners is smoothed without shrinking (so the fit follows the line, not the
// measuring noise along it) and fitted by least squares with chord-length parameters,
// refined by Newton steps and split at the worst point while the error is too large
// (after Schneider, "An algorithm for automatically fitting digitized curves", Graphics
// Gems, 1990).
package fit

import (
	"math"
	"slices"
)

// Vec is a point or vector.
type Vec struct{ X, Y float64 }

func (a Vec) add(b Vec) Vec      { return Vec{a.X + b.X, a.Y + b.Y} }
func (a Vec) sub(b Vec) Vec      { return Vec{a.X - b.X, a.Y - b.Y} }
func (a Vec) mul(s float64) Vec  { return Vec{a.X * s, a.Y * s} }
func (a Vec) dot(b Vec) float64  { return a.X*b.X + a.Y*b.Y }
func (a Vec) len() float64       { return math.Hypot(a.X, a.Y) }
func (a Vec) dist(b Vec) float64 { return a.sub(b).len() }
func (a Vec) unit() Vec {
	l := a.len()
	if l == 0 {
		return Vec{}
	}
	return a.mul(1 / l)
}

// Segment is a line (Line set; P1 and P2 unused) or a cubic from P0 to P3.
type Segment struct {
	Line           bool
	P0, P1, P2, P3 Vec
}

// Options control the fit.
type Options struct {
	// Tolerance is the largest distance allowed between a point, once smoothed, and
	// the fitted curve.
	Tolerance float64
	// CornerAngle is the smallest turn, in degrees, that makes a corner.
	CornerAngle float64
	// SmoothPasses is how many times the points are smoothed before the fit (0 takes
	// DefaultSmoothPasses): more passes take out more of the points' wobble, so that
	// the curves can be longer, and round the curve's sharpest bends a little more.
	SmoothPasses int
	// MaxSegments, when above 0, stops the fit once it has more segments than that:
	// Fit then returns the first MaxSegments+1 of them, for a caller that only needs
	// to know the fit costs more.
	MaxSegments int
}

// Fit returns the segments approximating pts, which a stroke runs through in order.
// When closed the segments form a loop, from the chain's sharpest bend back to it.
// radius gives the line's radius near each point (the corner detector looks that far
// along the line); it may be nil.
func Fit(pts []Vec, radius []float64, closed bool, o Options) []Segment {
	pts = dedupe(pts)
	if closed && len(pts) > 2 {
		// The fit starts and ends where the chain is closed, whose point joins two
		// pieces: at the sharpest bend, where the pieces would meet anyway, rather than
		// wherever the chain was found, which splits a curve. (Lineart corpus, filled
		// outlines: 0.437 -> 0.425 of the potrace engine's segments.)
		at := sharpest(pts)
		pts = append(rotate(pts, at), pts[at])
		if len(radius) == len(pts)-1 {
			radius = append(rotate(radius, at), radius[at])
		}
	}
	if len(pts) < 2 {
		return nil
	}
	corners := findCorners(pts, radius, o.CornerAngle)
	passes := o.SmoothPasses
	if passes <= 0 {
		passes = DefaultSmoothPasses
	}
	limit := math.MaxInt
	if o.MaxSegments > 0 {
		limit = o.MaxSegments + 1
	}
	var out []Segment
	for i := 1; i < len(corners) && len(out) < limit; i++ {
		out = fitRun(smooth(pts[corners[i-1]:corners[i]+1], passes), o.Tolerance, out, limit)
	}
	return out
}

// DefaultSmoothPasses is how many times smooth runs along a run unless Options say
// otherwise: the measured centre still wobbles by a fraction of a pixel from point to
// point, which a tight tolerance would otherwise follow with extra segments.
const DefaultSmoothPasses = 5

// smooth returns a copy of run smoothed without shrinking (Taubin, "A signal processing
// approach to fair surface design", 1995): each pass moves every inner point by lambda
// times the Laplacian (its neighbours' mean less itself), then by mu; the ends stay.
func smooth(run []Vec, passes int) []Vec {
	if len(run) < 3 || passes == 0 {
		return run
	}
	const lambda, mu = 0.5, -0.53
	a := append([]Vec(nil), run...)
	b := make([]Vec, len(a))
	step := func(f float64) {
		b[0], b[len(a)-1] = a[0], a[len(a)-1]
		for i := 1; i+1 < len(a); i++ {
			lx := (a[i-1].X+a[i+1].X)/2 - a[i].X
			ly := (a[i-1].Y+a[i+1].Y)/2 - a[i].Y
			b[i] = Vec{a[i].X + f*lx, a[i].Y + f*ly}
		}
		a, b = b, a
	}
	for ; passes > 0; passes-- {
		step(lambda)
		step(mu)
	}
	return a
}

func dedupe(pts []Vec) []Vec {
	out := make([]Vec, 0, len(pts))
	for _, p := range pts {
		if len(out) == 0 || out[len(out)-1].dist(p) > 1e-9 {
			out = append(out, p)
		}
	}
	return out
}

// findCorners returns the indexes that split pts: its ends and every point where the
// direction turns by at least angle degrees between the chords to the points about
// k pixels before and after it, keeping the sharpest point of each turn.
func findCorners(pts []Vec, radius []float64, angle float64) []int {
	n := len(pts)
	cs := []int{0}
	if angle > 0 && n > 4 {
		cosMax := math.Cos(angle * math.Pi / 180)
		turn := make([]float64, n)
		// cumulative arc length
		arc := make([]float64, n)
		for i := 1; i < n; i++ {
			arc[i] = arc[i-1] + pts[i].dist(pts[i-1])
		}
		for i := 1; i < n-1; i++ {
			k := 3.0
			if i < len(radius) {
				k = max(3, radius[i]*1.5)
			}
			a, b := i, i
			for a > 0 && arc[i]-arc[a] < k {
				a--
			}
			for b < n-1 && arc[b]-arc[i] < k {
				b++
			}
			if arc[i]-arc[a] < k*0.7 || arc[b]-arc[i] < k*0.7 {
				turn[i] = 1
				continue
			}
			u, v := pts[i].sub(pts[a]).unit(), pts[b].sub(pts[i]).unit()
			turn[i] = u.dot(v)
		}
		for i := 1; i < n-1; i++ {
			if turn[i] > cosMax {
				continue
			}
			// the sharpest within the turn
			j := i
			for j+1 < n-1 && turn[j+1] <= cosMax {
				j++
			}
			best := i
			for m := i; m <= j; m++ {
				if turn[m] < turn[best] {
					best = m
				}
			}
			if best > cs[len(cs)-1] {
				cs = append(cs, best)
			}
			i = j
		}
	}
	if cs[len(cs)-1] != n-1 {
		cs = append(cs, n-1)
	}
	return cs
}

// fitRun appends the segments of one run without corners: from its start, the
// longest stretch that one line or cubic fits within tol, found by doubling its length
// from the last piece's (pieces along a run are often alike) and then halving the step
// (a fit that fails for a stretch rarely holds for a longer one), then the next
// stretch from where that one ends, the curves meeting with a common tangent. Taking
// each piece as long as it can be needs fewer segments than splitting the run at its
// worst point until every part fits. It stops once out holds limit segments.
func fitRun(pts []Vec, tol float64, out []Segment, limit int) []Segment {
	n := len(pts)
	if n == 2 || withinLine(pts, tol) {
		return append(out, Segment{Line: true, P0: pts[0], P3: pts[n-1]})
	}
	// buffers the pieces' parameters reuse
	arc, u, d, wb := make([]float64, 1, n), make([]float64, 0, n), []Vec(nil), [][4]float64(nil)
	first := 4 // the first stretch tried: the last piece's length
	for i := 0; i < n-1 && len(out) < limit; {
		t1 := startTangent(pts[i:])
		if i > 0 {
			t1 = midTangent(pts, i)
		}
		ps := params{pts: pts, i: i, arc: arc[:1], u: u, d: d, w: wb}
		try := func(j int) (Segment, bool) { return fitPiece(&ps, j, t1, tol) }
		// good: the longest stretch known to fit (one step always does); bad: the
		// shortest known not to.
		good, bad := i+1, n
		best, _ := try(good)
		for step := first; ; step *= 2 {
			j := min(i+step, n-1)
			seg, ok := try(j)
			if !ok {
				bad = j
				break
			}
			good, best = j, seg
			if j == n-1 {
				break
			}
		}
		for bad-good > 1 {
			j := (good + bad) / 2
			if seg, ok := try(j); ok {
				good, best = j, seg
			} else {
				bad = j
			}
		}
		out = append(out, best)
		arc, u, d, wb = ps.arc, ps.u, ps.d, ps.w
		first = max(4, good-i)
		i = good
	}
	return out
}

// fitPiece fits pts[i..j] (pts and i from ps) with a line, or else a cubic leaving
// pts[i] along t1 and reaching pts[j] along the run's direction there, and says
// whether it stays within tol.
func fitPiece(ps *params, j int, t1 Vec, tol float64) (Segment, bool) {
	pts := ps.pts
	piece := pts[ps.i : j+1]
	if len(piece) == 2 || withinLine(piece, tol) {
		return Segment{Line: true, P0: piece[0], P3: piece[len(piece)-1]}, true
	}
	t2 := endTangent(piece)
	if j < len(pts)-1 {
		t2 = midTangent(pts, j).mul(-1)
	}
	u := ps.chord(j)
	ps.d = slices.Grow(ps.d[:0], len(piece))[:len(piece)]
	ps.w = slices.Grow(ps.w[:0], len(piece))[:len(piece)]
	seg := generate(piece, u, t1, t2, ps.w)
	stop := hopeless * tol
	errMax := maxError(piece, seg, ps.w, stop, ps.d)
	for k := 0; k < newtonSteps && errMax > tol && errMax <= stop; k++ {
		reparameterise(piece, seg, u, ps.d)
		seg = generate(piece, u, t1, t2, ps.w)
		last := errMax
		errMax = maxError(piece, seg, ps.w, stop, ps.d)
		// Give up when the error, falling as fast as in this step for every step
		// left, would still not come within tol.
		if k > 0 && errMax-float64(newtonSteps-1-k)*max(0, last-errMax) > tol {
			break
		}
	}
	return seg, errMax <= tol
}

// A piece is refitted by up to newtonSteps Newton steps on its parameters unless its
// first fit strays more than hopeless times the tolerance. Chord-length parameters
// are far from the closest points on a long piece of a wavy outline, and the steps
// bring them closer slowly: 6 steps and 4 times the tolerance (as Schneider gives
// them) left many pieces that fit split in two. (On the lineart images of the bench
// corpus: 0.459 -> 0.437 of the potrace engine's segments at 0.972 of its SSIM; 50
// steps give 0.426 for another 10 % of CPU. Most of the steps go to the pieces that
// fail, which the giving up cuts short.)
const (
	newtonSteps = 30
	hopeless    = 8
)

// params gives the chord-length parameters of the pieces pts[i..j] for one i and
// several j: the arc length from pts[i] is summed once, as far as asked, and each
// piece's parameters are that sum over its own length.
type params struct {
	pts    []Vec
	i      int
	arc, u []float64    // arc[k]: length from pts[i] to pts[i+k]; u: the last piece's parameters
	d      []Vec        // the last piece's curve points less its points (maxError's)
	w      [][4]float64 // the control points' weights at u (generate's)
}

// chord returns the chord-length parameters of pts[i..j] (each point's arc length
// from pts[i] over the piece's), in a buffer the next call reuses.
func (p *params) chord(j int) []float64 {
	for k := len(p.arc); k <= j-p.i; k++ {
		p.arc = append(p.arc, p.arc[k-1]+p.pts[p.i+k].dist(p.pts[p.i+k-1]))
	}
	total := p.arc[j-p.i]
	p.u = p.u[:0]
	for _, a := range p.arc[:j-p.i+1] {
		p.u = append(p.u, a/total)
	}
	return p.u
}

// midTangent returns the run's direction at its inner point i, from the points three
// before and after it.
func midTangent(pts []Vec, i int) Vec {
	a, b := max(0, i-3), min(len(pts)-1, i+3)
	return pts[b].sub(pts[a]).unit()
}

func withinLine(pts []Vec, tol float64) bool {
	a, b := pts[0], pts[len(pts)-1]
	d := b.sub(a)
	l := d.len()
	for _, p := range pts[1 : len(pts)-1] {
		var e float64
		if l == 0 {
			e = p.dist(a)
		} else {
			t := p.sub(a).dot(d) / (l * l)
			if t < 0 || t > 1 {
				return false
			}
			e = math.Abs(d.X*(p.Y-a.Y)-d.Y*(p.X-a.X)) / l
		}
		if e > tol {
			return false
		}
	}
	return true
}

func startTangent(pts []Vec) Vec {
	k := min(len(pts)-1, 3)
	return pts[k].sub(pts[0]).unit()
}

func endTangent(pts []Vec) Vec {
	n := len(pts)
	k := min(n-1, 3)
	return pts[n-1-k].sub(pts[n-1]).unit()
}

// basis returns the cubic Bernstein polynomials at t: the weights of a cubic's four
// control points at t.
func basis(t float64) [4]float64 {
	mt := 1 - t
	return [4]float64{mt * mt * mt, 3 * mt * mt * t, 3 * mt * t * t, t * t * t}
}

// at returns the point of s whose control points' weights are b.
func (s *Segment) at(b *[4]float64) Vec {
	return Vec{b[0]*s.P0.X + b[1]*s.P1.X + b[2]*s.P2.X + b[3]*s.P3.X, b[0]*s.P0.Y + b[1]*s.P1.Y + b[2]*s.P2.Y + b[3]*s.P3.Y}
}

// generate finds the control-point distances along t1 and t2 minimising the squared
// error at parameters u, and keeps in w the control points' weights at each u[i].
func generate(pts []Vec, u []float64, t1, t2 Vec, w [][4]float64) Segment {
	p0, p3 := pts[0], pts[len(pts)-1]
	var c00, c01, c11, x0, x1 float64
	u, w = u[:len(pts)], w[:len(pts)]
	// In scalars, each product and sum as Vec's methods take them, in their order;
	// in two loops, each sum in the one that needs fewer values at once.
	for i := range pts {
		t := u[i]
		mt := 1 - t
		b0, b1, b2, b3 := mt*mt*mt, 3*mt*mt*t, 3*mt*t*t, t*t*t
		w[i] = [4]float64{b0, b1, b2, b3}
		a1x, a1y, a2x, a2y := t1.X*b1, t1.Y*b1, t2.X*b2, t2.Y*b2
		c00 += a1x*a1x + a1y*a1y
		c01 += a1x*a2x + a1y*a2y
		c11 += a2x*a2x + a2y*a2y
	}
	for i, p := range pts {
		b := &w[i]
		a1x, a1y, a2x, a2y := t1.X*b[1], t1.Y*b[1], t2.X*b[2], t2.Y*b[2]
		s, e := b[0]+b[1], b[2]+b[3]
		tx, ty := p.X-p0.X*s-p3.X*e, p.Y-p0.Y*s-p3.Y*e
		x0 += a1x*tx + a1y*ty
		x1 += a2x*tx + a2y*ty
	}
	det := c00*c11 - c01*c01
	chord := p3.dist(p0)
	var al1, al2 float64
	if math.Abs(det) > 1e-12 {
		al1 = (x0*c11 - x1*c01) / det
		al2 = (c00*x1 - c01*x0) / det
	}
	if al1 < chord*1e-3 || al2 < chord*1e-3 || al1 > chord*2 || al2 > chord*2 {
		al1, al2 = chord/3, chord/3
	}
	return Segment{P0: p0, P1: p0.add(t1.mul(al1)), P2: p3.add(t2.mul(al2)), P3: p3}
}

// maxError returns the largest distance between pts and s at the points whose
// control-point weights are w (generate's), or, once one exceeds stop, that one; it
// keeps in diff each inner point's offset, the curve's point less pts[i] (up to the one
// past stop). A distance is taken only when its square comes near the largest so far,
// so the result is the same as taking all.
func maxError(pts []Vec, s Segment, w [][4]float64, stop float64, diff []Vec) float64 {
	var worst, near float64 // near: below it, a squared distance cannot beat worst
	// s.at in scalars, the same products and sums in the same order
	x0, x1, x2, x3 := s.P0.X, s.P1.X, s.P2.X, s.P3.X
	y0, y1, y2, y3 := s.P0.Y, s.P1.Y, s.P2.Y, s.P3.Y
	w, diff = w[:len(pts)], diff[:len(pts)]
	for i := 1; i < len(pts)-1; i++ {
		b := &w[i]
		d := Vec{b[0]*x0 + b[1]*x1 + b[2]*x2 + b[3]*x3 - pts[i].X, b[0]*y0 + b[1]*y1 + b[2]*y2 + b[3]*y3 - pts[i].Y}
		diff[i] = d
		if d.X*d.X+d.Y*d.Y < near {
			continue
		}
		if l := d.len(); l > worst {
			worst = l
			if worst > stop {
				return worst
			}
			near = worst * worst * (1 - 1e-9)
		}
	}
	return worst
}

// reparameterise moves each parameter of u, in place, by one Newton step towards the
// closest point of s (each depends on its own point alone); diff holds s at u[i] less
// pts[i] for each inner point, as maxError left it.
func reparameterise(pts []Vec, s Segment, u []float64, diff []Vec) {
	d1 := [3]Vec{s.P1.sub(s.P0).mul(3), s.P2.sub(s.P1).mul(3), s.P3.sub(s.P2).mul(3)}
	d2 := [2]Vec{d1[1].sub(d1[0]).mul(2), d1[2].sub(d1[1]).mul(2)}
	// in scalars, the same products and sums in the same order
	ax, bx, cx, ex, fx := d1[0].X, d1[1].X, d1[2].X, d2[0].X, d2[1].X
	ay, by, cy, ey, fy := d1[0].Y, d1[1].Y, d1[2].Y, d2[0].Y, d2[1].Y
	u, diff = u[:len(pts)], diff[:len(pts)]
	for i := 1; i < len(pts)-1; i++ {
		t := u[i]
		mt := 1 - t
		k0, k1, k2 := mt*mt, 2*mt*t, t*t
		q1x, q1y := ax*k0+bx*k1+cx*k2, ay*k0+by*k1+cy*k2
		q2x, q2y := ex*mt+fx*t, ey*mt+fy*t
		d := diff[i]
		num := d.X*q1x + d.Y*q1y
		den := q1x*q1x + q1y*q1y + (d.X*q2x + d.Y*q2y)
		if den != 0 {
			u[i] = clamp01(t - num/den)
		}
	}
}

// clamp01 returns min(1, max(0, v)) in two comparisons: -0 becomes +0, NaN stays NaN.
func clamp01(v float64) float64 {
	switch {
	case v <= 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// rotate returns a copy of s starting at s[at] and wrapping around.
func rotate[T any](s []T, at int) []T {
	return append(slices.Clone(s[at:]), s[:at]...)
}

// sharpest returns the index of the closed chain pts's sharpest bend: where the
// direction between the chords to the points about 3 pixels before and after turns
// most (the nearest points at least that far along the chain, within half of it).
func sharpest(pts []Vec) int {
	n := len(pts)
	const k = 3.0
	// arc[j]: the length along the chain, three times round, from pts[0] to
	// pts[j%n]; the points before and after point i (at j = n+i) move forward with i.
	arc := make([]float64, 3*n)
	for j := 1; j < 3*n; j++ {
		arc[j] = arc[j-1] + pts[j%n].dist(pts[(j-1)%n])
	}
	best, at := 2.0, 0
	a, b := 0, 0
	for i := range n {
		j := n + i
		// a: the nearest point at least k before j, at most n/2 points past j-1
		for a+1 < j && arc[j]-arc[a+1] >= k {
			a++
		}
		back := a
		if back < j-1-n/2 || arc[j]-arc[back] < k {
			back = j - 1 - n/2
		}
		// b: the nearest point at least k after j, likewise
		b = max(b, j+1)
		for b < j+1+n/2 && arc[b]-arc[j] < k {
			b++
		}
		c := pts[i].sub(pts[back%n]).unit().dot(pts[b%n].sub(pts[i]).unit())
		if c < best {
			best, at = c, i
		}
	}
	return at
}
