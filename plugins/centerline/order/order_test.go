package order

import "testing"

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
