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

// Parallel returns the path moved by d along its right-hand normal like Offset, with
// each cubic's handles also scaled by 1 - d*k, k the signed curvature at their end
// (positive where the path bends towards the normal): a cubic that approximates a
// circular arc of radius R then becomes the same approximation of the arc of radius
// R - d, which is the parallel curve, where Offset alone bulges out in the middle.
func (p Path) Parallel(d float64) Path {
	out := p.Offset(d)
	if d == 0 {
		return out
	}
	prev, oprev := p.From, out.From
	for i, s := range p.Segs {
		o := &out.Segs[i]
		if s.Cubic {
			k0 := curvature(prev, s.C1, s.C2)
			k1 := curvature(s.To, s.C2, s.C1) // walked backwards: the sign flips
			o.C1 = oprev.Add(s.C1.Sub(prev).Mul(handleScale(1 - d*k0)))
			o.C2 = o.To.Add(s.C2.Sub(s.To).Mul(handleScale(1 + d*k1)))
		}
		prev, oprev = s.To, o.To
	}
	return out
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
