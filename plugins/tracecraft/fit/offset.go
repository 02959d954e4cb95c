package fit

import "math"

// Normal returns the unit normal on the right of a direction of travel t (screen
// coordinates, y down): a path walked with a region on its left has its right-hand
// neighbour on this side.
func Normal(t Point) Point {
	u := t.Unit()
	return Point{-u.Y, u.X}
}

// StartNormal returns the right-hand unit normal where the path starts.
func (p Path) StartNormal() Point {
	if len(p.Segs) == 0 {
		return Point{}
	}
	return Normal(startTangent(p.From, p.Segs[0]))
}

// EndNormal returns the right-hand unit normal where the path ends.
func (p Path) EndNormal() Point {
	n := len(p.Segs)
	if n == 0 {
		return Point{}
	}
	from := p.From
	if n > 1 {
		from = p.Segs[n-2].To
	}
	return Normal(endTangent2(from, p.Segs[n-1]))
}

func startTangent(from Point, s Segment) Point {
	if s.Cubic {
		for _, q := range [3]Point{s.C1, s.C2, s.To} {
			if d := q.Sub(from); d.Len() > 1e-9 {
				return d
			}
		}
	}
	return s.To.Sub(from)
}

func endTangent2(from Point, s Segment) Point {
	if s.Cubic {
		for _, q := range [3]Point{s.C2, s.C1, from} {
			if d := s.To.Sub(q); d.Len() > 1e-9 {
				return d
			}
		}
	}
	return s.To.Sub(from)
}

// miter returns the displacement of a join between two pieces with unit normals n1 and
// n2 that moves both pieces by d along their normals, bounded for sharp turns: the
// exact miter of a turn sharper than about 140 degrees runs off far away, and on the
// short zigzag segments of noisy boundaries such spikes would cross other shapes.
func miter(n1, n2 Point, d float64) Point {
	if n1 == (Point{}) {
		return n2.Mul(d)
	}
	if n2 == (Point{}) {
		return n1.Mul(d)
	}
	s := n1.Add(n2)
	c := 1 + n1.Dot(n2)
	if c < 0.25 {
		return s.Unit().Mul(2 * math.Abs(d) * math.Copysign(1, d))
	}
	return s.Mul(d / c)
}

// Offset returns the path moved by d along its right-hand normal (negative d: to the
// left). Lines move exactly; a cubic moves its control points with the normals at its
// ends, which is close for the gentle curves fitting produces; joins are mitred. The
// ends of an open path move along their own normals; a closed path (From equal to the
// end) is mitred at its start too.
func (p Path) Offset(d float64) Path {
	n := len(p.Segs)
	if n == 0 || d == 0 {
		return p
	}
	starts := make([]Point, n) // normal at each segment's start
	ends := make([]Point, n)
	prev := p.From
	for i, s := range p.Segs {
		starts[i] = Normal(startTangent(prev, s))
		ends[i] = Normal(endTangent2(prev, s))
		prev = s.To
	}
	closed := p.End().Sub(p.From).Len() < 1e-9
	out := Path{Segs: make([]Segment, n)}
	if closed {
		out.From = p.From.Add(miter(ends[n-1], starts[0], d))
	} else {
		out.From = p.From.Add(starts[0].Mul(d))
	}
	for i, s := range p.Segs {
		var to Point
		switch {
		case i+1 < n:
			to = s.To.Add(miter(ends[i], starts[i+1], d))
		case closed:
			to = out.From
		default:
			to = s.To.Add(ends[i].Mul(d))
		}
		o := Segment{Cubic: s.Cubic, To: to}
		if s.Cubic {
			o.C1 = s.C1.Add(starts[i].Mul(d))
			o.C2 = s.C2.Add(ends[i].Mul(d))
		}
		out.Segs[i] = o
	}
	return out
}

// WithEnds returns the path with its first and last points replaced, moving the control
// points next to them along.
func (p Path) WithEnds(from, to Point) Path {
	n := len(p.Segs)
	if n == 0 {
		return p
	}
	out := Path{From: from, Segs: append([]Segment(nil), p.Segs...)}
	if d := from.Sub(p.From); out.Segs[0].Cubic {
		out.Segs[0].C1 = out.Segs[0].C1.Add(d)
	}
	last := &out.Segs[n-1]
	if last.Cubic {
		last.C2 = last.C2.Add(to.Sub(last.To))
	}
	last.To = to
	return out
}

// Parallel returns the path moved by d along its right-hand normal like Offset (lines,
// and the joins between pieces, move as Offset moves them), each cubic's handles kept in
// their directions (the parallel curve has the same tangents) with lengths that follow
// the parallel curve: scaled by the curvature at their end, which moves a circular arc
// to the concentric arc, or where that strays over parallelTolerance·|d| (a cubic whose
// curvature changes along it, an S, which the end normals alone move by half of d in
// its middle) fitted by least squares to points of the parallel curve. A cubic still
// that far off is split in halves, each moved on its own (maxParallelSplits levels).
// The gap filler's underlap relies on it: where the moved edge comes back to within a
// fraction of a pixel of the shape above, the background shows through the seam.
func (p Path) Parallel(d float64) Path {
	if d == 0 {
		return p.Offset(d)
	}
	q := Path{From: p.From, Segs: make([]Segment, 0, len(p.Segs))}
	prev := p.From
	for _, s := range p.Segs {
		if s.Cubic {
			q.Segs = splitForParallel(q.Segs, prev, s, d, maxParallelSplits)
		} else {
			q.Segs = append(q.Segs, s)
		}
		prev = s.To
	}
	out := q.Offset(d)
	prev, oprev := q.From, out.From
	for i, s := range q.Segs {
		o := &out.Segs[i]
		if s.Cubic {
			o.C1, o.C2, _ = parallelCubic(prev, s, oprev, o.To, d)
		}
		prev, oprev = s.To, o.To
	}
	return out
}

// parallelTolerance is how far, as a share of the distance moved, a moved cubic may
// stray from the parallel curve before its handles are fitted anew, then split: the
// underlap then reaches at least four fifths of the gap filler's width under the shape
// above, enough to cover the seam.
const parallelTolerance = 0.2

// maxParallelSplits bounds the halvings of one cubic: once (two pieces). On the bench
// corpus a second level added 1 to 4 % more bytes to tracecraft's photos for at most
// 0.0007 SSIM.
const maxParallelSplits = 1

// parallelSamples is the number of points of the parallel curve a moved cubic is fitted
// to.
const parallelSamples = 7

// parallelCubic returns the control points of cubic s (from prev) moved by d, its ends
// moved to from and to, and how far the moved cubic strays from the parallel curve (at
// parallelSamples points). The handles keep their directions; their lengths are those
// of s scaled by 1 − d·k, k the signed curvature at their end (positive where the path
// bends towards the normal), which moves a circular arc to the concentric arc exactly;
// where that strays over parallelTolerance·|d|, the lengths that fit the parallel curve
// best by least squares, if those stray less.
func parallelCubic(prev Point, s Segment, from, to Point, d float64) (Point, Point, float64) {
	k0 := curvature(prev, s.C1, s.C2)
	k1 := curvature(s.To, s.C2, s.C1) // walked backwards: the sign flips
	c1 := from.Add(s.C1.Sub(prev).Mul(handleScale(1 - d*k0)))
	c2 := to.Add(s.C2.Sub(s.To).Mul(handleScale(1 + d*k1)))
	var pts [parallelSamples]Point
	var u [parallelSamples]float64
	n := 0
	for i := 1; i <= parallelSamples; i++ {
		t := float64(i) / (parallelSamples + 1)
		tan := bezierTangent(prev, s.C1, s.C2, s.To, t)
		if tan.Len() < 1e-9 {
			continue
		}
		pts[n], u[n] = bezier(prev, s.C1, s.C2, s.To, t).Add(Normal(tan).Mul(d)), t
		n++
	}
	worst := strayFrom(from, c1, c2, to, pts[:n], u[:n])
	tA, tB := startTangent(prev, s).Unit(), endTangent2(prev, s).Unit()
	if worst <= parallelTolerance*math.Abs(d) || n == 0 || tA == (Point{}) || tB == (Point{}) {
		return c1, c2, worst
	}
	lu := chordParams(from, to, pts[:n])
	l1, l2 := solveControls(from, to, pts[:n], lu, tA, tB)
	reparam(from, l1, l2, to, pts[:n], lu)
	l1, l2 = solveControls(from, to, pts[:n], lu, tA, tB)
	if lw := strayFrom(from, l1, l2, to, pts[:n], u[:n]); lw < worst {
		return l1, l2, lw
	}
	return c1, c2, worst
}

// strayFrom returns the largest distance from pts to the cubic (p0, p1, p2, p3), each
// measured from the curve's point nearest it, found by Newton steps from the parameter
// in u.
func strayFrom(p0, p1, p2, p3 Point, pts []Point, u []float64) float64 {
	uu := make([]float64, len(u))
	copy(uu, u)
	for range 3 {
		reparam(p0, p1, p2, p3, pts, uu)
	}
	w, _ := curveError(p0, p1, p2, p3, pts, uu)
	return w
}

// splitForParallel appends cubic s (from prev) to dst, in halves (recursively, depth
// more times at most) where its moved copy strays from the parallel curve.
func splitForParallel(dst []Segment, prev Point, s Segment, d float64, depth int) []Segment {
	if depth == 0 {
		return append(dst, s)
	}
	from := prev.Add(Normal(startTangent(prev, s)).Mul(d))
	to := s.To.Add(Normal(endTangent2(prev, s)).Mul(d))
	if _, _, worst := parallelCubic(prev, s, from, to, d); worst <= parallelTolerance*math.Abs(d) {
		return append(dst, s)
	}
	// de Casteljau at t = 1/2.
	ab, bc, cd := prev.Lerp(s.C1, 0.5), s.C1.Lerp(s.C2, 0.5), s.C2.Lerp(s.To, 0.5)
	abc, bcd := ab.Lerp(bc, 0.5), bc.Lerp(cd, 0.5)
	mid := abc.Lerp(bcd, 0.5)
	dst = splitForParallel(dst, prev, Segment{Cubic: true, C1: ab, C2: abc, To: mid}, d, depth-1)
	return splitForParallel(dst, mid, Segment{Cubic: true, C1: bcd, C2: cd, To: s.To}, d, depth-1)
}

// bezierTangent returns the derivative of the cubic (p0, p1, p2, p3) at t, over 3.
func bezierTangent(p0, p1, p2, p3 Point, t float64) Point {
	mt := 1 - t
	a, b, c := p1.Sub(p0).Mul(mt*mt), p2.Sub(p1).Mul(2*mt*t), p3.Sub(p2).Mul(t*t)
	return a.Add(b).Add(c)
}

// handleScale bounds a handle's scale to [1/2, 3/2]: where the path bends more sharply
// than the distance moved (a radius under twice d), the parallel curve has a cusp, and
// an unbounded scale would throw the curve far off.
func handleScale(s float64) float64 { return min(1.5, max(0.5, s)) }

// curvature returns the signed curvature at a, the end of a cubic whose nearer control
// points are b then c: 2/3 |ab x bc| / |ab|^3, positive where the curve, walked from a,
// bends towards its right-hand normal; 0 for a degenerate handle.
func curvature(a, b, c Point) float64 {
	ab := b.Sub(a)
	l := ab.Len()
	if l < 1e-9 {
		return 0
	}
	return 2.0 / 3.0 * ab.Cross(c.Sub(b)) / (l * l * l)
}
