package fit

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// wobblyStar returns a closed chain of about n points: a star of arms points, each
// arm's sides wobbling by up to wobble pixels, one point a pixel apart along them,
// so that each tip is a corner and the runs between them are curves.
func wobblyStar(r *rand.Rand, n, arms int, wobble float64) []Vec {
	pts := make([]Vec, 0, n)
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		// a zigzag radius: tips at the arms, valleys between
		f := math.Abs(math.Mod(a*float64(arms)/(2*math.Pi)+0.5, 1)-0.5) * 2
		rad := float64(n)/(2*math.Pi)*(0.15+0.85*f) + wobble*(r.Float64()-0.5)
		pts = append(pts, Vec{X: rad * math.Cos(a), Y: rad * math.Sin(a)})
	}
	return pts
}

func TestSplitFitIsTheOneGoroutineFit(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 21))
	for _, tc := range []struct {
		name       string
		n, arms    int
		wobble     float64
		maxSegs    []int
		opt        Options
		wantSplits bool
	}{
		{"outline star", 6000, 5, 0.8, []int{0, 1, 3, 10, 40}, Options{Tolerance: 0.9, CornerAngle: 140, SmoothPasses: 10, Sample: 3}, true},
		{"stroke star", 4000, 7, 0.4, []int{0, 2, 25}, Options{Tolerance: 0.5, CornerAngle: 120, Sample: 2}, true},
		{"many corners", 3000, 40, 0.3, []int{0, 5}, Options{Tolerance: 0.5, CornerAngle: 60}, true},
		{"short", minSplitPoints - 10, 5, 0.5, []int{0}, Options{Tolerance: 0.9, CornerAngle: 140, SmoothPasses: 10, Sample: 3}, false},
	} {
		pts := wobblyStar(r, tc.n, tc.arms, tc.wobble)
		for _, most := range tc.maxSegs {
			o := tc.opt
			o.MaxSegments = most
			prev := runtime.GOMAXPROCS(1)
			one := Fit(pts, nil, true, o)
			runtime.GOMAXPROCS(2)
			two := Fit(pts, nil, true, o)
			runtime.GOMAXPROCS(prev)
			if !slices.Equal(one, two) {
				t.Errorf("%s, MaxSegments %d: %d segments on two goroutines, %d on one, or they differ", tc.name, most, len(two), len(one))
			}
			if most > 0 && len(two) > most+1 {
				t.Errorf("%s, MaxSegments %d: %d segments", tc.name, most, len(two))
			}
		}
		var b buffers
		closed := append(b.dedupe(pts), pts[0])
		cs := b.findCorners(closed, append(b.steps, pts[0].dist(pts[len(pts)-1])), nil, tc.opt.CornerAngle)
		if got := splitAt(cs) > 0 && len(closed) >= minSplitPoints; got != tc.wantSplits {
			t.Errorf("%s: %d corners, split %v, want %v", tc.name, len(cs), got, tc.wantSplits)
		}
	}
}

func TestSplitAtBalancesThePoints(t *testing.T) {
	for _, tc := range []struct {
		corners []int
		want    int
	}{
		{nil, 0},
		{[]int{0, 10}, 0},
		{[]int{0, 5, 10}, 1},
		{[]int{0, 1, 2, 10}, 2},
		{[]int{0, 8, 9, 10}, 1},
		{[]int{3, 4, 5, 6, 7, 13}, 4},
		{[]int{0, 3000, 3400, 6000, 9000, 12454}, 3},
	} {
		if got := splitAt(tc.corners); got != tc.want {
			t.Errorf("splitAt(%v) = %d, want %d", tc.corners, got, tc.want)
		}
	}
}
