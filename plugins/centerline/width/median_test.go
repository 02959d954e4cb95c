package width

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// medianBySort is MedianKnown by its definition: sort the known widths, take the
// middle one or the mean of the two in the middle.
func medianBySort(widths []float64) (float64, bool) {
	var ws []float64
	for _, w := range widths {
		if !math.IsNaN(w) {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return 0, false
	}
	slices.Sort(ws)
	if len(ws)%2 == 1 {
		return ws[len(ws)/2], true
	}
	return (ws[len(ws)/2-1] + ws[len(ws)/2]) / 2, true
}

func TestMedianKnownIsTheSortedMiddle(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		values int     // distinct values drawn from (0: any float)
		nan    float64 // share of unknown widths
	}{
		{"no width", 0, 0, 0},
		{"all unknown", 9, 0, 1},
		{"a few", 5, 0, 0.2},
		{"many, all different", 301, 0, 0.1},
		{"many, few values", 200, 3, 0.3},
		{"one value", 40, 1, 0},
		{"sorted", 57, -1, 0},
		{"reversed", 64, -2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(30) {
				rng := rand.New(rand.NewPCG(seed, 23))
				n := tt.n
				if n > 3 {
					n = n/2 + rng.IntN(n) // odd and even counts
				}
				m := Measured{Widths: make([]float64, n)}
				for i := range m.Widths {
					switch {
					case rng.Float64() < tt.nan:
						m.Widths[i] = math.NaN()
					case tt.values > 0:
						m.Widths[i] = float64(rng.IntN(tt.values)) / 2
					case tt.values == -1:
						m.Widths[i] = float64(i)
					case tt.values == -2:
						m.Widths[i] = float64(n - i)
					default:
						m.Widths[i] = rng.Float64() * 10
					}
				}
				before := slices.Clone(m.Widths)
				want, wantOK := medianBySort(m.Widths)
				got, ok := m.MedianKnown()
				if ok != wantOK || math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("seed %d: median of %v is %v, %v; want %v, %v", seed, m.Widths, got, ok, want, wantOK)
				}
				if !sameFloats(m.Widths, before) {
					t.Fatalf("seed %d: the widths changed", seed)
				}
			}
		})
	}
}
