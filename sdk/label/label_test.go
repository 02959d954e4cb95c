package label

import (
	"math/rand"
	"slices"
	"testing"
)

func TestNumberGivesEachSetOneNumberInOrderOfItsSmallestLabel(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		unions [][2]int32
		want   []int32
	}{
		{"no unions", 4, nil, []int32{0, 1, 2, 3}},
		{"chain", 4, [][2]int32{{3, 2}, {2, 1}, {1, 0}}, []int32{0, 0, 0, 0}},
		{"two sets interleaved", 5, [][2]int32{{0, 2}, {1, 4}, {4, 3}, {2, 0}}, []int32{0, 1, 0, 1, 1}},
		{"larger label first", 3, [][2]int32{{2, 1}}, []int32{0, 1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := make([]int32, tc.n)
			for i := range parent {
				parent[i] = int32(i)
			}
			for _, u := range tc.unions {
				Union(parent, u[0], u[1])
			}
			sets := Number(parent)
			if !slices.Equal(parent, tc.want) || sets != int(slices.Max(tc.want))+1 {
				t.Errorf("got %v (%d sets), want %v", parent, sets, tc.want)
			}
		})
	}
}

// TestUnionAgreesWithNaiveSets checks random unions against sets kept as plain maps.
func TestUnionAgreesWithNaiveSets(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const n = 200
	parent := make([]int32, n)
	naive := make([]int, n)
	for i := range parent {
		parent[i], naive[i] = int32(i), i
	}
	for range 150 {
		a, b := int32(rng.Intn(n)), int32(rng.Intn(n))
		Union(parent, a, b)
		from, to := naive[a], naive[b]
		for i := range naive {
			if naive[i] == from {
				naive[i] = to
			}
		}
		for i := range parent {
			if parent[i] > int32(i) {
				t.Fatalf("label %d has the larger parent %d", i, parent[i])
			}
		}
	}
	for a := range int32(n) {
		for b := range int32(n) {
			if same := Find(parent, a) == Find(parent, b); same != (naive[a] == naive[b]) {
				t.Fatalf("%d and %d: together %v, naive %v", a, b, same, naive[a] == naive[b])
			}
		}
	}
}
