// Package primitive recognises closed outlines that are SVG basic shapes: circles,
// ellipses and rectangles (rotated or not, with rounded corners or not), within a
// tolerance, and writes them as <circle>, <ellipse> and <rect> elements or as short
// path subpaths.
//
// An outline is a polyline of points sampled densely along a fitted boundary. Each kind
// of shape is estimated from it in closed form and then verified: every point must lie
// within the tolerance of the shape's outline, measured with the shape's signed
// distance. Points on the image border are allowed anywhere inside the shape instead, so
// a shape clipped by the image (drawn whole, the view box clips it) is recognised too.
//
// Estimates:
//   - circle: the algebraic least-squares circle through the points off the border
//     (Kåsa's fit);
//   - ellipse: the centroid and second moments of the enclosed area (a filled ellipse of
//     semi-axes a, b has variances a²/4 and b²/4 along its axes);
//   - rectangle: the orientation from the directions of the outline's pieces, each
//     angle taken modulo 90° (averaging 4θ on the unit circle, weighted by length), the
//     sides from the extents along that orientation, and a corner radius from the area
//     a rounded rectangle loses at its corners, w·h − (4 − π)·r².
package primitive

import (
	"math"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
)

// Kind is the kind of a basic shape.
type Kind int

// The kinds of shape.
const (
	// None is no basic shape.
	None Kind = iota
	// Circle has Center and R.
	Circle
	// Ellipse has Center, semi-axes RX and RY, and Angle.
	Ellipse
	// Rect has Center, width W, height H, corner radius R (0: square corners) and
	// Angle.
	Rect
)

func (k Kind) String() string {
	switch k {
	case Circle:
		return "circle"
	case Ellipse:
		return "ellipse"
	case Rect:
		return "rect"
	}
	return "none"
}

// Shape is a basic shape in image pixels.
type Shape struct {
	Kind   Kind
	Center fit.Point
	// R is a circle's radius or a rectangle's corner radius.
	R float64
	// RX and RY are an ellipse's semi-axes, along its rotated x and y axes.
	RX, RY float64
	// W and H are a rectangle's sides, along its rotated x and y axes.
	W, H float64
	// Angle is the rotation in degrees, clockwise on screen (SVG's rotate), in
	// (-90, 90] for ellipses and (-45, 45] for rectangles.
	Angle float64
}

// Options control Recognize.
type Options struct {
	// Tolerance is the largest distance in pixels between the outline and the shape.
	Tolerance float64
	// Width and Height are the image size: points on its border may lie anywhere
	// inside the shape.
	Width, Height float64
	// MinSize is the smallest extent (pixels) a shape must have; smaller outlines are
	// left alone.
	MinSize float64
}

// borderEps is how close to the image border a point must be to count as on it.
const borderEps = 0.05

// Recognize returns the cheapest basic shape that pts (a closed polyline, each point
// once) fits within opt.Tolerance: circle, then axis-aligned rectangle, then ellipse,
// then any rectangle. It returns a Shape of Kind None when none fits.
func Recognize(pts []fit.Point, opt Options) Shape {
	if len(pts) < 8 || opt.Tolerance <= 0 {
		return Shape{}
	}
	border := make([]bool, len(pts))
	free := 0
	for i, p := range pts {
		border[i] = p.X <= borderEps || p.Y <= borderEps || p.X >= opt.Width-borderEps || p.Y >= opt.Height-borderEps
		if !border[i] {
			free++
		}
	}
	if free < 8 {
		return Shape{}
	}
	m := measure(pts)
	if m.area < 1 {
		return Shape{}
	}
	var cands []Shape
	if c, ok := fitCircle(pts, border); ok {
		cands = append(cands, c)
	}
	rects := fitRects(pts, border, m)
	for _, r := range rects {
		if r.Angle == 0 {
			cands = append(cands, r)
		}
	}
	if !anyTrue(border) {
		cands = append(cands, fitEllipse(m))
	}
	for _, r := range rects {
		if r.Angle != 0 {
			cands = append(cands, r)
		}
	}
	spts, sborder := subsample(pts, border, maxRefinePoints)
	sfree := 0
	for _, b := range sborder {
		if !b {
			sfree++
		}
	}
	for _, s := range cands {
		if !(s.size() >= opt.MinSize) || !s.costWithin(spts, sborder, sq(refineSlack*opt.Tolerance)*float64(sfree)) ||
			!areaWithin(s, m.area, refineSlack*opt.Tolerance, opt) {
			continue
		}
		s = refine(s, spts, sborder)
		s.Angle = normAngle(s.Angle, s.period())
		if s.size() >= opt.MinSize && fits(s, pts, border, opt.Tolerance) && sameArea(s, m.area, opt) {
			return s
		}
	}
	return Shape{}
}

func sq(v float64) float64 { return v * v }

// maxRefinePoints bounds the points least squares works on; the final check uses all.
const maxRefinePoints = 256

// subsample returns about n of pts evenly spread, with their border flags.
func subsample(pts []fit.Point, border []bool, n int) ([]fit.Point, []bool) {
	if len(pts) <= n {
		return pts, border
	}
	sp := make([]fit.Point, 0, n)
	sb := make([]bool, 0, n)
	for k := range n {
		i := k * len(pts) / n
		sp = append(sp, pts[i])
		sb = append(sb, border[i])
	}
	return sp, sb
}

// refineSlack is how far (as a multiple of the tolerance, root mean square) a first
// estimate may miss for least squares to be tried on it.
const refineSlack = 2

// period returns the angle period of the shape's symmetry: 90 degrees for rectangles
// (a rectangle turned a quarter turn with its sides swapped), 180 otherwise.
func (s Shape) period() float64 {
	if s.Kind == Rect {
		return 90
	}
	return 180
}

// sameArea reports whether the shape, clipped to the image, encloses the outline's area
// up to the tolerance along its perimeter. Points near a shape's outline do not make the
// shape: both sides of a thin curved band lie near one large circle.
func sameArea(s Shape, area float64, opt Options) bool {
	return areaWithin(s, area, opt.Tolerance, opt)
}

// areaWithin reports whether the shape clipped to the image encloses area up to tol
// along its perimeter.
func areaWithin(s Shape, area, tol float64, opt Options) bool {
	poly := clip(s.Outline(128), opt.Width, opt.Height)
	a, per := polyArea(poly), perimeter(poly)
	return math.Abs(a-area) <= tol*per
}

// Outline returns n points around the shape's outline, clockwise on screen.
func (s Shape) Outline(n int) []fit.Point {
	out := make([]fit.Point, 0, n)
	sin, cos := math.Sincos(s.Angle * math.Pi / 180)
	for k := range n {
		t := 2 * math.Pi * float64(k) / float64(n)
		st, ct := math.Sincos(t)
		var u, v float64
		switch s.Kind {
		case Circle:
			u, v = s.R*ct, s.R*st
		case Ellipse:
			u, v = s.RX*ct, s.RY*st
		case Rect:
			// Around the rounded rectangle: the corner arc's centre plus the
			// radius in direction t.
			r := math.Min(s.R, math.Min(s.W, s.H)/2)
			u = math.Copysign(s.W/2-r, ct) + r*ct
			v = math.Copysign(s.H/2-r, st) + r*st
		}
		out = append(out, fit.Point{X: s.Center.X + u*cos - v*sin, Y: s.Center.Y + u*sin + v*cos})
	}
	return out
}

// clip returns the convex polygon pts clipped to the rectangle 0..w x 0..h
// (Sutherland-Hodgman).
func clip(pts []fit.Point, w, h float64) []fit.Point {
	type plane struct {
		in    func(fit.Point) bool
		cross func(a, b fit.Point) fit.Point
	}
	atX := func(x float64) func(a, b fit.Point) fit.Point {
		return func(a, b fit.Point) fit.Point { return a.Lerp(b, (x-a.X)/(b.X-a.X)) }
	}
	atY := func(y float64) func(a, b fit.Point) fit.Point {
		return func(a, b fit.Point) fit.Point { return a.Lerp(b, (y-a.Y)/(b.Y-a.Y)) }
	}
	planes := []plane{
		{func(p fit.Point) bool { return p.X >= 0 }, atX(0)},
		{func(p fit.Point) bool { return p.X <= w }, atX(w)},
		{func(p fit.Point) bool { return p.Y >= 0 }, atY(0)},
		{func(p fit.Point) bool { return p.Y <= h }, atY(h)},
	}
	for _, pl := range planes {
		var out []fit.Point
		for i, b := range pts {
			a := pts[(i+len(pts)-1)%len(pts)]
			switch ina, inb := pl.in(a), pl.in(b); {
			case ina && inb:
				out = append(out, b)
			case ina:
				out = append(out, pl.cross(a, b))
			case inb:
				out = append(out, pl.cross(a, b), b)
			}
		}
		pts = out
		if len(pts) == 0 {
			break
		}
	}
	return pts
}

func polyArea(pts []fit.Point) float64 {
	var a float64
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		a += p.X*q.Y - q.X*p.Y
	}
	return math.Abs(a) / 2
}

func perimeter(pts []fit.Point) float64 {
	var l float64
	for i, p := range pts {
		l += pts[(i+1)%len(pts)].Sub(p).Len()
	}
	return l
}

// fitRects returns the rectangles estimated with the orientation of the whole outline,
// of its part off the image border (where the border's straight pieces would pull a
// rotated shape's estimate toward the axes), and axis-aligned; duplicates left out.
func fitRects(pts []fit.Point, border []bool, m moments) []Shape {
	var out []Shape
	whole, free := orientations(pts, border)
	for _, a := range []float64{whole, free, 0} {
		dup := false
		for _, r := range out {
			dup = dup || r.Angle == a
		}
		if !dup {
			// The corner radius from the area is inflated by any wobble of the
			// outline (the extents take its outermost points), so a sharp-cornered
			// rectangle is tried too.
			r := rectAt(pts, a, m)
			out = append(out, r)
			if r.R > 0 {
				r.R = 0
				out = append(out, r)
			}
		}
	}
	return out
}

func anyTrue(b []bool) bool {
	for _, v := range b {
		if v {
			return true
		}
	}
	return false
}

// size returns the shape's smallest extent.
func (s Shape) size() float64 {
	switch s.Kind {
	case Circle:
		return 2 * s.R
	case Ellipse:
		return 2 * math.Min(s.RX, s.RY)
	case Rect:
		return math.Min(s.W, s.H)
	}
	return 0
}

// maxSlack is how far beyond the tolerance a single point may stray, as a multiple of
// it: outlines come from fitted curves that themselves stray up to the fit tolerance
// from the boundary, so one bulge of the fit must not hide a true circle. On average
// (root mean square) the outline must stay within the tolerance itself.
const maxSlack = 1.5

// fits reports whether pts lie close enough to s's outline: every point within
// maxSlack·tol, their root mean square distance within tol, points on the border
// anywhere inside the shape (up to tol outside).
func fits(s Shape, pts []fit.Point, border []bool, tol float64) bool {
	if !(s.size() > 0) || math.IsNaN(s.Center.X) || math.IsNaN(s.Center.Y) {
		return false
	}
	var sum float64
	n := 0
	f := s.frame()
	for i, p := range pts {
		d := f.distance(p)
		if border[i] {
			if d > maxSlack*tol {
				return false
			}
			continue
		}
		if math.Abs(d) > maxSlack*tol {
			return false
		}
		sum += d * d
		n++
	}
	return n > 0 && sum <= tol*tol*float64(n)
}

// Distance returns the signed distance from p to the shape's outline, negative inside
// (approximate for ellipses: first order, exact on the outline).
func (s Shape) Distance(p fit.Point) float64 {
	f := s.frame()
	return f.distance(p)
}

// frame is a shape with the sine and cosine of its turn worked out, for measuring the
// distances of many points.
type frame struct {
	s        Shape
	sin, cos float64
}

// frame returns the shape's frame.
func (s Shape) frame() frame {
	f := frame{s: s}
	f.sin, f.cos = math.Sincos(-s.Angle * math.Pi / 180)
	return f
}

// distance is Shape.Distance.
func (f *frame) distance(p fit.Point) float64 {
	s := &f.s
	switch s.Kind {
	case Circle:
		return p.Sub(s.Center).Len() - s.R
	case Ellipse:
		u, v := f.local(p)
		a2, b2 := s.RX*s.RX, s.RY*s.RY
		fv := u*u/a2 + v*v/b2 - 1
		g := math.Hypot(2*u/a2, 2*v/b2)
		if g == 0 {
			return -math.Min(s.RX, s.RY)
		}
		return fv / g
	case Rect:
		u, v := f.local(p)
		r := s.R
		qx := math.Abs(u) - (s.W/2 - r)
		qy := math.Abs(v) - (s.H/2 - r)
		// The distance is math.Hypot(max(qx, 0), max(qy, 0)) + min(max(qx, qy), 0) - r,
		// worked out by cases: math.Hypot(a, 0) is exactly |a|, and the sign of a zero
		// is lost in the sum with 0.
		switch {
		case qx <= 0 && qy <= 0: // inside
			m := qy
			if qx > qy {
				m = qx
			}
			return 0 + m - r
		case qx <= 0 && qy > 0: // beside a horizontal side
			return qy - r
		case qy <= 0 && qx > 0: // beside a vertical side
			return qx - r
		case qx > 0 && qy > 0: // by a corner
			return math.Hypot(qx, qy) - r
		}
		return math.Hypot(max(qx, 0), max(qy, 0)) + min(max(qx, qy), 0) - r // NaN
	}
	return math.Inf(1)
}

// local returns p in the shape's frame: centred, unrotated.
func (f *frame) local(p fit.Point) (float64, float64) {
	d := p.Sub(f.s.Center)
	return d.X*f.cos - d.Y*f.sin, d.X*f.sin + d.Y*f.cos
}

// moments are the area moments of a closed polyline.
type moments struct {
	area             float64 // unsigned
	c                fit.Point
	sxx, sxy, syy    float64 // central second moments per unit area
	clockwiseOnImage bool
}

// measure returns the area, centroid and second moments of the polygon pts.
func measure(pts []fit.Point) moments {
	var a, cx, cy, ixx, ixy, iyy float64
	n := len(pts)
	for i := range n {
		p, q := pts[i], pts[(i+1)%n]
		c := p.X*q.Y - q.X*p.Y
		a += c
		cx += (p.X + q.X) * c
		cy += (p.Y + q.Y) * c
		ixx += (p.X*p.X + p.X*q.X + q.X*q.X) * c
		iyy += (p.Y*p.Y + p.Y*q.Y + q.Y*q.Y) * c
		ixy += (p.X*q.Y + 2*p.X*p.Y + 2*q.X*q.Y + q.X*p.Y) * c
	}
	a /= 2
	if a == 0 {
		return moments{}
	}
	m := moments{area: math.Abs(a), clockwiseOnImage: a > 0}
	m.c = fit.Point{X: cx / (6 * a), Y: cy / (6 * a)}
	m.sxx = ixx/(12*a) - m.c.X*m.c.X
	m.syy = iyy/(12*a) - m.c.Y*m.c.Y
	m.sxy = ixy/(24*a) - m.c.X*m.c.Y
	return m
}

// Clockwise reports whether the closed polyline pts runs clockwise on screen (y down).
func Clockwise(pts []fit.Point) bool { return measure(pts).clockwiseOnImage }

// fitCircle is Kåsa's algebraic circle fit through the points off the border:
// x² + y² + D·x + E·y + F = 0 in the least-squares sense.
func fitCircle(pts []fit.Point, border []bool) (Shape, bool) {
	// Centre the data for conditioning.
	var ox, oy float64
	n := 0
	for i, p := range pts {
		if !border[i] {
			ox += p.X
			oy += p.Y
			n++
		}
	}
	ox /= float64(n)
	oy /= float64(n)
	// The normal equations of rows (x, y, 1) against -(x²+y²): m is symmetric and the
	// products with 1 are the values themselves, so six sums and three right-hand
	// sides hold it (each summed in point order, as the full product would be).
	var sxx, sxy, sx, syy, sy, s1, rx, ry, r1 float64
	for i, p := range pts {
		if border[i] {
			continue
		}
		x, y := p.X-ox, p.Y-oy
		rhs := -(x*x + y*y)
		sxx += x * x
		sxy += x * y
		sx += x
		syy += y * y
		sy += y
		s1++
		rx += x * rhs
		ry += y * rhs
		r1 += rhs
	}
	m := [3][4]float64{{sxx, sxy, sx, rx}, {sxy, syy, sy, ry}, {sx, sy, s1, r1}}
	sol, ok := solve3(m)
	if !ok {
		return Shape{}, false
	}
	cx, cy := -sol[0]/2, -sol[1]/2
	r2 := cx*cx + cy*cy - sol[2]
	if r2 <= 0 {
		return Shape{}, false
	}
	return Shape{Kind: Circle, Center: fit.Point{X: cx + ox, Y: cy + oy}, R: math.Sqrt(r2)}, true
}

// solve3 solves a 3x3 linear system given as an augmented matrix, by Gaussian
// elimination with partial pivoting.
func solve3(m [3][4]float64) ([3]float64, bool) {
	for c := range 3 {
		p := c
		for r := c + 1; r < 3; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-12 {
			return [3]float64{}, false
		}
		m[c], m[p] = m[p], m[c]
		for r := range 3 {
			if r == c {
				continue
			}
			f := m[r][c] / m[c][c]
			for k := c; k < 4; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	return [3]float64{m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]}, true
}

// fitEllipse returns the ellipse with the area moments m.
func fitEllipse(m moments) Shape {
	tr := m.sxx + m.syy
	det := m.sxx*m.syy - m.sxy*m.sxy
	disc := math.Sqrt(math.Max(tr*tr/4-det, 0))
	l1, l2 := tr/2+disc, tr/2-disc
	if l2 <= 0 {
		return Shape{}
	}
	angle := 0.5 * math.Atan2(2*m.sxy, m.sxx-m.syy) * 180 / math.Pi
	return Shape{Kind: Ellipse, Center: m.c, RX: 2 * math.Sqrt(l1), RY: 2 * math.Sqrt(l2), Angle: normAngle(angle, 90)}
}

// normAngle brings a (degrees) into (-period/2, period/2].
func normAngle(a, period float64) float64 {
	a = math.Mod(a, period)
	if a > period/2 {
		a -= period
	}
	if a <= -period/2 {
		a += period
	}
	return a
}

// axisSnap is the angle (degrees) under which a rectangle counts as axis-aligned.
const axisSnap = 0.25

// orientations returns the rectangle orientation (degrees in (-45, 45]) of the whole
// outline and of its part off the image border: the mean direction of its pieces modulo
// 90 degrees, weighted by length, the second leaving out the pieces along the border.
// One pass makes both, each piece's direction worked out once.
func orientations(pts []fit.Point, border []bool) (whole, free float64) {
	var s4, c4, fs4, fc4 float64
	n := len(pts)
	for i := range n {
		j := (i + 1) % n
		d := pts[j].Sub(pts[i])
		l := d.Len()
		if l == 0 {
			continue
		}
		sin, cos := math.Sincos(4 * math.Atan2(d.Y, d.X))
		s4 += l * sin
		c4 += l * cos
		if !border[i] || !border[j] {
			fs4 += l * sin
			fc4 += l * cos
		}
	}
	return orientationAngle(s4, c4), orientationAngle(fs4, fc4)
}

// orientationAngle returns the orientation (degrees in (-45, 45]) whose fourfold angle
// has the sine and cosine sums s4 and c4, snapped to 0 within axisSnap.
func orientationAngle(s4, c4 float64) float64 {
	angle := math.Atan2(s4, c4) / 4 * 180 / math.Pi
	if math.Abs(angle) < axisSnap {
		angle = 0
	}
	return normAngle(angle, 90)
}

// rectAt estimates the rectangle, rounded or not, at the given angle: its sides from
// the outline's extents, its corner radius from the area missing at the corners.
func rectAt(pts []fit.Point, angle float64, m moments) Shape {
	s := Shape{Kind: Rect, Angle: angle}
	sin, cos := math.Sincos(-angle * math.Pi / 180)
	u0, v0 := math.Inf(1), math.Inf(1)
	u1, v1 := math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		u, v := p.X*cos-p.Y*sin, p.X*sin+p.Y*cos
		u0, u1 = min(u0, u), max(u1, u)
		v0, v1 = min(v0, v), max(v1, v)
	}
	s.W, s.H = u1-u0, v1-v0
	cu, cv := (u0+u1)/2, (v0+v1)/2
	// Back to image coordinates: rotate by +angle.
	sin, cos = math.Sincos(angle * math.Pi / 180)
	s.Center = fit.Point{X: cu*cos - cv*sin, Y: cu*sin + cv*cos}
	lost := s.W*s.H - m.area
	if lost > 0 {
		s.R = math.Min(math.Sqrt(lost/(4-math.Pi)), math.Min(s.W, s.H)/2)
	}
	return s
}

// Sample returns points along the closed path p, at most step pixels apart, the path's
// start first and its end (equal to the start) left out.
func Sample(p fit.Path, step float64, dst []fit.Point) []fit.Point {
	from := p.From
	for _, s := range p.Segs {
		var l float64
		if s.Cubic {
			l = s.C1.Sub(from).Len() + s.C2.Sub(s.C1).Len() + s.To.Sub(s.C2).Len()
		} else {
			l = s.To.Sub(from).Len()
		}
		n := max(1, int(math.Ceil(l/step)))
		for k := range n {
			dst = append(dst, s.Eval(from, float64(k)/float64(n)))
		}
		from = s.To
	}
	return dst
}

// Candidates returns the shapes Recognize would try, for inspection.
func Candidates(pts []fit.Point, w, h float64) []Shape {
	border := make([]bool, len(pts))
	for i, p := range pts {
		border[i] = p.X <= borderEps || p.Y <= borderEps || p.X >= w-borderEps || p.Y >= h-borderEps
	}
	m := measure(pts)
	var out []Shape
	if c, ok := fitCircle(pts, border); ok {
		out = append(out, c)
	}
	return append(append(out, fitRects(pts, border, m)...), fitEllipse(m))
}

// Refit returns s fitted by least squares to pts, another sampling of the same outline
// (for instance the boundary positions measured from the anti-aliasing, which the
// fitted curves only follow within their tolerance); points on the image border are
// left out. The kind stays.
func Refit(s Shape, pts []fit.Point, width, height float64) Shape {
	border := make([]bool, len(pts))
	free := 0
	for i, p := range pts {
		border[i] = p.X <= borderEps || p.Y <= borderEps || p.X >= width-borderEps || p.Y >= height-borderEps
		if !border[i] {
			free++
		}
	}
	if free < 8 {
		return s
	}
	spts, sborder := subsample(pts, border, maxRefinePoints)
	r := refine(s, spts, sborder)
	r.Angle = normAngle(r.Angle, r.period())
	return r
}

// Grow returns the shape with its outline moved outwards by d pixels (inwards for a
// negative d): radii and corner radius grow by d, a rectangle's sides by 2d.
func (s Shape) Grow(d float64) Shape {
	switch s.Kind {
	case Circle:
		s.R += d
	case Ellipse:
		s.RX += d
		s.RY += d
	case Rect:
		s.W += 2 * d
		s.H += 2 * d
		s.R = math.Max(s.R+d, 0)
	}
	return s
}

// Within reports whether pts (a closed outline) lie within opt.Tolerance of s as
// Recognize requires, area included.
func Within(s Shape, pts []fit.Point, opt Options) bool {
	border := make([]bool, len(pts))
	for i, p := range pts {
		border[i] = p.X <= borderEps || p.Y <= borderEps || p.X >= opt.Width-borderEps || p.Y >= opt.Height-borderEps
	}
	return s.size() >= opt.MinSize && fits(s, pts, border, opt.Tolerance) && sameArea(s, measure(pts).area, opt)
}
