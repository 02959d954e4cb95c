package fit

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// maxErrorOfAll is maxError by its definition: every point measured.
func maxErrorOfAll(pts []Vec, s Segment, u []float64) float64 {
	var worst float64
	for i := 1; i < len(pts)-1; i++ {
		worst = max(worst, bezier(s, u[i]).dist(pts[i]))
	}
	return worst
}

// chordOfPiece is params.chord by its definition: the arc length along pts over the
// total.
func chordOfPiece(pts []Vec) []float64 {
	u := make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		u[i] = u[i-1] + pts[i].dist(pts[i-1])
	}
	for i := range u {
		u[i] /= u[len(u)-1]
	}
	return u
}

func randomRun(seed uint64, n int) []Vec {
	r := rand.New(rand.NewPCG(seed, 3))
	pts := []Vec{{0, 0}}
	for range n - 1 {
		p := pts[len(pts)-1]
		pts = append(pts, Vec{p.X + 0.5 + r.Float64(), p.Y + r.Float64()*2 - 1})
	}
	return pts
}

func TestMaxErrorIsTheLargestDistanceUpToStop(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		stop float64
	}{
		{"three points", 3, 100},
		{"no stop", 60, 1e9},
		{"stop low", 60, 0.5},
		{"stop mid", 200, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(20) {
				pts := randomRun(seed, tc.n)
				u := chordOfPiece(pts)
				s := generate(pts, u, startTangent(pts), endTangent(pts))
				want := maxErrorOfAll(pts, s, u)
				got := maxError(pts, s, u, tc.stop)
				if want <= tc.stop && got != want || want > tc.stop && got <= tc.stop {
					t.Fatalf("seed %d: maxError = %v, the largest distance is %v (stop %v)", seed, got, want, tc.stop)
				}
			}
		})
	}
}

func TestChordParamsOfEachPieceFromOneStart(t *testing.T) {
	pts := randomRun(9, 80)
	for _, tc := range []struct {
		name string
		i    int
		js   []int
	}{
		{"growing", 0, []int{1, 4, 8, 16, 32, 79}},
		{"shrinking after growing", 5, []int{40, 20, 30, 25, 6}},
		{"to the end", 78, []int{79}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := params{pts: pts, i: tc.i, arc: []float64{0}}
			for _, j := range tc.js {
				if got, want := ps.chord(j), chordOfPiece(pts[tc.i:j+1]); !slices.Equal(got, want) {
					t.Fatalf("chord(%d) = %v, want %v", j, got, want)
				}
			}
		})
	}
}
