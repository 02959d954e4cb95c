package fit

import (
	"math"
	"testing"
)

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
			best := math.Inf(1)
			for _, s := range segs {
				for k := 0; k <= 200; k++ {
					var q Vec
					if s.Line {
						q = s.P0.add(s.P3.sub(s.P0).mul(float64(k) / 200))
					} else {
						q = bezier(s, float64(k)/200)
					}
					best = math.Min(best, q.dist(p))
				}
			}
			if best > 0.35 {
				t.Errorf("%s: point %v is %.2f from the fit", tt.name, p, best)
				break
			}
		}
	}
}
