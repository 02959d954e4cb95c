package primitive

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
)

// outline returns about n points around s, with a wobble of amplitude noise (pixels)
// away from the centre, as a fitted boundary has.
func outline(s Shape, n int, noise float64) []fit.Point {
	pts := s.Outline(n)
	if s.Kind == Rect {
		pts = walk(pts, perimeter(pts)/float64(n))
	}
	c := s.Center
	for i := range pts {
		d := pts[i].Sub(c).Unit()
		pts[i] = pts[i].Add(d.Mul(noise * math.Sin(float64(i)*0.7)))
	}
	return pts
}

// walk resamples the closed polyline pts every step along its length.
func walk(pts []fit.Point, step float64) []fit.Point {
	var out []fit.Point
	carry := 0.0
	for i, a := range pts {
		b := pts[(i+1)%len(pts)]
		l := b.Sub(a).Len()
		for d := carry; d < l; d += step {
			out = append(out, a.Lerp(b, d/l))
		}
		carry = math.Mod(carry-l, step)
		if carry < 0 {
			carry += step
		}
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func angleNear(a, b, period, tol float64) bool {
	d := math.Mod(math.Abs(a-b), period)
	return d <= tol || period-d <= tol
}

var big = Options{Tolerance: 0.5, Width: 1000, Height: 1000, MinSize: 2}

func TestRecognize(t *testing.T) {
	tests := []struct {
		name string
		want Shape
	}{
		{"circle", Shape{Kind: Circle, Center: fit.Point{X: 200.3, Y: 150.7}, R: 60.2}},
		{"small circle", Shape{Kind: Circle, Center: fit.Point{X: 20, Y: 30}, R: 4}},
		{"ellipse", Shape{Kind: Ellipse, Center: fit.Point{X: 300, Y: 400}, RX: 90, RY: 40}},
		{"rotated ellipse", Shape{Kind: Ellipse, Center: fit.Point{X: 300.5, Y: 400.2}, RX: 90, RY: 40, Angle: 30}},
		{"rect", Shape{Kind: Rect, Center: fit.Point{X: 100, Y: 120}, W: 80.4, H: 40.6}},
		{"rotated rect", Shape{Kind: Rect, Center: fit.Point{X: 500, Y: 500}, W: 200, H: 100, Angle: 20}},
		{"rotated square", Shape{Kind: Rect, Center: fit.Point{X: 500, Y: 500}, W: 150, H: 150, Angle: -33}},
		{"rounded rect", Shape{Kind: Rect, Center: fit.Point{X: 400, Y: 300}, W: 300, H: 160, R: 30}},
		{"rotated rounded rect", Shape{Kind: Rect, Center: fit.Point{X: 400, Y: 300}, W: 300, H: 160, R: 25, Angle: -12}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Recognize(outline(tc.want, 400, 0.2), big)
			w := tc.want
			if got.Kind != w.Kind {
				t.Fatalf("kind %v, want %v (%+v)", got.Kind, w.Kind, got)
			}
			ok := near(got.Center.X, w.Center.X, 0.5) && near(got.Center.Y, w.Center.Y, 0.5)
			switch w.Kind {
			case Circle:
				ok = ok && near(got.R, w.R, 0.5)
			case Ellipse:
				ok = ok && near(got.RX, w.RX, 0.5) && near(got.RY, w.RY, 0.5) && angleNear(got.Angle, w.Angle, 180, 1)
			case Rect:
				// A square's sides may come out swapped with the angle a quarter turn
				// away.
				ok = ok && near(got.W, w.W, 0.5) && near(got.H, w.H, 0.5) && angleNear(got.Angle, w.Angle, 90, 1) &&
					near(got.R, w.R, 0.5)
			}
			if !ok {
				t.Errorf("got %+v, want %+v", got, w)
			}
		})
	}
}

// TestClippedByTheImage: a circle that runs off the image is drawn whole and clipped by
// the view box.
func TestClippedByTheImage(t *testing.T) {
	c := Shape{Kind: Circle, Center: fit.Point{X: 50, Y: 60}, R: 70}
	pts := clip(outline(c, 400, 0.1), 200, 200)
	got := Recognize(pts, Options{Tolerance: 0.5, Width: 200, Height: 200, MinSize: 2})
	if got.Kind != Circle || !near(got.R, 70, 0.5) || !near(got.Center.X, 50, 0.5) || !near(got.Center.Y, 60, 0.5) {
		t.Errorf("got %+v, want the circle %+v", got, c)
	}
}

func star(cx, cy, r1, r2 float64, spikes, n int) []fit.Point {
	var pts []fit.Point
	for k := range n {
		t := 2 * math.Pi * float64(k) / float64(n)
		// Radius alternates between r1 and r2 spikes times around.
		f := 0.5 + 0.5*math.Cos(float64(spikes)*t)
		r := r2 + (r1-r2)*f
		pts = append(pts, fit.Point{X: cx + r*math.Cos(t), Y: cy + r*math.Sin(t)})
	}
	return pts
}

func TestNotAPrimitive(t *testing.T) {
	tests := []struct {
		name string
		pts  []fit.Point
	}{
		{"star", star(300, 300, 100, 45, 5, 400)},
		{"blob", star(300, 300, 100, 88, 3, 400)},
		{"gentle blob", star(300, 300, 100, 97, 3, 400)},
		{"triangle", []fit.Point{{X: 100, Y: 100}, {X: 300, Y: 100}, {X: 200, Y: 280}, {X: 150, Y: 190}, {X: 200, Y: 100},
			{X: 250, Y: 190}, {X: 120, Y: 136}, {X: 280, Y: 136}}},
		// A thin band along an arc: both of its sides lie near one circle.
		{"arc band", arcBand(300, 300, 200, 0.6, 400)},
	}
	for _, tc := range tests {
		if got := Recognize(tc.pts, big); got.Kind != None {
			t.Errorf("%s recognised as %+v", tc.name, got)
		}
	}
}

// arcBand returns the outline of a band of the given width along a quarter circle.
func arcBand(cx, cy, r, width float64, n int) []fit.Point {
	var out, back []fit.Point
	for k := range n / 2 {
		t := math.Pi / 2 * float64(k) / float64(n/2-1)
		s, c := math.Sincos(t)
		out = append(out, fit.Point{X: cx + (r+width/2)*c, Y: cy + (r+width/2)*s})
		back = append(back, fit.Point{X: cx + (r-width/2)*c, Y: cy + (r-width/2)*s})
	}
	for i := len(back) - 1; i >= 0; i-- {
		out = append(out, back[i])
	}
	return out
}

func TestDistance(t *testing.T) {
	tests := []struct {
		s    Shape
		p    fit.Point
		want float64
	}{
		{Shape{Kind: Circle, Center: fit.Point{X: 0, Y: 0}, R: 10}, fit.Point{X: 13, Y: 0}, 3},
		{Shape{Kind: Circle, Center: fit.Point{X: 0, Y: 0}, R: 10}, fit.Point{X: 0, Y: 4}, -6},
		{Shape{Kind: Rect, Center: fit.Point{X: 0, Y: 0}, W: 20, H: 10}, fit.Point{X: 12, Y: 0}, 2},
		{Shape{Kind: Rect, Center: fit.Point{X: 0, Y: 0}, W: 20, H: 10}, fit.Point{X: 0, Y: 0}, -5},
		{Shape{Kind: Rect, Center: fit.Point{X: 0, Y: 0}, W: 20, H: 10, Angle: 90}, fit.Point{X: 0, Y: 12}, 2},
		{Shape{Kind: Rect, Center: fit.Point{X: 0, Y: 0}, W: 20, H: 20, R: 10}, fit.Point{X: 10, Y: 10}, math.Sqrt2*10 - 10},
		// First order for ellipses: within a few percent near the outline.
		{Shape{Kind: Ellipse, Center: fit.Point{X: 0, Y: 0}, RX: 20, RY: 10}, fit.Point{X: 21, Y: 0}, 1},
		{Shape{Kind: Ellipse, Center: fit.Point{X: 0, Y: 0}, RX: 20, RY: 10}, fit.Point{X: 0, Y: 9.5}, -0.5},
	}
	for _, tc := range tests {
		if got := tc.s.Distance(tc.p); !near(got, tc.want, 0.03) {
			t.Errorf("%v distance to %v = %v, want %v", tc.s, tc.p, got, tc.want)
		}
	}
}

func TestElements(t *testing.T) {
	tests := []struct {
		s    Shape
		want string
	}{
		{Shape{Kind: Circle, Center: fit.Point{X: 10.04, Y: 0}, R: 5.55}, `<circle cx="10" r="5.6" fill="#f00"/>`},
		{Shape{Kind: Ellipse, Center: fit.Point{X: 10, Y: 20}, RX: 5, RY: 3, Angle: 90}, `<ellipse cx="10" cy="20" rx="3" ry="5" fill="#f00"/>`},
		{Shape{Kind: Ellipse, Center: fit.Point{X: 10, Y: 20}, RX: 5, RY: 3, Angle: 30}, `<ellipse transform="translate(10 20)rotate(30)" rx="5" ry="3" fill="#f00"/>`},
		{Shape{Kind: Rect, Center: fit.Point{X: 10, Y: 20}, W: 4, H: 6}, `<rect x="8" y="17" width="4" height="6" fill="#f00"/>`},
		{Shape{Kind: Rect, Center: fit.Point{X: 10, Y: 20}, W: 4, H: 6, R: 1, Angle: -20}, `<rect transform="translate(10 20)rotate(-20)" x="-2" y="-3" width="4" height="6" rx="1" fill="#f00"/>`},
	}
	for _, tc := range tests {
		if got := string(tc.s.AppendElement(nil, ` fill="#f00"`)); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.s, got, tc.want)
		}
	}
}

func TestSubpaths(t *testing.T) {
	c := Shape{Kind: Circle, Center: fit.Point{X: 10, Y: 20}, R: 5}
	if got, want := string(c.AppendSubpath(nil, true)), "M15 20A4.8 4.8 0 0 1 5 20A4.8 4.8 0 0 1 15 20Z"; got != want {
		t.Errorf("circle: %s, want %s", got, want)
	}
	r := Shape{Kind: Rect, Center: fit.Point{X: 10, Y: 20}, W: 4, H: 6}
	if got, want := string(r.AppendSubpath(nil, true)), "M8 17L12 17L12 23L8 23L8 17Z"; got != want {
		t.Errorf("rect clockwise: %s, want %s", got, want)
	}
	if got, want := string(r.AppendSubpath(nil, false)), "M8 17L8 23L12 23L12 17Z"; got != want {
		t.Errorf("rect counterclockwise: %s, want %s", got, want)
	}
	rr := Shape{Kind: Rect, Center: fit.Point{X: 10, Y: 20}, W: 4, H: 6, R: 1}
	if got := string(rr.AppendSubpath(nil, true)); strings.Count(got, "A") != 4 || strings.Count(got, "L") != 4 {
		t.Errorf("rounded rect: %s, want 4 arcs and 4 lines", got)
	}
}

func TestSampleAndOrientation(t *testing.T) {
	sq := fit.Path{From: fit.Point{X: 0, Y: 0}, Segs: []fit.Segment{
		{To: fit.Point{X: 10, Y: 0}}, {To: fit.Point{X: 10, Y: 10}}, {To: fit.Point{X: 0, Y: 10}}, {To: fit.Point{X: 0, Y: 0}}}}
	pts := Sample(sq, 1, nil)
	if len(pts) != 40 {
		t.Fatalf("%d samples, want 40", len(pts))
	}
	if !Clockwise(pts) {
		t.Error("the square runs clockwise on screen")
	}
	m := measure(pts)
	if !near(m.area, 100, 1e-9) || !near(m.c.X, 5, 1e-9) || !near(m.sxx, 100.0/12, 1e-9) {
		t.Errorf("moments %+v, want area 100, centre 5, variance 100/12", m)
	}
}

// TestRectDistanceIsItsDefinition: the rectangle distance, worked out by cases, is
// bit for bit the rounded-box formula hypot(max(qx,0), max(qy,0)) + min(max(qx,qy),0) - r,
// on points inside, beside the sides, by the corners and exactly on the outline.
func TestRectDistanceIsItsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 200000 {
		s := Shape{Kind: Rect, Center: fit.Point{X: rng.Float64() * 50, Y: rng.Float64() * 50},
			W: 1 + rng.Float64()*40, H: 1 + rng.Float64()*40, Angle: (rng.Float64() - 0.5) * 90}
		if i%3 == 0 {
			s.Angle = 0
		}
		s.R = rng.Float64() * min(s.W, s.H) / 2
		if i%4 == 0 {
			s.R = 0
		}
		p := fit.Point{X: s.Center.X + (rng.Float64()-0.5)*s.W*1.5, Y: s.Center.Y + (rng.Float64()-0.5)*s.H*1.5}
		if i%5 == 0 { // on a side of an axis-aligned rectangle: qx or qy exactly 0
			s.Angle, s.R = 0, 0
			p.X = s.Center.X + s.W/2
		}
		f := s.frame()
		u, v := f.local(p)
		qx := math.Abs(u) - (s.W/2 - s.R)
		qy := math.Abs(v) - (s.H/2 - s.R)
		want := math.Hypot(math.Max(qx, 0), math.Max(qy, 0)) + math.Min(math.Max(qx, qy), 0) - s.R
		if got := f.distance(p); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%+v at %v: distance %v, want %v", s, p, got, want)
		}
	}
}
