package fit

import (
	"math"
	"testing"
)

// distance returns the distance from p to the nearest of segs: each is sampled at 200
// parameters, and the nearest sample's neighbourhood searched by ternary search (a
// long curve's samples lie pixels apart where its parameter runs fast).
func distance(p Vec, segs []Segment) float64 {
	best := math.Inf(1)
	for _, s := range segs {
		at := func(t float64) float64 {
			if s.Line {
				return s.P0.add(s.P3.sub(s.P0).mul(t)).dist(p)
			}
			return bezier(s, t).dist(p)
		}
		const n = 200
		k := 0
		for i := 1; i <= n; i++ {
			if at(float64(i)/n) < at(float64(k)/n) {
				k = i
			}
		}
		lo, hi := max(0, float64(k-1)/n), min(1, float64(k+1)/n)
		for range 60 {
			a, b := lo+(hi-lo)/3, hi-(hi-lo)/3
			if at(a) < at(b) {
				hi = b
			} else {
				lo = a
			}
		}
		best = min(best, at(float64(k)/n), at((lo+hi)/2))
	}
	return best
}

func TestFitStaysWithinTolerance(t *testing.T) {
	var arc, zig []Vec
	for i := 0; i <= 100; i++ {
		a := float64(i) / 100 * math.Pi
		arc = append(arc, Vec{50 + 40*math.Cos(a), 50 + 40*math.Sin(a)})
	}
	for i := 0; i <= 40; i++ {
		y := float64(i % 20)
		if i >= 20 {
			y = 20 - y
		}
		if i == 40 {
			y = 0
		}
		zig = append(zig, Vec{float64(i), y})
	}
	tests := []struct {
		name    string
		pts     []Vec
		maxSegs int
		corners bool
	}{
		{"a half circle takes few curves", arc, 4, false},
		{"a peak keeps its corner as two lines", zig, 2, true},
	}
	for _, tt := range tests {
		segs := Fit(tt.pts, nil, false, Options{Tolerance: 0.3, CornerAngle: 55})
		if len(segs) == 0 || len(segs) > tt.maxSegs {
			t.Errorf("%s: %d segments, want 1..%d", tt.name, len(segs), tt.maxSegs)
		}
		for _, p := range tt.pts {
			if best := distance(p, segs); best > 0.35 {
				t.Errorf("%s: point %v is %.2f from the fit", tt.name, p, best)
				break
			}
		}
	}
}

// TestFitSmoothsAWobbleAndKeepsTheCurve fits a half circle of radius 30 sampled every
// pixel whose points wobble off it by +-amp in turn (as measured centres do): the fit
// takes no more segments than for the clean circle, and stays on the true circle (the
// smoothing neither follows the wobble nor shrinks the curve).
func TestFitSmoothsAWobbleAndKeepsTheCurve(t *testing.T) {
	tests := []struct {
		name string
		amp  float64
	}{
		{"no wobble", 0},
		{"a wobble of 0.2 px", 0.2},
		{"a wobble of 0.35 px", 0.35},
	}
	const r = 30.0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pts []Vec
			n := 94 // about a pixel apart
			for i := 0; i <= n; i++ {
				a := float64(i) / float64(n) * math.Pi
				rr := r + tt.amp*float64(1-2*(i%2))
				if i == 0 || i == n {
					rr = r
				}
				pts = append(pts, Vec{50 + rr*math.Cos(a), 50 + rr*math.Sin(a)})
			}
			segs := Fit(pts, nil, false, Options{Tolerance: 0.25, CornerAngle: 55})
			if len(segs) == 0 || len(segs) > 4 {
				t.Errorf("%d segments, want 1..4", len(segs))
			}
			worst := 0.0
			for _, s := range segs {
				for k := 0; k <= 50; k++ {
					q := bezier(s, float64(k)/50)
					if s.Line {
						q = s.P0.add(s.P3.sub(s.P0).mul(float64(k) / 50))
					}
					worst = math.Max(worst, math.Abs(q.dist(Vec{50, 50})-r))
				}
			}
			if worst > 0.25 {
				t.Errorf("the fit strays %.2f px from the circle, want at most 0.25", worst)
			}
		})
	}
}

// TestFitTakesEachPieceAsLongAsItFits fits waves sampled every half pixel: the pieces
// are as long as the tolerance allows, so a wave of n half periods takes at most n
// cubics (splitting at the worst point took 7, 9 and 7 here), and the fit stays within
// the tolerance.
func TestFitTakesEachPieceAsLongAsItFits(t *testing.T) {
	tests := []struct {
		name        string
		amp, period float64
		periods     int
		tol         float64
		maxSegs     int
	}{
		{"a shallow wave", 6, 80, 3, 0.5, 5},
		{"a steep wave", 15, 60, 4, 0.5, 8},
		{"a wave at a loose tolerance", 15, 60, 4, 1.5, 5},
	}
	for _, tt := range tests {
		var pts []Vec
		for x := 0.0; x <= tt.period*float64(tt.periods); x += 0.5 {
			pts = append(pts, Vec{x, 50 + tt.amp*math.Sin(2*math.Pi*x/tt.period)})
		}
		segs := Fit(pts, nil, false, Options{Tolerance: tt.tol, CornerAngle: 55})
		if len(segs) == 0 || len(segs) > tt.maxSegs {
			t.Errorf("%s: %d segments, want 1..%d", tt.name, len(segs), tt.maxSegs)
		}
		for _, p := range pts {
			if best := distance(p, segs); best > tt.tol+0.1 {
				t.Errorf("%s: point %v is %.2f from the fit", tt.name, p, best)
				break
			}
		}
	}
}

func TestAClosedChainIsFittedFromItsSharpestBend(t *testing.T) {
	// A teardrop: a tip at (50, 10), the tangents from it to a circle of radius 20
	// round (50, 50), and the circle's arc below them; sampled about a pixel apart and
	// listed from the arc's bottom.
	tip, c := Vec{50, 10}, Vec{50, 50}
	const r = 20.0
	half := math.Acos(r / c.dist(tip)) // the touching points' angle from the tip's direction
	var drop []Vec
	up := -math.Pi / 2 // the tip's direction from the centre, on screen
	from, to := up+half, up+2*math.Pi-half
	for a := from; a <= to; a += 1 / r {
		drop = append(drop, Vec{c.X + r*math.Cos(a), c.Y + r*math.Sin(a)})
	}
	last := drop[len(drop)-1]
	for k := 1.0; k < tip.dist(last); k++ {
		drop = append(drop, last.add(tip.sub(last).unit().mul(k)))
	}
	drop = append(drop, tip)
	first := drop[0]
	for k := 1.0; k < tip.dist(first); k++ {
		drop = append(drop, tip.add(first.sub(tip).unit().mul(k)))
	}
	bottom := len(drop) / 3 // roughly the arc's bottom
	drop = append(drop[bottom:], drop[:bottom]...)
	segs := Fit(drop, nil, true, Options{Tolerance: 0.5, CornerAngle: 55})
	if len(segs) == 0 || segs[0].P0.dist(tip) > 1 || segs[len(segs)-1].P3.dist(tip) > 1 {
		t.Errorf("the fit runs from %v to %v, want from the tip %v back to it", segs[0].P0, segs[len(segs)-1].P3, tip)
	}
	for _, p := range drop {
		if d := distance(p, segs); d > 0.6 {
			t.Errorf("point %v is %.2f from the fit", p, d)
			break
		}
	}
}

// TestMaxSegmentsStopsTheFitAfterThem checks that a fit limited to MaxSegments returns
// the unlimited fit's first MaxSegments+1 segments when it has more, and the whole of
// it when it has no more.
func TestMaxSegmentsStopsTheFitAfterThem(t *testing.T) {
	// a wave with corners every 20 points: many segments
	var pts []Vec
	for i := range 200 {
		x := float64(i)
		pts = append(pts, Vec{x, 10*math.Sin(x/7) + float64(i%20/10)*8})
	}
	o := Options{Tolerance: 0.5, CornerAngle: 60}
	all := Fit(pts, nil, false, o)
	if len(all) < 6 {
		t.Fatalf("the wave fits to %d segments; the test needs 6 or more", len(all))
	}
	tests := []struct {
		name string
		max  int
		want int
	}{
		{"one", 1, 2},
		{"three", 3, 4},
		{"one fewer than the fit", len(all) - 1, len(all)},
		{"the fit's own", len(all), len(all)},
		{"more than the fit", len(all) + 5, len(all)},
	}
	for _, tt := range tests {
		o.MaxSegments = tt.max
		got := Fit(pts, nil, false, o)
		if len(got) != tt.want {
			t.Errorf("%s: %d segments, want %d", tt.name, len(got), tt.want)
			continue
		}
		for i := range got {
			if got[i] != all[i] {
				t.Errorf("%s: segment %d is %v, want %v", tt.name, i, got[i], all[i])
				break
			}
		}
	}
}
