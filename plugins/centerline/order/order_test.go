package order

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestGreedyDrawsTheNearestEndNext(t *testing.T) {
	ends := []Ends{{X0: 100, Y0: 0, X1: 110, Y1: 0}, {X0: 20, Y0: 0, X1: 1, Y1: 0}, {X0: 30, Y0: 0, X1: 90, Y1: 0}}
	steps, travel := Greedy(ends)
	want := []Step{{1, true}, {2, false}, {0, false}}
	for i := range want {
		if steps[i] != want[i] {
			t.Fatalf("order %v, want %v", steps, want)
		}
	}
	// 20 -> 30, then 90 -> 100.
	if travel != 20 {
		t.Errorf("travel %v, want 20", travel)
	}
}

// greedyByDefinition is Greedy measuring every end with math.Hypot.
func greedyByDefinition(ends []Ends) ([]Step, float64) {
	done := make([]bool, len(ends))
	var steps []Step
	var x, y, travel float64
	for k := range ends {
		best, rev, bestD := -1, false, math.Inf(1)
		for i, e := range ends {
			if done[i] {
				continue
			}
			if d := math.Hypot(e.X0-x, e.Y0-y); d < bestD {
				best, rev, bestD = i, false, d
			}
			if d := math.Hypot(e.X1-x, e.Y1-y); d < bestD {
				best, rev, bestD = i, true, d
			}
		}
		done[best] = true
		if k > 0 {
			travel += bestD
		}
		steps = append(steps, Step{best, rev})
		if e := ends[best]; rev {
			x, y = e.X0, e.Y0
		} else {
			x, y = e.X1, e.Y1
		}
	}
	return steps, travel
}

func TestGreedyMatchesItsDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		n    int
		at   func() float64
	}{
		{"whole pixels (many ties)", 300, func() float64 { return float64(r.IntN(20)) }},
		{"half pixels", 300, func() float64 { return float64(r.IntN(400)) / 2 }},
		{"real coordinates", 500, func() float64 { return r.Float64() * 1000 }},
		{"many strokes (rings of cells)", 6000, func() float64 { return r.Float64() * 3000 }},
		{"clusters of equal points", 2000, func() float64 { return float64(r.IntN(5) * 100) }},
		{"one far outlier among near ends", 1000, func() float64 {
			if r.IntN(900) == 0 {
				return 1e6
			}
			return r.Float64() * 50
		}},
		{"all on a line", 800, func() float64 { return 7 }},
	} {
		ends := make([]Ends, tc.n)
		for i := range ends {
			ends[i] = Ends{tc.at(), tc.at(), tc.at(), tc.at()}
			if tc.name == "all on a line" {
				ends[i].X0, ends[i].X1 = r.Float64()*400, r.Float64()*400
			}
		}
		got, gt := Greedy(ends)
		want, wt := greedyByDefinition(ends)
		if !slices.Equal(got, want) || gt != wt {
			t.Errorf("%s: order and travel differ from the definition's (travel %v, want %v)", tc.name, gt, wt)
		}
	}
}
