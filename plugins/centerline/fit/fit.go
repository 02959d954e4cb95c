// Package fit approximates a chain of points with straight lines and cubic Bézier
// curves that stay within a tolerance of it: corners are found first, then each run
// between corners is smoothed without shrinking (so the fit follows the line, not the
// measuring noise along it) and cut into the longest pieces that one cubic fits. A
// piece's cubic leaves and reaches its ends along the run's directions there; it is
// fitted by least squares with chord-length parameters (after Schneider, "An algorithm
// for automatically fitting digitized curves", Graphics Gems, 1990), then refined by
// damped Gauss-Newton steps on the distances measured across the curve, each point
// sliding along it (the tangent distance of Blake and Isard, "Active Contours", 1998;
// compared with squared-distance minimisation by Wang, Pottmann and Liu, "Fitting
// B-spline curves to point clouds by curvature-based squared distance minimization",
// ACM TOG 2006), which needs a few steps where refitting the parameters alone by
// Newton steps needs dozens.
package fit

import (
	"math"
	"runtime"
	"slices"
	"sync"
)

// Vec is a point or vector.
type Vec struct{ X, Y float64 }

func (a Vec) add(b Vec) Vec      { return Vec{a.X + b.X, a.Y + b.Y} }
func (a Vec) sub(b Vec) Vec      { return Vec{a.X - b.X, a.Y - b.Y} }
func (a Vec) mul(s float64) Vec  { return Vec{a.X * s, a.Y * s} }
func (a Vec) dot(b Vec) float64  { return a.X*b.X + a.Y*b.Y }
func (a Vec) len() float64       { return math.Sqrt(a.X*a.X + a.Y*a.Y) }
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
	// Sample is how far apart, in points, the fit takes the smoothed points (0 takes
	// DefaultSample): each run between corners is smoothed and fitted at its first
	// point, every Sample-th after it and its last, where its pieces end and their
	// curves' distance from it is measured. Once smoothed, the points lie on a curve
	// much smoother than their spacing, so that a curve within the tolerance at every
	// few points is within it between them too, and the fit's work falls with the
	// points it handles: fewer to smooth, to measure and to try as a piece's end.
	Sample int
}

// DefaultSample is the Sample of Options that leave it 0. (Lineart corpus against
// the potrace engine, strokes measured at every point, every second and every third:
// skimage-page, all strokes, SSIM ratio 0.969, 0.964, 0.958 at segments ratio 0.405,
// 0.389, 0.356; glyphs 0.977, 0.976, 0.975 at 0.363, 0.357, 0.339. Those figures
// are from measuring every Sample-th point while pieces could end at any point; now
// that they end at the points taken too, the medians of the lineart corpus, outlines
// at every third point and strokes at every second, went from SSIM ratio 0.981 to
// 0.984 at segments ratio 0.405 -> 0.421, and on 30 generated drawings (synth.Art)
// from 0.959 to 0.962 at 0.348 -> 0.340, for 9 % fewer instructions per trace of the
// owl.)
const DefaultSample = 2

// Fit returns the segments approximating pts, which a stroke runs through in order.
// When closed the segments form a loop, from the chain's sharpest bend back to it.
// radius gives the line's radius near each point (the corner detector looks that far
// along the line); it may be nil.
func Fit(pts []Vec, radius []float64, closed bool, o Options) []Segment {
	b := pool.Get().(*buffers)
	defer pool.Put(b)
	return b.fit(pts, radius, closed, o)
}

// buffers are the scratch slices of one fit, which the next fit on the same
// goroutine reuses (through pool) instead of allocating them again: nothing Fit
// returns refers to them.
type buffers struct {
	pts, rot   []Vec     // the points deduplicated, and rotated to the sharpest bend
	steps      []float64 // the distances between pts (dedupe's), then closing the loop
	rotSteps   []float64 // steps rotated with rot
	radius     []float64 // the radius rotated with them
	arc, turn  []float64 // findCorners' and sharpest's
	cs         []int     // the corners
	rev, sm    []Vec     // smooth's
	a, b       []Vec     // smoothSteps'
	kernel     []float64 // taubinKernel(kernelPass), once asked
	kernelPass int
	ps         pieces
}

var pool = sync.Pool{New: func() any { return new(buffers) }}

// fit is Fit in b's buffers.
func (bf *buffers) fit(pts []Vec, radius []float64, closed bool, o Options) []Segment {
	pts = bf.dedupe(pts)
	steps := bf.steps
	if closed && len(pts) > 2 {
		// The fit starts and ends where the chain is closed, whose point joins two
		// pieces: at the sharpest bend, where the pieces would meet anyway, rather than
		// wherever the chain was found, which splits a curve. (Lineart corpus, filled
		// outlines: 0.437 -> 0.425 of the potrace engine's segments.)
		steps = append(steps, pts[0].dist(pts[len(pts)-1])) // the step closing it
		bf.steps = steps
		at := bf.sharpest(pts, steps)
		bf.rot = append(append(append(bf.rot[:0], pts[at:]...), pts[:at]...), pts[at])
		pts = bf.rot
		bf.rotSteps = append(append(bf.rotSteps[:0], steps[at:]...), steps[:at]...)
		steps = bf.rotSteps
		if len(radius) == len(pts)-1 {
			bf.radius = append(append(append(bf.radius[:0], radius[at:]...), radius[:at]...), radius[at])
			radius = bf.radius
		}
	}
	if len(pts) < 2 {
		return nil
	}
	corners := bf.findCorners(pts, steps, radius, o.CornerAngle)
	passes := o.SmoothPasses
	if passes <= 0 {
		passes = DefaultSmoothPasses
	}
	limit := math.MaxInt
	if o.MaxSegments > 0 {
		limit = o.MaxSegments + 1
	}
	sample := o.Sample
	if sample <= 0 {
		sample = DefaultSample
	}
	// A run's direction at a point is taken from the points about 3 before and after
	// it, whichever Sample: as many of the points taken (at least one).
	reach := max(1, 3/sample)
	r := runner{pts: pts, passes: passes, sample: sample, tol: o.Tolerance, reach: reach, limit: limit}
	if k := splitAt(corners); k > 0 && len(pts) >= minSplitPoints && runtime.GOMAXPROCS(0) > 1 {
		// The runs between corners are fitted each on its own (fitRun starts afresh
		// at each), so a long chain's later runs are fitted on one more goroutine, in
		// their own buffers, while this one fits the first: the same segments in the
		// same order. (On the openclipart owl, one filled outline of 12,455 points
		// in 5 runs is a fit of about 3.5 ms at 2 cores, the longest single task of
		// the outlines' fits.)
		var tail []Segment
		done := make(chan struct{})
		go func() {
			defer close(done)
			b := pool.Get().(*buffers)
			defer pool.Put(b)
			tail = r.fit(b, corners[k:], nil)
		}()
		out := r.fit(bf, corners[:k+1], nil)
		<-done
		out = append(out, tail...)
		return out[:min(len(out), limit)]
	}
	return r.fit(bf, corners, nil)
}

// minSplitPoints is the fewest points of a chain whose runs Fit shares between two
// goroutines: a fit costs about 0.3 µs a point (outlines, every third point fitted),
// so 2,000 points are some 0.5 ms of work, against a few µs to start a goroutine.
const minSplitPoints = 2000

// splitAt returns the corner k at which the runs of a chain with corners are split in
// two of about equal points (runs corners[0..k] and corners[k..]), or 0 when there is
// one run.
func splitAt(corners []int) int {
	if len(corners) < 3 {
		return 0
	}
	first, last := corners[0], corners[len(corners)-1]
	best, bestOff := 0, math.MaxInt
	for k := 1; k < len(corners)-1; k++ {
		// The larger of the two halves' points is what the split takes in wall time.
		if off := max(corners[k]-first, last-corners[k]); off < bestOff {
			best, bestOff = k, off
		}
	}
	return best
}

// runner fits the runs of one chain of points, the same for each of its goroutines.
type runner struct {
	pts                   []Vec
	passes, sample, reach int
	tol                   float64
	limit                 int
}

// fit appends to out the segments of the runs between corners (in order), in bf's
// buffers, stopping once out holds r.limit segments.
func (r runner) fit(bf *buffers, corners []int, out []Segment) []Segment {
	for i := 1; i < len(corners) && len(out) < r.limit; i++ {
		out = bf.ps.fitRun(bf.smooth(r.pts[corners[i-1]:corners[i]+1], r.passes, r.sample), r.tol, r.reach, out, r.limit)
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
// The passes are one linear filter: a point 2*passes or more from both ends comes out
// as the filter's kernel (the steps' three-point kernels convolved) applied to the
// points around it, in one sum instead of 2*passes steps; only the points nearer an
// end, which the ends that stay reach, are stepped. It returns only the smoothed
// run's first point, every every-th after it and its last (every >= 1), and sums
// the kernel at those alone.
// The result is in bf's buffers, until the next smooth.
func (bf *buffers) smooth(run []Vec, passes, every int) []Vec {
	if len(run) < 3 || every <= 1 && passes == 0 {
		return run
	}
	if passes == 0 {
		bf.sm = takeEvery(append(bf.sm[:0], run...), every)
		return bf.sm
	}
	r := 2 * passes // the kernel's radius
	n := len(run)
	if n < 4*r+2 {
		return takeEvery(bf.smoothSteps(run, passes, n-1), every)
	}
	if bf.kernel == nil || bf.kernelPass != passes {
		bf.kernel, bf.kernelPass = taubinKernel(passes), passes
	}
	k := bf.kernel
	k0, kk := k[0], k[1:]
	// rev: run backwards, so that the points before each one run forwards too
	bf.rev = slices.Grow(bf.rev[:0], n)[:n]
	rev := bf.rev
	for i, p := range run {
		rev[n-1-i] = p
	}
	bf.sm = slices.Grow(bf.sm[:0], n)[:n]
	out := bf.sm
	convolve(out, run, rev, k0, kk, every)
	// Near an end, the points up to 2r from it decide those within r of it; of
	// those, only the ones taken are stepped to, the last end's from rev (the sum of
	// a point's neighbours is the same either way round).
	head := (r - 1) / every * every
	copy(out[:head+1], bf.smoothSteps(run[:2*r+1], passes, head))
	tail := max(0, n-1-(n-r+every-1)/every*every)
	for i, p := range bf.smoothSteps(rev[:2*r+1], passes, tail)[:tail+1] {
		out[n-1-i] = p
	}
	return takeEvery(out, every)
}

// takeEvery returns pts[0], every every-th point after it and the last, moved to the
// front of pts.
func takeEvery(pts []Vec, every int) []Vec {
	if every <= 1 {
		return pts
	}
	n, m := len(pts), 0
	for k := 0; k < n-1; k += every {
		pts[m] = pts[k]
		m++
	}
	pts[m] = pts[n-1]
	return pts[:m+1]
}

// convolve sets out[i], for each i that every divides at least len(kk) from both
// ends of run, to the symmetric kernel k0, kk applied to the points around run[i]
// (rev: run backwards). It is a function of its own so that its loop's few values
// stay in registers, where smooth's many spilled them (owl: smooth 82.5M -> 75.7M
// trace 440.1M -> 436.4M instructions).
func convolve(out, run, rev []Vec, k0 float64, kk []float64, every int) {
	n, r := len(run), len(kk)
	for i := (r + every - 1) / every * every; i < n-r; i += every {
		x, y := taps(k0*run[i].X, k0*run[i].Y, kk, rev[n-i:n-i+r], run[i+1:i+r+1])
		out[i] = Vec{x, y}
	}
}

// taps returns x and y plus the sums of the kernel's taps kk over the points before
// and after one. It is convolve's inner loop, in a function of its own not inlined,
// so that its loop keeps its values in registers (inlined, its counter and two slice
// bases were spilled and read back at every tap; owl: convolve 8.91M -> 8.07M
// instructions per trace).
//
//go:noinline
func taps(x, y float64, kk []float64, before, after []Vec) (float64, float64) {
	before, after = before[:len(kk)], after[:len(kk)]
	for j, c := range kk {
		b, a := before[j], after[j]
		x += c * (b.X + a.X)
		y += c * (b.Y + a.Y)
	}
	return x, y
}

const taubinLambda, taubinMu = 0.5, -0.53

// taubinKernel returns the one half of the kernel of passes of smooth, from its
// middle: k[j] weighs the points j before and j after.
func taubinKernel(passes int) []float64 {
	r := 2 * passes
	k := make([]float64, 2*r+1) // centred at r
	k[r] = 1
	next := make([]float64, len(k))
	for s := range 2 * passes {
		f := taubinLambda
		if s%2 == 1 {
			f = taubinMu
		}
		for i := range k {
			v := (1 - f) * k[i]
			if i > 0 {
				v += f / 2 * k[i-1]
			}
			if i+1 < len(k) {
				v += f / 2 * k[i+1]
			}
			next[i] = v
		}
		k, next = next, k
	}
	return k[r:]
}

// smoothSteps is smooth stepped pass by pass, point by point, as far as the points
// up to upto need: each pass steps only the points that reach them in the passes
// left (at an end of a long run, where at most the first r of 2r+1 points are
// wanted; owl: smoothSteps 25.7M -> 20.2M instructions in 3 traces). The result, up
// to upto, is in bf's buffers, until the next smoothSteps.
func (bf *buffers) smoothSteps(run []Vec, passes, upto int) []Vec {
	a := append(bf.a[:0], run...)
	b := slices.Grow(bf.b[:0], len(a))[:len(a)]
	last := len(a) - 1
	for s := range 2 * passes {
		f := taubinLambda
		if s%2 == 1 {
			f = taubinMu
		}
		b[0], b[last] = a[0], a[last]
		hi := min(last-1, upto+2*passes-1-s)
		// each point read once, its neighbours carried in registers from the last
		// point's (owl: smoothSteps 6.75M -> 6.38M instructions per trace)
		prev, cur := a[0], a[1]
		for i, next := range a[2 : hi+2] {
			b[i+1] = Vec{cur.X + f*((prev.X+next.X)/2-cur.X), cur.Y + f*((prev.Y+next.Y)/2-cur.Y)}
			prev, cur = cur, next
		}
		a, b = b, a
	}
	bf.a, bf.b = a, b
	return a
}

// dedupe returns pts without the points that repeat the one before, in bf's buffers,
// and sets bf.steps to the lengths of the steps between them, which sharpest and
// findCorners add up (each distance the same either way round, the chain's is found
// once instead of up to four times; owl: sharpest and findCorners 77M -> 66M, the
// trace 440.1M -> 436.4M instructions).
func (bf *buffers) dedupe(pts []Vec) []Vec {
	out, steps := bf.pts[:0], bf.steps[:0]
	for _, p := range pts {
		if len(out) == 0 {
			out = append(out, p)
		} else if d := out[len(out)-1].dist(p); d > 1e-9 {
			out, steps = append(out, p), append(steps, d)
		}
	}
	bf.pts, bf.steps = out, steps
	return out
}

// findCorners returns the indexes that split pts: its ends and every point where the
// direction turns by at least angle degrees between the chords to the points about
// k pixels before and after it, keeping the sharpest point of each turn. steps[i] is
// the distance from pts[i] to pts[i+1].
// The result is in bf's buffers.
func (bf *buffers) findCorners(pts []Vec, steps []float64, radius []float64, angle float64) []int {
	n := len(pts)
	cs := append(bf.cs[:0], 0)
	if angle > 0 && n > 4 {
		cosMax := math.Cos(angle * math.Pi / 180)
		bf.turn = slices.Grow(bf.turn[:0], n)[:n]
		turn := bf.turn
		// cumulative arc length
		bf.arc = slices.Grow(bf.arc[:0], n)[:n]
		arc := bf.arc
		arc[0] = 0
		for i, d := range steps[:n-1] {
			arc[i+1] = arc[i] + d
		}
		// a, b: the nearest points at least k before and after i (or the ends), moved
		// on from the last point's (k changes little from point to point; arc grows)
		// a and b move back only where k may fall: not once it stays 3, past the
		// radius given, where arc only grows (owl, outlines without a radius:
		// findCorners 10.55M -> 9.63M instructions per trace)
		a, b := 0, 0
		for i := 1; i < n-1; i++ {
			k := 3.0
			if i < len(radius) {
				k = max(3, radius[i]*1.5)
			}
			back := i <= len(radius)
			for a+1 < i && arc[i]-arc[a+1] >= k {
				a++
			}
			for back && a > 0 && arc[i]-arc[a] < k {
				a--
			}
			b = max(b, i)
			for back && b > i && arc[b-1]-arc[i] >= k {
				b--
			}
			for b < n-1 && arc[b]-arc[i] < k {
				b++
			}
			if arc[i]-arc[a] < k*0.7 || arc[b]-arc[i] < k*0.7 {
				turn[i] = 1
				continue
			}
			u, v := pts[i].sub(pts[a]), pts[b].sub(pts[i])
			dot := u.dot(v)
			if dot >= 0 && cosMax < 0 {
				// no corner: only turns at or below cosMax are compared
				turn[i] = 1
				continue
			}
			turn[i] = dot / math.Sqrt(u.dot(u)*v.dot(v))
		}
		cs = sharpestOfEachTurn(cs, turn, cosMax)
	}
	if cs[len(cs)-1] != n-1 {
		cs = append(cs, n-1)
	}
	bf.cs = cs
	return cs
}

// sharpestOfEachTurn appends to cs, whose last index is the one before turn's inner
// points, the sharpest point of each run of inner points whose turn (the cosine between
// the chords before and after them) is at most cosMax.
func sharpestOfEachTurn(cs []int, turn []float64, cosMax float64) []int {
	n := len(turn)
	for i := 1; i < n-1; i++ {
		if turn[i] > cosMax {
			continue
		}
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
	return cs
}

// fitRun appends the segments of one run without corners: from its start, the
// longest stretch that one line or cubic fits within tol, found by doubling its length
// from the last piece's (pieces along a run are often alike) and then halving the step
// (a fit that fails for a stretch rarely holds for a longer one), then the next
// stretch from where that one ends, the curves meeting with a common tangent. Taking
// each piece as long as it can be needs fewer segments than splitting the run at its
// worst point until every part fits. The run's direction at a point is taken from
// the points reach before and after it. It stops once out holds limit segments.
// It fits in ps's buffers.
func (ps *pieces) fitRun(pts []Vec, tol float64, reach int, out []Segment, limit int) []Segment {
	n := len(pts)
	if n == 2 || withinLine(pts, tol) {
		return append(out, Segment{Line: true, P0: pts[0], P3: pts[n-1]})
	}
	ps.pts, ps.reach, ps.arc = pts, reach, append(ps.arc[:0], 0)
	first := 4 // the first stretch tried: the last piece's length
	for i := 0; i < n-1 && len(out) < limit; {
		t1 := startTangent(pts[i:], reach)
		if i > 0 {
			t1 = midTangent(pts, i, reach)
		}
		ps.from(i)
		try := func(j int) (Segment, bool) { return ps.fit(j, t1, tol) }
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
		first = max(4, good-i)
		i = good
	}
	return out
}

// pieces fits the pieces pts[i..j] of a run for one i and several j, in buffers that
// they share.
type pieces struct {
	pts   []Vec
	reach int // how many points before and after one its direction is taken from
	i     int
	arc   []float64 // arc[k]: the length along pts from pts[i] to pts[i+k], as far as asked
	q     []Vec     // the last piece's points
	u, v  []float64 // their parameters, and the next step's
	w     [][4]float64
	s, z  [][3]float64 // how each parameter slides with a step (equations'), for u and v
	d     []Vec        // the offsets of the curve last measured from q (distancesAt's, slid's)
}

// from starts the pieces at pts[i].
func (p *pieces) from(i int) {
	p.i, p.arc = i, p.arc[:1]
}

// chord sets q to the points of pts[i..j] and u to their chord-length parameters:
// each one's arc length from pts[i] over the piece's.
func (p *pieces) chord(j int) {
	for k := len(p.arc); k <= j-p.i; k++ {
		p.arc = append(p.arc, p.arc[k-1]+p.pts[p.i+k].dist(p.pts[p.i+k-1]))
	}
	m := j - p.i
	total := p.arc[m]
	p.q = p.pts[p.i : j+1]
	p.u = slices.Grow(p.u[:0], m+1)[:m+1]
	for k, a := range p.arc[:m] {
		p.u[k] = a / total
	}
	p.u[m] = 1
}

// fit fits pts[i..j] with a line, or else a cubic leaving pts[i] along t1 and
// reaching pts[j] along the run's direction there, and says whether it stays within
// tol (a cubic, at the points measured).
func (p *pieces) fit(j int, t1 Vec, tol float64) (Segment, bool) {
	piece := p.pts[p.i : j+1]
	if len(piece) == 2 || withinLine(piece, tol) {
		return Segment{Line: true, P0: piece[0], P3: piece[len(piece)-1]}, true
	}
	t2 := endTangent(piece, p.reach)
	if j < len(p.pts)-1 {
		t2 = midTangent(p.pts, j, p.reach).mul(-1)
	}
	p.chord(j)
	return p.cubic(t1, t2, tol)
}

// cubic fits the points q at parameters u (from chord) with a cubic leaving q[0] along
// t1 and reaching its last point along -t2, and says whether it stays within tol.
func (p *pieces) cubic(t1, t2 Vec, tol float64) (Segment, bool) {
	q, u := p.q, p.u
	n := len(q)
	if cap(p.d) < n {
		// the five scratch slices grow together, in one test instead of five
		// slices.Grow (owl: cubic's own instructions 6.30M -> 5.87M per trace)
		c := max(n, 2*cap(p.d))
		p.w, p.v, p.s = make([][4]float64, c), make([]float64, c), make([][3]float64, c)
		p.z, p.d = make([][3]float64, c), make([]Vec, c)
	}
	v, s, z, d := p.v[:n], p.s[:n], p.z[:n], p.d[:n]
	v[0], v[n-1] = 0, 1
	first := generate(q, u, t1, t2, p.w[:n])
	c := curve{p0: q[0], p3: q[n-1], t1: t1, t2: t2, a1: first.P1.sub(first.P0).dot(t1), a2: first.P2.sub(first.P3).dot(t2)}
	stop := hopeless * tol
	e := c.distancesAt(q, p.w[:n], d, stop)
	if e.worst <= tol || e.worst > stop {
		return c.segment(), e.worst <= tol
	}
	c.equations(u, d, s, &e)
	// Levenberg-Marquardt: a step that does not lower the sum of squared distances is
	// taken back and tried again shorter and turned towards the gradient.
	chord := c.p3.dist(c.p0)
	damp, last, rejected := firstDamping, e.worst, 0
	for step := range steps {
		m11, m12, m22 := e.m11*(1+damp), e.m12, e.m22*(1+damp)
		det := m11*m22 - m12*m12
		if !(math.Abs(det) > 1e-12) {
			break
		}
		next := c
		next.a1 = min(2*chord, max(chord*1e-3, c.a1-(e.r1*m22-e.r2*m12)/det))
		next.a2 = min(2*chord, max(chord*1e-3, c.a2-(m11*e.r2-m12*e.r1)/det))
		ne := next.slid(q, u, s, next.a1-c.a1, next.a2-c.a2, v, d, tol, e.sum)
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
		// Give up when the error, falling twice more as far as in this step, would
		// still not come within tol: the steps fall less and less.
		if e.worst-2*(last-e.worst) > tol || step == steps-1 {
			break
		}
		last = e.worst
		c.equations(u, d, s, &e)
	}
	return c.segment(), false
}

// A piece's first fit is refined by up to steps damped Gauss-Newton steps (counting
// those taken back), the first damped by firstDamping, unless it strays more than
// hopeless times the tolerance. The steps converge in a few where Schneider's Newton
// steps on the parameters alone took up to 30 and still left many pieces that fit
// split in two; most of the work goes to the pieces that fail, which giving up early
// cuts short. (Lineart corpus against the potrace engine, medians: SSIM ratio 0.976 ->
// 0.981, segments ratio 0.438 -> 0.405; giving up when once more as far would not do,
// or starting undamped, cost segments for little work saved.) The steps also stop
// after rejections steps in a row taken back: each takes the next four times as
// damped, and after three (64 times as damped) few go on to fit. Of the first fits that
// reach the tolerance after steps, few stray more than 6 times it (owl: 26 of 4783;
// between 6 and 8 times, 358 fail), and few need a fourth rejection in a
// row (owl: 21, against 1324 steps saved). Together, against hopeless 8 and no limit
// on rejections: owl 431.4M -> 427.5M instructions per trace, spaghetti 373.6M ->
// 367.0M, glyphs 207.8M -> 206.6M; lineart corpus medians SSIM ratio 0.984 (same) at
// segments ratio 0.421 -> 0.426; 30 generated drawings (synth.Art) 0.962 (same) at
// 0.340 -> 0.342; synthetic centre lines, clean, mean 0.099 -> 0.093 px, p99 0.483 ->
// 0.477 px.
const (
	steps        = 8
	firstDamping = 0.25
	hopeless     = 6
	rejections   = 3
)

// curve is a cubic from p0 leaving along t1 to p3, reached along -t2 (t2 points back
// from p3), with its inner control points a1 along t1 from p0 and a2 along t2 from p3.
type curve struct {
	p0, p3, t1, t2 Vec
	a1, a2         float64
}

// controls returns the coordinates of c's four control points, as segment has them.
func (c *curve) controls() (x0, y0, x1, y1, x2, y2, x3, y3 float64) {
	x0, y0, x3, y3 = c.p0.X, c.p0.Y, c.p3.X, c.p3.Y
	return x0, y0, x0 + c.t1.X*c.a1, y0 + c.t1.Y*c.a1, x3 + c.t2.X*c.a2, y3 + c.t2.Y*c.a2, x3, y3
}

func (c *curve) segment() Segment {
	return Segment{P0: c.p0, P1: c.p0.add(c.t1.mul(c.a1)), P2: c.p3.add(c.t2.mul(c.a2)), P3: c.p3}
}

// sums are what distancesAt, slid and equations add up over a piece's inner points.
type sums struct {
	worst, sum            float64 // the largest distance and the sum of the squared ones
	m11, m12, m22, r1, r2 float64 // the normal equations of the step on (a1, a2)
}

// distancesAt returns the largest distance between the inner points of pts and c and
// the sum of the squared distances, leaving each one's offset from the curve in d, at
// the parameters whose cubic's weights generate left in w (taken instead of worked out
// again: owl, the first distances of each try 7.39M -> 5.57M instructions per trace).
// Once a distance exceeds stop it returns it and an infinite sum. Most of a piece's
// fits need no more than the distances (they fit, or stray too far, or their step is
// taken back), so the step's normal equations (equations) wait until a step is taken
// (owl: 40 % of the calls).
func (c *curve) distancesAt(pts []Vec, w [][4]float64, d []Vec, stop float64) sums {
	x0, y0, x1, y1, x2, y2, x3, y3 := c.controls()
	var worst, sum float64
	stop2 := stop * stop
	m := len(pts) - 1
	pts, w, d = pts[:m], w[:m], d[:m]
	for i := 1; i < len(pts); i++ {
		b := &w[i]
		dx := b[0]*x0 + b[1]*x1 + b[2]*x2 + b[3]*x3 - pts[i].X
		dy := b[0]*y0 + b[1]*y1 + b[2]*y2 + b[3]*y3 - pts[i].Y
		d[i] = Vec{dx, dy}
		dd := dx*dx + dy*dy
		if dd > worst {
			worst = dd
			if dd > stop2 {
				return sums{worst: math.Sqrt(dd), sum: math.Inf(1)}
			}
		}
		sum += dd
	}
	return sums{worst: math.Sqrt(worst), sum: sum}
}

// slid is distancesAt (without a stop) at the parameters u slid by the step (d1, d2)
// as s says (see equations), which it sets v to as far as it measures: in the one
// loop, the step's parameters cost no loop of their own, and none past a sum that
// reaches most (owl: the fit 119.6M -> 116.8M instructions per trace). Once the sum
// reaches most with a distance above tol, it returns the largest distance so far and
// an infinite sum: a step whose sum is not below most is taken back unless the curve
// is within tol.
func (c *curve) slid(pts []Vec, u []float64, s [][3]float64, d1, d2 float64, v []float64, d []Vec, tol, most float64) sums {
	x0, y0, x1, y1, x2, y2, x3, y3 := c.controls()
	var worst, sum float64
	tol2 := tol * tol
	m := len(pts) - 1
	pts, u, s, v, d = pts[:m], u[:m], s[:m], v[:m], d[:m]
	for i := 1; i < len(pts); i++ {
		t := clamp01(u[i] - (s[i][0] + s[i][1]*d1 + s[i][2]*d2))
		v[i] = t
		mt := 1 - t
		b0, b1, b2, b3 := mt*mt*mt, 3*mt*mt*t, 3*mt*t*t, t*t*t
		dx := b0*x0 + b1*x1 + b2*x2 + b3*x3 - pts[i].X
		dy := b0*y0 + b1*y1 + b2*y2 + b3*y3 - pts[i].Y
		d[i] = Vec{dx, dy}
		dd := dx*dx + dy*dy
		if dd > worst {
			worst = dd
		}
		sum += dd
		if sum >= most && worst > tol2 {
			return sums{worst: math.Sqrt(worst), sum: math.Inf(1)}
		}
	}
	return sums{worst: math.Sqrt(worst), sum: sum}
}

// equations sets in e the normal equations of the Gauss-Newton step on (a1, a2) that
// minimises the squared distances measured across the curve, with each point free to
// slide along it, from the offsets d that distancesAt or slid left at parameters u:
// the step (d1, d2) solves [m11 m12; m12 m22] (d1, d2) = -(r1, r2), and slides
// parameter i by -(s[i][0] + s[i][1]*d1 + s[i][2]*d2).
func (c *curve) equations(u []float64, d []Vec, s [][3]float64, e *sums) {
	x0, y0, x1, y1, x2, y2, x3, y3 := c.controls()
	// the control polygon's legs, which the direction at every t weighs
	lx0, ly0, lx1, ly1, lx2, ly2 := x1-x0, y1-y0, x2-x1, y2-y1, x3-x2, y3-y2
	t1x, t1y, t2x, t2y := c.t1.X, c.t1.Y, c.t2.X, c.t2.Y
	var m11, m12, m22, r1, r2 float64
	u, d, s = u[:len(u)-1], d[:len(u)-1], s[:len(u)-1]
	for i := 1; i < len(u); i++ {
		t := u[i]
		mt := 1 - t
		b1, b2 := 3*mt*mt*t, 3*mt*t*t
		dx, dy := d[i].X, d[i].Y
		// the curve's direction at t
		k0, k1, k2 := 3*mt*mt, 6*mt*t, 3*t*t
		gx := k0*lx0 + k1*lx1 + k2*lx2
		gy := k0*ly0 + k1*ly1 + k2*ly2
		gg := gx*gx + gy*gy
		if gg == 0 {
			s[i] = [3]float64{}
			continue
		}
		inv := 1 / gg
		// the offset and the control points' moves, across the curve and along it
		a1x, a1y, a2x, a2y := t1x*b1, t1y*b1, t2x*b2, t2y*b2
		rn := gx*dy - gy*dx
		j1 := gx*a1y - gy*a1x
		j2 := gx*a2y - gy*a2x
		m11 += j1 * j1 * inv
		m12 += j1 * j2 * inv
		m22 += j2 * j2 * inv
		r1 += j1 * rn * inv
		r2 += j2 * rn * inv
		s[i] = [3]float64{(gx*dx + gy*dy) * inv, (gx*a1x + gy*a1y) * inv, (gx*a2x + gy*a2y) * inv}
	}
	e.m11, e.m12, e.m22, e.r1, e.r2 = m11, m12, m22, r1, r2
}

// midTangent returns the run's direction at its inner point i, from the points reach
// before and after it.
func midTangent(pts []Vec, i, reach int) Vec {
	a, b := max(0, i-reach), min(len(pts)-1, i+reach)
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

// startTangent returns the direction pts leave their first point along, towards
// the point reach after it.
func startTangent(pts []Vec, reach int) Vec {
	k := min(len(pts)-1, reach)
	return pts[k].sub(pts[0]).unit()
}

// endTangent returns the direction back from pts' last point, towards the point
// reach before it.
func endTangent(pts []Vec, reach int) Vec {
	n := len(pts)
	k := min(n-1, reach)
	return pts[n-1-k].sub(pts[n-1]).unit()
}

// generate finds the control-point distances along t1 and t2 minimising the squared
// error at parameters u; w is its scratch space (the control points' weights at each
// u[i], between its two loops), at least len(pts) long.
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

// sharpest returns the index of the closed chain pts's sharpest bend: where the
// direction between the chords to the points about 3 pixels before and after turns
// most (the nearest points at least that far along the chain, within half of it).
// steps[i] is the distance from pts[i] to pts[i+1], the last from pts[n-1] to pts[0].
func (bf *buffers) sharpest(pts []Vec, steps []float64) int {
	n := len(pts)
	const k = 3.0
	// arc[j]: the length along the chain, up to three times round, from pts[0] to
	// pts[j%n]; the points before and after point i (at j = n+i) move forward with i,
	// and are never more than n/2 past 2n-1.
	m := min(3*n, 2*n+n/2+1)
	bf.arc = slices.Grow(bf.arc[:0], m)[:m]
	arc := bf.arc
	arc[0] = 0
	// round by round, each step added in the same order as one loop over j would
	for j := 1; j < m; {
		prev := arc[j-1]
		rest := arc[j:min(m, j+n)]
		for p, d := range steps[:len(rest)] {
			prev += d
			rest[p] = prev
		}
		j += len(rest)
	}
	best, at := 2.0, 0
	// a starts at the first point that back may be, n-1-n/2, rather than at 0: a point
	// before it is never used (back falls back to j-1-n/2 then), and walking a from 0 to
	// about n at the first point cost as much as all the other points' walks together.
	a, b := n-1-n/2, 0
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
		// back%n and b%n: back lies in [0, 2n) and b in (n, 3n)
		if back >= n {
			back -= n
		}
		after := b - n
		if after >= n {
			after -= n
		}
		u, v := pts[i].sub(pts[back]), pts[after].sub(pts[i])
		dot := u.dot(v)
		if dot >= 0 && best < 0 {
			// c, of dot's sign (or NaN), is not below best (owl: sharpest 9.16M ->
			// 8.95M instructions per trace)
			continue
		}
		c := dot / math.Sqrt(u.dot(u)*v.dot(v))
		if c < best {
			best, at = c, i
		}
	}
	return at
}
