package fit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// basis returns the cubic Bernstein polynomials at t: the weights of a cubic's four
// control points at t.
func basis(t float64) [4]float64 {
	mt := 1 - t
	return [4]float64{mt * mt * mt, 3 * mt * mt * t, 3 * mt * t * t, t * t * t}
}

// at returns the point of s whose control points' weights are b.
func (s *Segment) at(b *[4]float64) Vec {
	return Vec{b[0]*s.P0.X + b[1]*s.P1.X + b[2]*s.P2.X + b[3]*s.P3.X, b[0]*s.P0.Y + b[1]*s.P1.Y + b[2]*s.P2.Y + b[3]*s.P3.Y}
}

// bezier returns the point of s at t.
func bezier(s Segment, t float64) Vec {
	b := basis(t)
	return s.at(&b)
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
	return pts, u, w, generate(pts, u, startTangent(pts, 3), endTangent(pts, 3), w)
}

// normalByDefinition is curve.normal worked out per point with vectors: the offset
// of the curve's point from pts[i], the unit normal n and tangent of the curve there,
// and the control points' moves b1*t1 and b2*t2.
func normalByDefinition(c curve, pts []Vec, u []float64) (sums, [][3]float64) {
	seg := c.segment()
	var e sums
	s := make([][3]float64, len(pts))
	for i := 1; i < len(pts)-1; i++ {
		b := basis(u[i])
		d := seg.at(&b).sub(pts[i])
		e.worst = max(e.worst, d.len())
		e.sum += d.dot(d)
		mt, t := 1-u[i], u[i]
		g := seg.P1.sub(seg.P0).mul(3 * mt * mt).add(seg.P2.sub(seg.P1).mul(6 * mt * t)).add(seg.P3.sub(seg.P2).mul(3 * t * t))
		tan := g.unit()
		n := Vec{-tan.Y, tan.X}
		a1, a2 := c.t1.mul(b[1]), c.t2.mul(b[2])
		j1, j2, r := n.dot(a1), n.dot(a2), n.dot(d)
		e.m11 += j1 * j1
		e.m12 += j1 * j2
		e.m22 += j2 * j2
		e.r1 += j1 * r
		e.r2 += j2 * r
		s[i] = [3]float64{tan.dot(d) / g.len(), tan.dot(a1) / g.len(), tan.dot(a2) / g.len()}
	}
	return e, s
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

func TestNormalSumsTheDistancesAndTheStepsEquations(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
	}{
		{"three points", 3},
		{"short", 12},
		{"long", 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(20) {
				pts, u, _, seg := firstFit(seed, tc.n)
				c := curve{p0: seg.P0, p3: seg.P3, t1: startTangent(pts, 3), t2: endTangent(pts, 3)}
				c.a1, c.a2 = seg.P1.sub(seg.P0).dot(c.t1), seg.P2.sub(seg.P3).dot(c.t2)
				want, wantS := normalByDefinition(c, pts, u)
				s := make([][3]float64, len(pts))
				got := c.normal(pts, u, s, make([]Vec, len(pts)), math.Inf(1), 0, math.Inf(1))
				for _, f := range []struct {
					name      string
					got, want float64
				}{
					{"worst", got.worst, want.worst}, {"sum", got.sum, want.sum},
					{"m11", got.m11, want.m11}, {"m12", got.m12, want.m12}, {"m22", got.m22, want.m22},
					{"r1", got.r1, want.r1}, {"r2", got.r2, want.r2},
				} {
					if !near(f.got, f.want) {
						t.Fatalf("seed %d: %s = %v, want %v", seed, f.name, f.got, f.want)
					}
				}
				for i := 1; i < len(pts)-1; i++ {
					for k := range 3 {
						if !near(s[i][k], wantS[i][k]) {
							t.Fatalf("seed %d: slide %d of point %d = %v, want %v", seed, k, i, s[i][k], wantS[i][k])
						}
					}
				}
				// a stop below the largest distance cuts the sums short
				if want.worst > 0 {
					cut := c.normal(pts, u, s, make([]Vec, len(pts)), want.worst/2, 0, math.Inf(1))
					if !math.IsInf(cut.sum, 1) || cut.worst <= want.worst/2 {
						t.Fatalf("seed %d: stopped at %v, got %+v, want a distance beyond it and an infinite sum", seed, want.worst/2, cut)
					}
				}
				// a sum that reaches most cuts them short while a distance is above
				// tol, and not once all are within it
				for _, tc := range []struct {
					tol, most float64
					cut       bool
				}{
					{0, want.sum, want.sum > 0},
					{0, want.sum * 1.0001, false},
					{want.worst * 1.001, want.sum / 2, false},
					{want.worst * 0.999, want.sum / 2, want.sum > 0},
				} {
					got := c.normal(pts, u, s, make([]Vec, len(pts)), math.Inf(1), tc.tol, tc.most)
					if math.IsInf(got.sum, 1) != tc.cut || !tc.cut && got.sum != want.sum && !near(got.sum, want.sum) {
						t.Fatalf("seed %d: tol %v, most %v: sum %v, want cut %v (the sum is %v)", seed, tc.tol, tc.most, got.sum, tc.cut, want.sum)
					}
				}
			}
		})
	}
}

// TestAPieceOfACubicIsFittedBackFromItsPoints samples cubics at parameters far from
// their chord-length ones (crowded towards one end) and fits each from its ends'
// true directions: the Gauss-Newton steps find the cubic again, within a fifth of
// the chord-length fit's error.
func TestAPieceOfACubicIsFittedBackFromItsPoints(t *testing.T) {
	for _, tc := range []struct {
		name string
		seg  Segment
	}{
		{"an arch", Segment{P0: Vec{0, 0}, P1: Vec{10, 30}, P2: Vec{50, 30}, P3: Vec{60, 0}}},
		{"an S", Segment{P0: Vec{0, 0}, P1: Vec{30, 25}, P2: Vec{30, -25}, P3: Vec{60, 0}}},
		{"a lopsided bend", Segment{P0: Vec{0, 0}, P1: Vec{5, 20}, P2: Vec{40, 40}, P3: Vec{80, 40}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pts []Vec
			for k := range 61 {
				u := math.Pow(float64(k)/60, 1.6)
				b := basis(u)
				pts = append(pts, tc.seg.at(&b))
			}
			t1 := tc.seg.P1.sub(tc.seg.P0).unit()
			t2 := tc.seg.P2.sub(tc.seg.P3).unit()
			u := chordOfPiece(pts)
			w := make([][4]float64, len(pts))
			// The chord-length fit's largest distance at its parameters, which the
			// steps must bring down five times (a first fit further off than hopeless
			// times the tolerance is not refined).
			first := generate(pts, u, t1, t2, w)
			c := curve{p0: first.P0, p3: first.P3, t1: t1, t2: t2, a1: first.P1.sub(first.P0).dot(t1), a2: first.P2.sub(first.P3).dot(t2)}
			tol := c.normal(pts, u, make([][3]float64, len(pts)), make([]Vec, len(pts)), math.Inf(1), 0, math.Inf(1)).worst / 5
			ps := pieces{q: pts, u: u}
			seg, ok := ps.cubic(t1, t2, tol)
			if !ok {
				t.Fatalf("the fit is %.3f px off, want within %v", maxDistance(pts, []Segment{seg}), tol)
			}
			if d := maxDistance(pts, []Segment{seg}); d > tol+0.01 {
				t.Errorf("the fit says it is within %v, but is %.3f px off", tol, d)
			}
		})
	}
}

func maxDistance(pts []Vec, segs []Segment) float64 {
	var worst float64
	for _, p := range pts {
		worst = max(worst, distance(p, segs))
	}
	return worst
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
		{"one by one, then far", 0, []int{1, 2, 3, 4, 5, 6, 8, 16, 33, 79}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := pieces{pts: pts, reach: 3, arc: []float64{0}}
			ps.from(tc.i)
			for _, j := range tc.js {
				ps.chord(j)
				if want := chordOfPiece(pts[tc.i : j+1]); !slices.Equal(ps.q, pts[tc.i:j+1]) || !slices.Equal(ps.u, want) {
					t.Fatalf("chord(%d): points %v at %v, want %v at %v", j, ps.q, ps.u, pts[tc.i:j+1], want)
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
// cosines of the chords' directions (worked out as sharpest does, so that near ties
// go alike).
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
		u, v := pts[i].sub(pts[a]), pts[b].sub(pts[i])
		if c := u.dot(v) / math.Sqrt(u.dot(u)*v.dot(v)); c < best {
			best, at = c, i
		}
	}
	return at
}

// stepsOf returns the distances from each of pts to the next, and when closed from
// the last to the first.
func stepsOf(pts []Vec, closed bool) []float64 {
	var steps []float64
	for i := 1; i < len(pts); i++ {
		steps = append(steps, pts[i].dist(pts[i-1]))
	}
	if closed {
		steps = append(steps, pts[0].dist(pts[len(pts)-1]))
	}
	return steps
}

func TestDedupeDropsRepeatsAndKeepsTheStepsBetweenTheRest(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 5))
		var pts, want []Vec
		for range 50 {
			p := Vec{float64(r.IntN(5)) + r.Float64()*float64(r.IntN(2)), float64(r.IntN(5))}
			pts = append(pts, p)
			if len(want) == 0 || want[len(want)-1].dist(p) > 1e-9 {
				want = append(want, p)
			}
			if r.IntN(3) == 0 {
				pts = append(pts, p) // a repeat
			}
		}
		var bf buffers
		bf.dedupe(randomRun(seed, 70)) // leaves the buffers dirty
		if got := bf.dedupe(pts); !slices.Equal(got, want) {
			t.Fatalf("seed %d: %v, want %v", seed, got, want)
		}
		if got, want := bf.steps, stepsOf(want, false); !slices.Equal(got, want) {
			t.Fatalf("seed %d: steps %v, want %v", seed, got, want)
		}
	}
}

func TestSharpestIsTheSharpestByWalking(t *testing.T) {
	for _, tc := range []struct {
		name             string
		lo, span, jitter float64
	}{
		// steps of 0.3 to 2 px, turning often by more than a right angle
		{"wobbly", 0.3, 1.7, 1},
		// nearly round, turning by less than a right angle at every point but the
		// fewest (where sharpest may not skip the points turning less)
		{"smooth", 1, 0.05, 0.05},
	} {
		for _, n := range []int{3, 5, 12, 40, 200} {
			for seed := range uint64(20) {
				r := rand.New(rand.NewPCG(seed, uint64(n)))
				// a closed chain round (50, 50)
				pts := make([]Vec, n)
				for i := range pts {
					a := 2 * math.Pi * float64(i) / float64(n)
					rr := float64(n)/(2*math.Pi)*(tc.lo+tc.span*r.Float64()) + tc.jitter*r.Float64()
					pts[i] = Vec{50 + rr*math.Cos(a), 50 + rr*math.Sin(a)}
				}
				if got, want := new(buffers).sharpest(pts, stepsOf(pts, true)), sharpestByWalking(pts); got != want {
					t.Fatalf("%s, n %d seed %d: sharpest %d, by walking %d", tc.name, n, seed, got, want)
				}
			}
		}
	}
}

func TestSmoothByTheKernelIsSmoothStepByStep(t *testing.T) {
	for _, passes := range []int{1, 5, 10} {
		for _, n := range []int{3, 8, 8*passes + 1, 8*passes + 2, 8*passes + 3, 200} {
			for seed := range uint64(5) {
				run := randomRun(seed, n)
				got, want := new(buffers).smooth(run, passes, 1), new(buffers).smoothSteps(run, passes, n-1)
				if len(got) != len(want) {
					t.Fatalf("passes %d, %d points: %d points out, want %d", passes, n, len(got), len(want))
				}
				for i := range got {
					if got[i].dist(want[i]) > 1e-9 {
						t.Fatalf("passes %d, %d points, seed %d: point %d is %v, stepped %v", passes, n, seed, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// cornersByWalking is findCorners by its definition: from each point, walk back and on
// until k pixels are covered, and take the turn between the chords' unit vectors (the
// sharpest of each turn picked as findCorners picks it).
func cornersByWalking(pts []Vec, radius []float64, angle float64) []int {
	n := len(pts)
	cs := []int{0}
	cosMax := math.Cos(angle * math.Pi / 180)
	turn := make([]float64, n)
	arc := make([]float64, n)
	for i := 1; i < n; i++ {
		arc[i] = arc[i-1] + pts[i].dist(pts[i-1])
	}
	for i := 1; i < n-1; i++ {
		k := 3.0
		if i < len(radius) {
			k = max(3, radius[i]*1.5)
		}
		a, b := i, i
		for a > 0 && arc[i]-arc[a] < k {
			a--
		}
		for b < n-1 && arc[b]-arc[i] < k {
			b++
		}
		turn[i] = 1
		if arc[i]-arc[a] >= k*0.7 && arc[b]-arc[i] >= k*0.7 {
			turn[i] = pts[i].sub(pts[a]).unit().dot(pts[b].sub(pts[i]).unit())
		}
	}
	cs = sharpestOfEachTurn(cs, turn, cosMax)
	if cs[len(cs)-1] != n-1 {
		cs = append(cs, n-1)
	}
	return cs
}

func TestFindCornersFindsTheCornersByWalking(t *testing.T) {
	for _, tc := range []struct {
		name   string
		angle  float64
		radius bool
		half   bool // the radius of the first half of the points only
	}{
		{"sharp corners, no radius", 140, false, false},
		{"blunt corners, no radius", 55, false, false},
		{"corners looked for as far as the radius", 120, true, false},
		{"a radius for the first half only", 120, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(30) {
				r := rand.New(rand.NewPCG(seed, 7))
				// a zigzag of random legs, a point every 0.3 to 1.5 px
				var pts []Vec
				var radius []float64
				p, dir := Vec{}, r.Float64()*2*math.Pi
				for range 12 {
					dir += (r.Float64()*2 - 1) * 2.5
					for range 3 + r.IntN(20) {
						step := 0.3 + 1.2*r.Float64()
						p = p.add(Vec{math.Cos(dir), math.Sin(dir)}.mul(step))
						pts = append(pts, p)
						radius = append(radius, 1+4*r.Float64())
					}
				}
				if !tc.radius {
					radius = nil
				}
				if tc.half {
					// wide, so that k falls far where the radius stops
					radius = radius[:len(radius)/2]
					for i := range radius {
						radius[i] *= 3
					}
				}
				if got, want := new(buffers).findCorners(pts, stepsOf(pts, false), radius, tc.angle), cornersByWalking(pts, radius, tc.angle); !slices.Equal(got, want) {
					t.Fatalf("seed %d: corners %v, by walking %v", seed, got, want)
				}
			}
		})
	}
}

// TestFitsInReusedBuffersAreFitsInFreshOnes fits chains of every kind one after
// another in the same buffers, long before short and short before long, closed and
// open, with radii and without, several smoothings, and compares each fit with the
// one in fresh buffers: nothing left in a buffer may change a later fit.
func TestFitsInReusedBuffersAreFitsInFreshOnes(t *testing.T) {
	type chain struct {
		pts    []Vec
		radius []float64
		closed bool
		o      Options
	}
	var chains []chain
	for i, n := range []int{300, 12, 90, 3, 500, 40, 2, 61, 1, 200} {
		pts := randomRun(uint64(40+i), n)
		var radius []float64
		if i%2 == 0 {
			radius = make([]float64, n)
			for k := range radius {
				radius[k] = 1 + float64((k*7+i)%5)
			}
		}
		o := Options{Tolerance: 0.3 + 0.2*float64(i%3), CornerAngle: float64(40 * (i % 3)), SmoothPasses: 1 + i%6, Sample: 1 + i%3}
		chains = append(chains, chain{pts, radius, i%3 != 1, o})
	}
	tests := []struct {
		name  string
		order []int
	}{
		{"as made", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"backwards", []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
		{"longest first", []int{4, 0, 9, 2, 7, 5, 1, 3, 6, 8}},
		{"each twice", []int{1, 1, 4, 4, 3, 3, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var reused buffers
			for _, c := range tc.order {
				ch := chains[c]
				got := reused.fit(ch.pts, ch.radius, ch.closed, ch.o)
				want := new(buffers).fit(ch.pts, ch.radius, ch.closed, ch.o)
				if !slices.Equal(got, want) {
					t.Fatalf("chain %d: %d segments in reused buffers, %d in fresh ones, or they differ", c, len(got), len(want))
				}
				if len(want) == 0 && len(ch.pts) > 1 {
					t.Fatalf("chain %d: no segments", c)
				}
			}
		})
	}
}
