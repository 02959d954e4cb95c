package fit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bezier returns the point of s at t.
func bezier(s Segment, t float64) Vec {
	b := basis(t)
	return s.at(&b)
}

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

// firstFit returns a random run of n points, its chord-length parameters, and the
// cubic generate fits to them with the weights it keeps.
func firstFit(seed uint64, n int) ([]Vec, []float64, [][4]float64, Segment) {
	pts := randomRun(seed, n)
	u := chordOfPiece(pts)
	w := make([][4]float64, len(pts))
	return pts, u, w, generate(pts, u, startTangent(pts), endTangent(pts), w)
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
				pts, u, w, s := firstFit(seed, tc.n)
				want := maxErrorOfAll(pts, s, u)
				got := maxError(pts, s, w, tc.stop, make([]Vec, len(pts)))
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

// newtonStep is reparameterise by its definition: each inner parameter moves by one
// Newton step of the distance from s to its point, s evaluated afresh.
func newtonStep(pts []Vec, s Segment, u []float64) {
	d1 := [3]Vec{s.P1.sub(s.P0).mul(3), s.P2.sub(s.P1).mul(3), s.P3.sub(s.P2).mul(3)}
	d2 := [2]Vec{d1[1].sub(d1[0]).mul(2), d1[2].sub(d1[1]).mul(2)}
	for i := 1; i < len(pts)-1; i++ {
		t := u[i]
		mt := 1 - t
		q1 := d1[0].mul(mt * mt).add(d1[1].mul(2 * mt * t)).add(d1[2].mul(t * t))
		q2 := d2[0].mul(mt).add(d2[1].mul(t))
		diff := bezier(s, t).sub(pts[i])
		if den := q1.dot(q1) + diff.dot(q2); den != 0 {
			u[i] = min(1, max(0, t-diff.dot(q1)/den))
		}
	}
}

func TestReparameteriseFromMaxErrorsOffsetsIsANewtonStep(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
	}{
		{"three points", 3},
		{"short", 12},
		{"long", 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(10) {
				pts, u, w, s := firstFit(seed, tc.n)
				want := slices.Clone(u)
				newtonStep(pts, s, want)
				diff := make([]Vec, len(pts))
				maxError(pts, s, w, math.Inf(1), diff)
				reparameterise(pts, s, u, diff)
				if !slices.Equal(u, want) {
					t.Fatalf("seed %d: parameters %v, want %v", seed, u, want)
				}
			}
		})
	}
}

func TestClamp01IsMinOneMaxZero(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    float64
	}{
		{"-inf", math.Inf(-1)}, {"negative", -2}, {"tiny negative", -1e-300},
		{"-0", math.Copysign(0, -1)}, {"+0", 0}, {"tiny", 1e-300}, {"half", 0.5},
		{"one", 1}, {"just over one", 1 + 1e-15}, {"three", 3}, {"+inf", math.Inf(1)},
		{"NaN", math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := clamp01(tc.v), min(1, max(0, tc.v))
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("clamp01(%v) = %v, want %v", tc.v, got, want)
			}
		})
	}
}

// sharpestByWalking is sharpest by its definition: from each point, walk back and on
// along the chain until 3 pixels are covered (or half the chain), and compare the
// chords' directions.
func sharpestByWalking(pts []Vec) int {
	n := len(pts)
	best, at := 2.0, 0
	for i := range n {
		a, b := (i-1+n)%n, (i+1)%n
		la, lb := pts[i].dist(pts[a]), pts[b].dist(pts[i])
		for steps := 0; la < 3 && steps < n/2; steps++ {
			a = (a - 1 + n) % n
			la += pts[a].dist(pts[(a+1)%n])
		}
		for steps := 0; lb < 3 && steps < n/2; steps++ {
			b = (b + 1) % n
			lb += pts[b].dist(pts[(b-1+n)%n])
		}
		if c := pts[i].sub(pts[a]).unit().dot(pts[b].sub(pts[i]).unit()); c < best {
			best, at = c, i
		}
	}
	return at
}

func TestSharpestIsTheSharpestByWalking(t *testing.T) {
	for _, n := range []int{3, 5, 12, 40, 200} {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, uint64(n)))
			// a wobbly closed chain round (50, 50), with steps of 0.3 to 2 px
			pts := make([]Vec, n)
			for i := range pts {
				a := 2 * math.Pi * float64(i) / float64(n)
				rr := float64(n)/(2*math.Pi)*(0.3+1.7*r.Float64()) + r.Float64()
				pts[i] = Vec{50 + rr*math.Cos(a), 50 + rr*math.Sin(a)}
			}
			if got, want := sharpest(pts), sharpestByWalking(pts); got != want {
				t.Fatalf("n %d seed %d: sharpest %d, by walking %d", n, seed, got, want)
			}
		}
	}
}
