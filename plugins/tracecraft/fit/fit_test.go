package fit_test

import (
	"math"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
)

// distance returns the largest distance from any sample to the path (sampled densely).
func distance(p fit.Path, samples []fit.Point) float64 {
	var pts []fit.Point
	cur := p.From
	for _, s := range p.Segs {
		for k := 0; k <= 2000; k++ {
			pts = append(pts, s.Eval(cur, float64(k)/2000))
		}
		cur = s.To
	}
	worst := 0.0
	for _, q := range samples {
		best := math.Inf(1)
		for _, r := range pts {
			best = math.Min(best, q.Sub(r).Len())
		}
		worst = math.Max(worst, best)
	}
	return worst
}

// square returns the crack midpoints around an n x n pixel square at the origin,
// clockwise on screen from the top-left corner.
func square(n int) []fit.Point {
	var s []fit.Point
	f := float64(n)
	for i := 0; i < n; i++ {
		s = append(s, fit.Point{X: float64(i) + 0.5, Y: 0})
	}
	for i := 0; i < n; i++ {
		s = append(s, fit.Point{X: f, Y: float64(i) + 0.5})
	}
	for i := n - 1; i >= 0; i-- {
		s = append(s, fit.Point{X: float64(i) + 0.5, Y: f})
	}
	for i := n - 1; i >= 0; i-- {
		s = append(s, fit.Point{X: 0, Y: float64(i) + 0.5})
	}
	return s
}

func circle(r float64, n int) []fit.Point {
	s := make([]fit.Point, n)
	for i := range s {
		a := 2 * math.Pi * float64(i) / float64(n)
		s[i] = fit.Point{X: 50 + r*math.Cos(a), Y: 50 + r*math.Sin(a)}
	}
	return s
}

func TestClosed(t *testing.T) {
	tests := []struct {
		name     string
		samples  []fit.Point
		tol      float64
		maxSegs  int
		corners  []fit.Point // points the path must pass through exactly
		allLines bool
	}{
		{"square: four lines through the corners", square(10), 0.5, 4,
			[]fit.Point{{X: 0, Y: 0}, {X: 10, Y: 0}, {X: 10, Y: 10}, {X: 0, Y: 10}}, true},
		{"circle: a few cubics", circle(20, 126), 0.5, 8, nil, false},
		{"circle at tolerance 0: followed closely", circle(20, 126), 0, 126, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fit.Closed(tt.samples, fit.Options{Tolerance: tt.tol})
			if len(p.Segs) > tt.maxSegs {
				t.Errorf("%d segments, want at most %d", len(p.Segs), tt.maxSegs)
			}
			if p.End() != p.From {
				t.Errorf("path ends at %v, starts at %v", p.End(), p.From)
			}
			if d := distance(p, tt.samples); d > math.Max(tt.tol, 0.01)+1e-6 {
				t.Errorf("a sample lies %.3f from the path, tolerance %v: %d segments %+v", d, tt.tol, len(p.Segs), p)
			}
			for _, c := range tt.corners {
				hit := p.From == c
				for _, s := range p.Segs {
					hit = hit || s.To.Sub(c).Len() < 1e-9
				}
				if !hit {
					t.Errorf("path %+v misses corner %v", p, c)
				}
			}
			for _, s := range p.Segs {
				if tt.allLines && s.Cubic {
					t.Errorf("segment %+v is a curve, want lines only", s)
				}
			}
		})
	}
}

func TestOpen(t *testing.T) {
	// A quarter circle between fixed ends, and a straight staircase.
	var arc []fit.Point
	for i := 1; i < 40; i++ {
		a := math.Pi / 2 * float64(i) / 40
		arc = append(arc, fit.Point{X: 30 * math.Cos(a), Y: 30 * math.Sin(a)})
	}
	var stairs []fit.Point
	for i := 0; i < 20; i++ {
		stairs = append(stairs, fit.Point{X: float64(i) + 0.5, Y: float64(i)}, fit.Point{X: float64(i) + 1, Y: float64(i) + 0.5})
	}
	tests := []struct {
		name     string
		from, to fit.Point
		samples  []fit.Point
		maxSegs  int
	}{
		{"quarter circle", fit.Point{X: 30}, fit.Point{Y: 30}, arc, 2},
		{"staircase is a line", fit.Point{}, fit.Point{X: 20, Y: 20}, stairs, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fit.Open(tt.from, tt.to, tt.samples, fit.Options{Tolerance: 0.5})
			if p.From != tt.from || p.End() != tt.to {
				t.Errorf("path runs %v to %v, want %v to %v", p.From, p.End(), tt.from, tt.to)
			}
			if len(p.Segs) > tt.maxSegs {
				t.Errorf("%d segments %+v, want at most %d", len(p.Segs), p.Segs, tt.maxSegs)
			}
			if d := distance(p, tt.samples); d > 0.5+1e-6 {
				t.Errorf("a sample lies %.3f from the path", d)
			}
		})
	}
}

// TestNarrowNotch checks that the two corners of a notch narrower than the corner
// detector's reach stay sharp (the middle of the notch is no corner).
func TestNarrowNotch(t *testing.T) {
	// Up x = 0 from y = 10 to 0, right to x = 3, down to y = 10.
	var s []fit.Point
	for y := 9; y >= 0; y-- {
		s = append(s, fit.Point{X: 0, Y: float64(y) + 0.5})
	}
	for x := 0; x < 3; x++ {
		s = append(s, fit.Point{X: float64(x) + 0.5, Y: 0})
	}
	for y := 0; y < 10; y++ {
		s = append(s, fit.Point{X: 3, Y: float64(y) + 0.5})
	}
	p := fit.Open(fit.Point{X: 0, Y: 10}, fit.Point{X: 3, Y: 10}, s, fit.Options{Tolerance: 0.5})
	want := []fit.Point{{X: 0, Y: 0}, {X: 3, Y: 0}, {X: 3, Y: 10}}
	if len(p.Segs) != len(want) {
		t.Fatalf("path %+v, want lines through %v", p, want)
	}
	for i, s := range p.Segs {
		if s.Cubic || s.To.Sub(want[i]).Len() > 1e-9 {
			t.Errorf("segment %d is %+v, want a line to %v", i, s, want[i])
		}
	}
}

func TestOffset(t *testing.T) {
	// A 10 x 10 square walked clockwise on screen (y down): its right-hand normal
	// points in.
	sq := fit.Path{From: fit.Point{}, Segs: []fit.Segment{{To: fit.Point{X: 10}}, {To: fit.Point{X: 10, Y: 10}}, {To: fit.Point{Y: 10}}, {To: fit.Point{}}}}
	tests := []struct {
		d    float64
		want []fit.Point
	}{
		{-0.5, []fit.Point{{X: -0.5, Y: -0.5}, {X: 10.5, Y: -0.5}, {X: 10.5, Y: 10.5}, {X: -0.5, Y: 10.5}}},
		{1, []fit.Point{{X: 1, Y: 1}, {X: 9, Y: 1}, {X: 9, Y: 9}, {X: 1, Y: 9}}},
	}
	for _, tt := range tests {
		o := sq.Offset(tt.d)
		got := []fit.Point{o.From}
		for _, s := range o.Segs[:3] {
			got = append(got, s.To)
		}
		for i := range got {
			if got[i].Sub(tt.want[i]).Len() > 1e-9 {
				t.Errorf("Offset(%v) corner %d = %v, want %v (positive is inward)", tt.d, i, got[i], tt.want[i])
			}
		}
	}
}

func TestReverse(t *testing.T) {
	p := fit.Path{From: fit.Point{X: 1, Y: 2}, Segs: []fit.Segment{
		{To: fit.Point{X: 5, Y: 2}},
		{Cubic: true, C1: fit.Point{X: 6, Y: 2}, C2: fit.Point{X: 7, Y: 3}, To: fit.Point{X: 7, Y: 5}},
	}}
	r := p.Reverse()
	if r.From != p.End() || r.End() != p.From {
		t.Fatalf("reverse runs %v to %v", r.From, r.End())
	}
	for _, u := range []float64{0, 0.3, 0.7, 1} {
		a := p.Segs[1].Eval(p.Segs[0].To, u)
		b := r.Segs[0].Eval(r.From, 1-u)
		if a.Sub(b).Len() > 1e-9 {
			t.Errorf("at %v: %v forwards, %v backwards", u, a, b)
		}
	}
	if rr := r.Reverse(); rr.From != p.From || len(rr.Segs) != 2 || rr.Segs[1] != p.Segs[1] {
		t.Errorf("reversing twice gives %+v", rr)
	}
}

func TestParallelMovesACircleToTheConcentricCircle(t *testing.T) {
	// A circle of radius 20 as four cubics, walked clockwise on screen (y down): its
	// right-hand normal points to the centre, so Parallel(d) is the circle of radius
	// 20 - d. Every point of it must lie at that radius, to within a hundredth of the
	// distance moved (Offset alone strays over a tenth of it).
	const r, k = 20.0, 0.5522847498
	c := fit.Point{X: 50, Y: 50}
	at := func(x, y float64) fit.Point { return fit.Point{X: c.X + x, Y: c.Y + y} }
	circle := fit.Path{From: at(r, 0), Segs: []fit.Segment{
		{Cubic: true, C1: at(r, k*r), C2: at(k*r, r), To: at(0, r)},
		{Cubic: true, C1: at(-k*r, r), C2: at(-r, k*r), To: at(-r, 0)},
		{Cubic: true, C1: at(-r, -k*r), C2: at(-k*r, -r), To: at(0, -r)},
		{Cubic: true, C1: at(k*r, -r), C2: at(r, -k*r), To: at(r, 0)},
	}}
	for _, d := range []float64{1, -1, 4} {
		p := circle.Parallel(d)
		prev := p.From
		worst := 0.0
		for _, s := range p.Segs {
			for i := 0; i <= 16; i++ {
				worst = math.Max(worst, math.Abs(s.Eval(prev, float64(i)/16).Sub(c).Len()-(r-d)))
			}
			prev = s.To
		}
		if worst > 0.01*math.Abs(d) {
			t.Errorf("Parallel(%v) strays %.4f from the circle of radius %v", d, worst, r-d)
		}
	}
}

// TestParallelFollowsCurvesWhoseBendChanges moves cubics whose curvature changes along
// them (an S, and an arc bending sharply in its middle) by 1 px either way: every point
// of the moved path must lie between 0.8 and 1.2 px from the original curve (the end
// normals alone move the middle of such curves by a fraction of that).
func TestParallelFollowsCurvesWhoseBendChanges(t *testing.T) {
	for _, c := range []struct {
		name string
		path fit.Path
	}{
		{"an S", fit.Path{From: fit.Point{X: 0, Y: 0}, Segs: []fit.Segment{{Cubic: true, C1: fit.Point{X: 20, Y: -18}, C2: fit.Point{X: 20, Y: 38}, To: fit.Point{X: 40, Y: 20}}}}},
		{"a bend sharp in its middle", fit.Path{From: fit.Point{X: 0, Y: 0}, Segs: []fit.Segment{{Cubic: true, C1: fit.Point{X: 30, Y: 0}, C2: fit.Point{X: 40, Y: 10}, To: fit.Point{X: 40, Y: 40}}}}},
	} {
		orig := sample(c.path, 4000)
		for _, d := range []float64{1, -1} {
			moved := sample(c.path.Parallel(d), 400)
			lo, hi := math.Inf(1), 0.0
			for _, p := range moved {
				near := math.Inf(1)
				for _, q := range orig {
					near = math.Min(near, p.Sub(q).Len())
				}
				lo, hi = math.Min(lo, near), math.Max(hi, near)
			}
			if lo < 0.8 || hi > 1.2 {
				t.Errorf("%s moved by %v: its points lie %.3f to %.3f px from the curve, want 0.8 to 1.2", c.name, d, lo, hi)
			}
		}
	}
}

// sample returns n points along each segment of p.
func sample(p fit.Path, n int) []fit.Point {
	var out []fit.Point
	prev := p.From
	for _, s := range p.Segs {
		for i := 0; i <= n; i++ {
			out = append(out, s.Eval(prev, float64(i)/float64(n)))
		}
		prev = s.To
	}
	return out
}
