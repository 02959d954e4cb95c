package fit

import "math"

// Point is a point or vector in image pixels.
type Point struct{ X, Y float64 }

// Add returns p + q.
func (p Point) Add(q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }

// Sub returns p - q.
func (p Point) Sub(q Point) Point { return Point{p.X - q.X, p.Y - q.Y} }

// Mul returns p scaled by k.
func (p Point) Mul(k float64) Point { return Point{p.X * k, p.Y * k} }

// Dot returns the dot product.
func (p Point) Dot(q Point) float64 { return p.X*q.X + p.Y*q.Y }

// Cross returns the z component of the cross product.
func (p Point) Cross(q Point) float64 { return p.X*q.Y - p.Y*q.X }

// Len returns the length of p.
func (p Point) Len() float64 { return math.Hypot(p.X, p.Y) }

// Unit returns p scaled to length 1, or the zero vector for a zero p.
func (p Point) Unit() Point {
	l := p.Len()
	if l < 1e-12 {
		return Point{}
	}
	return Point{p.X / l, p.Y / l}
}

// Lerp returns the point a fraction t of the way from p to q.
func (p Point) Lerp(q Point, t float64) Point { return Point{p.X + (q.X-p.X)*t, p.Y + (q.Y-p.Y)*t} }

// Segment is a straight line or a cubic Bézier curve from the end of the previous
// segment (or the path's start) to To.
type Segment struct {
	// Cubic marks a curve with control points C1 and C2; false is a line.
	Cubic bool
	// C1 and C2 are the control points of a cubic.
	C1, C2 Point
	// To is the end point.
	To Point
}

// Path is a fitted boundary: a start point and the segments that follow it.
type Path struct {
	From Point
	Segs []Segment
}

// End returns the path's last point.
func (p Path) End() Point {
	if len(p.Segs) == 0 {
		return p.From
	}
	return p.Segs[len(p.Segs)-1].To
}

// Reverse returns the same curve walked the other way.
func (p Path) Reverse() Path {
	r := Path{From: p.End(), Segs: make([]Segment, len(p.Segs))}
	for i := range p.Segs {
		s := p.Segs[len(p.Segs)-1-i]
		prev := p.From
		if j := len(p.Segs) - 2 - i; j >= 0 {
			prev = p.Segs[j].To
		}
		r.Segs[i] = Segment{Cubic: s.Cubic, C1: s.C2, C2: s.C1, To: prev}
	}
	return r
}

// bezier evaluates the cubic (p0, p1, p2, p3) at t.
func bezier(p0, p1, p2, p3 Point, t float64) Point {
	mt := 1 - t
	a, b, c, d := mt*mt*mt, 3*mt*mt*t, 3*mt*t*t, t*t*t
	return Point{a*p0.X + b*p1.X + c*p2.X + d*p3.X, a*p0.Y + b*p1.Y + c*p2.Y + d*p3.Y}
}

// Eval returns the point at t (0..1) on segment s starting at from.
func (s Segment) Eval(from Point, t float64) Point {
	if !s.Cubic {
		return from.Lerp(s.To, t)
	}
	return bezier(from, s.C1, s.C2, s.To, t)
}
