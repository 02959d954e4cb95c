// Package fit turns the sample points of a boundary into a short path of lines and cubic
// Bézier curves that stays within a tolerance of every sample: corners are found where
// the boundary turns sharply and kept sharp; between corners a line is used where it is
// close enough, else cubics fitted by least squares with Newton reparametrisation
// (P. J. Schneider, "An Algorithm for Automatically Fitting Digitized Curves", Graphics
// Gems, 1990), split at the worst sample until they fit, with matching tangents at the
// splits.
package fit

import "math"

// Options control the fit.
type Options struct {
	// Tolerance is the largest distance in pixels allowed between a sample and the
	// path.
	Tolerance float64
	// CornerAngle is the smallest turn, in radians, kept as a sharp corner; 0 means
	// DefaultCornerAngle.
	CornerAngle float64
}

// DefaultCornerAngle is the turn above which a boundary keeps a sharp corner: 55°.
const DefaultCornerAngle = 55 * math.Pi / 180

// cornerReach is how far (in pixels of arc) on each side of a gap the boundary's
// direction is measured when looking for corners.
const cornerReach = 2.0

// minTolerance keeps fitting finite when the tolerance is 0: the samples are then
// followed to a hundredth of a pixel.
const minTolerance = 0.01

func (o Options) norm() Options {
	if o.Tolerance < minTolerance {
		o.Tolerance = minTolerance
	}
	if o.CornerAngle <= 0 {
		o.CornerAngle = DefaultCornerAngle
	}
	return o
}

// Open fits a boundary that runs from one fixed point to another through samples.
func Open(from, to Point, samples []Point, opt Options) Path {
	opt = opt.norm()
	p := Path{From: from}
	gaps := corners(samples, false, opt.CornerAngle)
	var w *walk
	if len(gaps) > 0 {
		w = newWalk(samples, false)
	}
	anchor := from
	next := 0 // first sample of the current piece
	var tIn Point
	for _, g := range gaps {
		c := cornerPoint(w, g)
		p.Segs = fitPiece(p.Segs, anchor, c, samples[next:g+1], tIn, Point{}, opt.Tolerance, 0)
		anchor, next = c, g+1
	}
	p.Segs = fitPiece(p.Segs, anchor, to, samples[next:], tIn, Point{}, opt.Tolerance, 0)
	return p
}

// Closed fits a closed boundary through samples, which go once around it. The path
// starts and ends at the same point: a corner if the boundary has one.
func Closed(samples []Point, opt Options) Path {
	opt = opt.norm()
	n := len(samples)
	if n < 3 {
		p := Path{From: samples[0]}
		for i := 1; i <= n; i++ {
			p.Segs = append(p.Segs, Segment{To: samples[i%n]})
		}
		return p
	}
	gaps := corners(samples, true, opt.CornerAngle)
	if len(gaps) == 0 {
		// A smooth loop: two pieces between opposite samples, with smooth tangents.
		h := n / 2
		t0, th := tangentAt(samples, 0, true), tangentAt(samples, h, true)
		p := Path{From: samples[0]}
		p.Segs = fitPiece(p.Segs, samples[0], samples[h], samples[1:h], t0, th, opt.Tolerance, 0)
		rest := samples[h+1:]
		p.Segs = fitPiece(p.Segs, samples[h], samples[0], rest, th, t0, opt.Tolerance, 0)
		return p
	}
	pts := make([]Point, len(gaps))
	w := newWalk(samples, true)
	for i, g := range gaps {
		pts[i] = cornerPoint(w, g)
	}
	p := Path{From: pts[0]}
	for i, g := range gaps {
		ng := gaps[(i+1)%len(gaps)]
		var piece []Point
		for j := g + 1; ; j++ {
			k := j % n
			piece = append(piece, samples[k])
			if k == ng {
				break
			}
		}
		p.Segs = fitPiece(p.Segs, pts[i], pts[(i+1)%len(gaps)], piece, Point{}, Point{}, opt.Tolerance, 0)
	}
	return p
}

// corners returns the gaps (a gap g lies between samples g and g+1) where the boundary
// turns by at least minAngle, each the sharpest turn within two gaps around it.
func corners(s []Point, closed bool, minAngle float64) []int {
	n := len(s)
	ngaps := n - 1
	if closed {
		ngaps = n
	}
	if ngaps <= 0 {
		return nil
	}
	w := newWalk(s, closed)
	angle := make([]float64, ngaps)
	turn := func(g int, reach float64) float64 {
		back, okb := w.reachBy(g, -1, reach)
		fwd, okf := w.reachBy(g+1, 1, reach)
		if !okb || !okf {
			return 0
		}
		u, v := w.at(g).Sub(back), fwd.Sub(w.at(g+1))
		if u == (Point{}) || v == (Point{}) {
			return 0
		}
		return math.Abs(math.Atan2(u.Cross(v), u.Dot(v)))
	}
	for g := 0; g < ngaps; g++ {
		// The turn must show at both scales: measured over cornerReach alone, the
		// middle of a narrow notch looks sharper than its two real corners. Below
		// minAngle the value only has to stay below it (it is no corner and loses
		// every comparison with one), so the second scale is skipped.
		angle[g] = turn(g, cornerReach)
		if angle[g] >= minAngle {
			angle[g] = min(angle[g], turn(g, cornerReach/2))
		}
	}
	var out []int
	for g := 0; g < ngaps; g++ {
		if angle[g] < minAngle {
			continue
		}
		peak := true
		for d := -2; d <= 2 && peak; d++ {
			if d == 0 {
				continue
			}
			h := g + d
			if closed {
				h = ((h % ngaps) + ngaps) % ngaps
			} else if h < 0 || h >= ngaps {
				continue
			}
			if angle[h] > angle[g] || angle[h] == angle[g] && d < 0 {
				peak = false
			}
		}
		if peak {
			out = append(out, g)
		}
	}
	return out
}

// walk measures arc length along samples, wrapping around when closed.
type walk struct {
	s      []Point
	closed bool
	arc    []float64 // arc[i]: length from s[0] to s[i]; for closed, arc[n] closes the loop
}

func newWalk(s []Point, closed bool) *walk {
	n := len(s)
	w := &walk{s: s, closed: closed, arc: make([]float64, n+1)}
	for i := 1; i < n; i++ {
		w.arc[i] = w.arc[i-1] + s[i].Sub(s[i-1]).Len()
	}
	w.arc[n] = w.arc[n-1] + s[0].Sub(s[n-1]).Len()
	return w
}

func (w *walk) at(i int) Point {
	n := len(w.s)
	return w.s[((i%n)+n)%n]
}

// pos returns the arc position of virtual index i (which may lie beyond the ends of a
// closed loop).
func (w *walk) pos(i int) float64 {
	n := len(w.s)
	k := ((i % n) + n) % n
	laps := (i - k) / n
	return w.arc[k] + float64(laps)*w.arc[n]
}

// reach walks from sample i in direction step until cornerReach of arc is covered and
// returns the point reached; false if the samples end first.
func (w *walk) reach(i, step int) (Point, bool) { return w.reachBy(i, step, cornerReach) }

// reachBy is reach with another arc length.
func (w *walk) reachBy(i, step int, reach float64) (Point, bool) {
	n := len(w.s)
	if w.closed && w.arc[n] < 2*reach {
		return Point{}, false
	}
	p0 := w.pos(i)
	for k := 1; k <= n; k++ {
		j := i + step*k
		if !w.closed && (j < 0 || j >= n) {
			return Point{}, false
		}
		if math.Abs(w.pos(j)-p0) >= reach {
			return w.at(j), true
		}
	}
	return Point{}, false
}

// cornerPoint places the corner at gap g where the lines through the samples before and
// after it meet, or between the two samples when the lines are nearly parallel or meet
// far away.
func cornerPoint(w *walk, g int) Point {
	a, b := w.at(g), w.at(g+1)
	mid := a.Lerp(b, 0.5)
	back, okb := w.reach(g, -1)
	fwd, okf := w.reach(g+1, 1)
	if !okb || !okf {
		return mid
	}
	u, v := a.Sub(back).Unit(), fwd.Sub(b).Unit()
	den := u.Cross(v)
	if math.Abs(den) < 0.2 {
		return mid
	}
	t := b.Sub(a).Cross(v) / den
	c := a.Add(u.Mul(t))
	if c.Sub(mid).Len() > 1.5 {
		return mid
	}
	return c
}

// tangentAt estimates the unit tangent at sample i from its neighbours.
func tangentAt(s []Point, i int, closed bool) Point {
	n := len(s)
	k := 2
	if closed {
		return s[(i+k)%n].Sub(s[((i-k)%n+n)%n]).Unit()
	}
	return s[min(n-1, i+k)].Sub(s[max(0, i-k)]).Unit()
}

// endTangent estimates the unit direction leaving a along pts (or arriving at the end
// when pts is walked backwards by the caller): the mean direction to the samples within
// three pixels, else to the farthest one.
func endTangent(a Point, pts []Point, fallback Point) Point {
	var sum Point
	for _, p := range pts {
		d := p.Sub(a)
		if d.Len() > 3 {
			break
		}
		sum = sum.Add(d)
	}
	if t := sum.Unit(); t != (Point{}) {
		return t
	}
	if len(pts) > 0 {
		if t := pts[0].Sub(a).Unit(); t != (Point{}) {
			return t
		}
	}
	return fallback.Sub(a).Unit()
}

// maxDepth bounds the recursion of fitPiece; below it pieces end as polylines.
const maxDepth = 24

// fitPiece appends segments from a to b that pass within tol of pts (the samples
// between them, in order). tA and tB are the unit tangents at a (leaving) and b
// (arriving), or zero to estimate them from the samples.
func fitPiece(dst []Segment, a, b Point, pts []Point, tA, tB Point, tol float64, depth int) []Segment {
	if len(pts) == 0 {
		return append(dst, Segment{To: b})
	}
	worst, _ := lineError(a, b, pts)
	if worst <= tol {
		return append(dst, Segment{To: b})
	}
	if len(pts) < 3 || depth >= maxDepth {
		for _, p := range pts {
			dst = append(dst, Segment{To: p})
		}
		return append(dst, Segment{To: b})
	}
	if tA == (Point{}) {
		tA = endTangent(a, pts, b)
	}
	if tB == (Point{}) {
		rev := make([]Point, len(pts))
		for i, p := range pts {
			rev[len(pts)-1-i] = p
		}
		tB = endTangent(b, rev, a).Mul(-1)
	}
	u := chordParams(a, b, pts)
	var c1, c2 Point
	var errMax float64
	var split int
	for iter := 0; ; iter++ {
		c1, c2 = solveControls(a, b, pts, u, tA, tB)
		errMax, split = curveError(a, c1, c2, b, pts, u)
		if errMax <= tol {
			return append(dst, Segment{Cubic: true, C1: c1, C2: c2, To: b})
		}
		if iter >= 3 || errMax > 8*tol {
			break
		}
		reparam(a, c1, c2, b, pts, u)
	}
	// Split at the worst sample, keeping the curve smooth there.
	if split <= 0 {
		split = 1
	}
	if split >= len(pts)-1 {
		split = len(pts) - 2
	}
	var tm Point
	lo, hi := max(0, split-2), min(len(pts)-1, split+2)
	tm = pts[hi].Sub(pts[lo]).Unit()
	if tm == (Point{}) {
		tm = b.Sub(a).Unit()
	}
	dst = fitPiece(dst, a, pts[split], pts[:split], tA, tm, tol, depth+1)
	return fitPiece(dst, pts[split], b, pts[split+1:], tm, tB, tol, depth+1)
}

// lineError returns the largest distance from pts to the segment ab and where it is.
func lineError(a, b Point, pts []Point) (float64, int) {
	worst, at := 0.0, 0
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	for i, p := range pts {
		ap := p.Sub(a)
		t := 0.0
		if l2 > 0 {
			t = math.Max(0, math.Min(1, ap.Dot(ab)/l2))
		}
		e := ap.Sub(ab.Mul(t))
		if d := e.Dot(e); d > worst {
			worst, at = d, i
		}
	}
	return math.Sqrt(worst), at
}

// chordParams assigns each sample a parameter in (0, 1) by its arc length along the
// polyline a, pts..., b.
func chordParams(a, b Point, pts []Point) []float64 {
	u := make([]float64, len(pts))
	total := 0.0
	prev := a
	for i, p := range pts {
		total += p.Sub(prev).Len()
		u[i] = total
		prev = p
	}
	total += b.Sub(prev).Len()
	if total == 0 {
		for i := range u {
			u[i] = float64(i+1) / float64(len(u)+1)
		}
		return u
	}
	for i := range u {
		u[i] /= total
	}
	return u
}

// solveControls finds the control points a + α1·tA and b - α2·tB that fit pts at
// parameters u best in the least-squares sense.
func solveControls(a, b Point, pts []Point, u []float64, tA, tB Point) (Point, Point) {
	var c00, c01, c11, x0, x1 float64
	for i, p := range pts {
		t := u[i]
		mt := 1 - t
		b0, b1, b2, b3 := mt*mt*mt, 3*mt*mt*t, 3*mt*t*t, t*t*t
		a1 := tA.Mul(b1)
		a2 := tB.Mul(-b2)
		c00 += a1.Dot(a1)
		c01 += a1.Dot(a2)
		c11 += a2.Dot(a2)
		r := p.Sub(a.Mul(b0 + b1)).Sub(b.Mul(b2 + b3))
		x0 += a1.Dot(r)
		x1 += a2.Dot(r)
	}
	chord := b.Sub(a).Len()
	det := c00*c11 - c01*c01
	var al1, al2 float64
	if math.Abs(det) > 1e-12 {
		al1 = (x0*c11 - x1*c01) / det
		al2 = (c00*x1 - c01*x0) / det
	}
	eps := 1e-6 * chord
	if al1 < eps || al2 < eps || al1 > 3*chord || al2 > 3*chord {
		al1, al2 = chord/3, chord/3
	}
	return a.Add(tA.Mul(al1)), b.Sub(tB.Mul(al2))
}

// curveError returns the largest distance between pts and the curve at their parameters,
// and the index of that sample.
func curveError(p0, p1, p2, p3 Point, pts []Point, u []float64) (float64, int) {
	worst, at := 0.0, len(pts)/2
	for i, p := range pts {
		e := bezier(p0, p1, p2, p3, u[i]).Sub(p)
		if d := e.Dot(e); d > worst {
			worst, at = d, i
		}
	}
	return math.Sqrt(worst), at
}

// reparam moves each parameter one Newton step toward the curve point nearest its sample.
func reparam(p0, p1, p2, p3 Point, pts []Point, u []float64) {
	d1 := [3]Point{p1.Sub(p0).Mul(3), p2.Sub(p1).Mul(3), p3.Sub(p2).Mul(3)}
	d2 := [2]Point{d1[1].Sub(d1[0]).Mul(2), d1[2].Sub(d1[1]).Mul(2)}
	for i, p := range pts {
		t := u[i]
		mt := 1 - t
		q := bezier(p0, p1, p2, p3, t)
		q1 := d1[0].Mul(mt * mt).Add(d1[1].Mul(2 * mt * t)).Add(d1[2].Mul(t * t))
		q2 := d2[0].Mul(mt).Add(d2[1].Mul(t))
		diff := q.Sub(p)
		num := diff.Dot(q1)
		den := q1.Dot(q1) + diff.Dot(q2)
		if den == 0 {
			continue
		}
		if nt := t - num/den; nt > 0 && nt < 1 {
			u[i] = nt
		}
	}
}
