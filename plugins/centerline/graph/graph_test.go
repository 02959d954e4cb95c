package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
	"github.com/tracecraft/tracecraft/plugins/centerline/skeleton"
)

func skeletonOf(rows ...string) ([]bool, []int32, int, int) {
	w, h := len(rows[0]), len(rows)
	sk := make([]bool, w*h)
	for y, r := range rows {
		for x, c := range r {
			sk[y*w+x] = c == '#'
		}
	}
	return sk, distance.Transform(sk, w, h), w, h
}

func TestBuild(t *testing.T) {
	long := "....................."
	tests := []struct {
		name    string
		rows    []string
		strokes int
		closed  int
	}{
		{"a line is one stroke", []string{long, ".###################.", long}, 1, 0},
		{"a cross is two strokes", []string{
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			".###################.",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
		}, 2, 0},
		{"a T is two strokes", []string{
			".###################.",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
		}, 2, 0},
		{"a Y of three 120 degree branches is three strokes", []string{
			"#.........#",
			".#.......#.",
			"..#.....#..",
			"...#...#...",
			"....#.#....",
			".....#.....",
			".....#.....",
			".....#.....",
			".....#.....",
			".....#.....",
		}, 3, 0},
		{"a ring is one closed stroke", []string{
			"...........",
			"...#####...",
			"..#.....#..",
			"..#.....#..",
			"..#.....#..",
			"...#####...",
			"...........",
		}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sk, d, w, h := skeletonOf(tt.rows...)
			o := DefaultOptions()
			o.SpurSlack = 0
			ss := Build(sk, d, w, h, o)
			closed := 0
			for _, s := range ss {
				if s.Closed {
					closed++
				}
			}
			if len(ss) != tt.strokes || closed != tt.closed {
				t.Errorf("%d strokes (%d closed), want %d (%d closed): %+v", len(ss), closed, tt.strokes, tt.closed, ss)
			}
		})
	}
}

func TestJoinGapsBridgesAlignedEnds(t *testing.T) {
	sk, d, w, h := skeletonOf("......................", ".########....########.", "......................")
	o := DefaultOptions()
	if n := len(Build(sk, d, w, h, o)); n != 2 {
		t.Fatalf("without joinGaps: %d strokes, want 2", n)
	}
	o.JoinGaps = 5
	if n := len(Build(sk, d, w, h, o)); n != 1 {
		t.Errorf("with joinGaps 5: %d strokes, want 1", n)
	}
	o.JoinGaps = 3
	if n := len(Build(sk, d, w, h, o)); n != 2 {
		t.Errorf("with joinGaps 3 across a 5 px gap: %d strokes, want 2", n)
	}
}

// TestPruneTellsAStubFromASpur crosses a thick vertical line (radius 5) with a thin
// horizontal one and lets the vertical line go on 6 px past the crossing: as far as a
// junction's radius and a bit, which is where spurs end too. With a round end there
// (the end's radius is the line's) the stub is the line's own end and stays; tapering
// to a point (radius 1, a corner's or a bump's spur) it goes.
func TestPruneTellsAStubFromASpur(t *testing.T) {
	tests := []struct {
		name    string
		tipR2   []int32 // squared radii of the stub's pixels, from its end inwards
		wantTop float64 // the smallest y the vertical stroke reaches
	}{
		{"a round end is kept", []int32{25, 25, 25, 25, 25, 25}, 4.5},
		{"a tapering spur goes", []int32{1, 4, 9, 16, 25, 25}, 10.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h := 41, 32
			sk := make([]bool, w*h)
			d := make([]int32, w*h)
			for x := 1; x < 40; x++ {
				sk[10*w+x], d[10*w+x] = true, 1
			}
			for y := 4; y < 31; y++ {
				sk[y*w+20], d[y*w+20] = true, 25
				if y < 10 {
					d[y*w+20] = tt.tipR2[y-4]
				}
			}
			top := math.Inf(1)
			for _, s := range Build(sk, d, w, h, DefaultOptions()) {
				for _, p := range s.Points {
					if p.X == 20.5 {
						top = math.Min(top, p.Y)
					}
				}
			}
			if top != tt.wantTop {
				t.Errorf("the vertical stroke reaches up to y %.1f, want %.1f", top, tt.wantTop)
			}
		})
	}
}

// TestJoinLeavesLinesOfDifferentWidthsApart: a thin line (radius 1) meets a thick one
// (radius 4) head on at a junction with a thin branch going down: however well the
// two align, they are different lines and are not joined.
func TestJoinLeavesLinesOfDifferentWidthsApart(t *testing.T) {
	tests := []struct {
		name    string
		rightR2 int32
		strokes int
	}{
		{"one width joins straight through", 1, 2},
		{"a thin and a thick line stay apart", 16, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h := 41, 30
			sk := make([]bool, w*h)
			d := make([]int32, w*h)
			for x := 1; x < 40; x++ {
				sk[5*w+x], d[5*w+x] = true, 1
				if x > 20 {
					d[5*w+x] = tt.rightR2
				}
			}
			for y := 6; y < 29; y++ {
				sk[y*w+20], d[y*w+20] = true, 1
			}
			o := DefaultOptions()
			o.SpurSlack = 0
			if n := len(Build(sk, d, w, h, o)); n != tt.strokes {
				t.Errorf("%d strokes, want %d", n, tt.strokes)
			}
		})
	}
}

// joinGapsByScan is joinGaps by its definition: every pair of free ends scanned again
// after each bridge.
func joinGapsByScan(ss []Stroke, o Options) []Stroke {
	if o.JoinGaps <= 0 {
		return ss
	}
	cosMin := math.Cos(o.JoinAngle * math.Pi / 180)
	type end struct{ s, side int }
	for {
		type cand struct {
			a, b end
			d    float64
		}
		var best *cand
		for i := range ss {
			if ss[i].Closed || len(ss[i].Points) < 2 {
				continue
			}
			for si := 0; si < 2; si++ {
				pa, ax, ay := gapEnd(ss[i], si)
				for j := i; j < len(ss); j++ {
					if ss[j].Closed || len(ss[j].Points) < 2 {
						continue
					}
					for sj := 0; sj < 2; sj++ {
						if j == i && sj <= si {
							continue
						}
						pb, bx, by := gapEnd(ss[j], sj)
						dd := math.Hypot(pb.X-pa.X, pb.Y-pa.Y)
						if dd > o.JoinGaps || dd == 0 {
							continue
						}
						ux, uy := (pb.X-pa.X)/dd, (pb.Y-pa.Y)/dd
						if ax*ux+ay*uy < cosMin || -(bx*ux+by*uy) < cosMin {
							continue
						}
						if j == i && !o.CloseLoops {
							continue
						}
						if best == nil || dd < best.d {
							best = &cand{end{i, si}, end{j, sj}, dd}
						}
					}
				}
			}
		}
		if best == nil {
			return ss
		}
		a, b := best.a, best.b
		if a.s == b.s {
			ss[a.s].Closed = true
			continue
		}
		// Orient a to end at its joined end and b to start at its joined end.
		pa := slices.Clone(ss[a.s].Points)
		if a.side == 0 {
			slices.Reverse(pa)
		}
		pb := slices.Clone(ss[b.s].Points)
		if b.side == 1 {
			slices.Reverse(pb)
		}
		ss[a.s] = Stroke{Points: append(pa, pb...)}
		ss = slices.Delete(ss, b.s, b.s+1)
	}
}

func TestJoinGapsBridgesAsTheScanOfEveryPair(t *testing.T) {
	seed := uint32(9)
	rnd := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % n
	}
	for trial := range 300 {
		// Strokes of one to five points on whole pixels in a small square, so that
		// many ends are near each other and many gaps are equal.
		var ss []Stroke
		for range 2 + rnd(40) {
			var s Stroke
			x, y := rnd(30), rnd(30)
			for range 1 + rnd(5) {
				s.Points = append(s.Points, Point{X: float64(x), Y: float64(y), R: float64(rnd(3))})
				x, y = x+rnd(7)-3, y+rnd(7)-3
			}
			s.Closed = rnd(10) == 0
			ss = append(ss, s)
		}
		o := DefaultOptions()
		o.JoinGaps = []float64{1.5, 4, 9, math.Inf(1)}[trial%4]
		o.JoinAngle = []float64{40, 90, 180}[trial/4%3]
		o.CloseLoops = trial/12%2 == 0
		copyOf := func() []Stroke {
			c := make([]Stroke, len(ss))
			for i, s := range ss {
				c[i] = Stroke{Points: slices.Clone(s.Points), Closed: s.Closed}
			}
			return c
		}
		got, want := joinGaps(copyOf(), o), joinGapsByScan(copyOf(), o)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d (gaps %v, angle %v, close %v): %v, want %v", trial, o.JoinGaps, o.JoinAngle, o.CloseLoops, got, want)
		}
	}
}

// randomSkeleton returns a w x h skeleton thinned from random strokes and blobs, with
// its squared distance map: many small parts, junctions, spurs, loops and dots.
func randomSkeleton(rng *rand.Rand, w, h int) ([]int32, []int32) {
	ink := make([]bool, w*h)
	for range rng.IntN(12) + 1 {
		// A thick line or a ring, drawn by discs along it.
		x0, y0 := rng.Float64()*float64(w), rng.Float64()*float64(h)
		x1, y1 := rng.Float64()*float64(w), rng.Float64()*float64(h)
		r := 0.5 + rng.Float64()*3
		ring := rng.IntN(3) == 0
		for t := 0.0; t <= 1; t += 0.01 {
			cx, cy := x0+t*(x1-x0), y0+t*(y1-y0)
			if ring {
				a := 2 * math.Pi * t
				cx, cy = x0+(x1-x0)/4*math.Cos(a), y0+(x1-x0)/4*math.Sin(a)
			}
			for y := int(cy - r); y <= int(cy+r); y++ {
				for x := int(cx - r); x <= int(cx+r); x++ {
					if x >= 0 && y >= 0 && x < w && y < h && math.Hypot(float64(x)-cx, float64(y)-cy) <= r {
						ink[y*w+x] = true
					}
				}
			}
		}
	}
	for range rng.IntN(20) { // specks
		ink[rng.IntN(w*h)] = true
	}
	d := distance.Transform(ink, w, h)
	sk, err := skeleton.Thin(context.Background(), ink, d, w, h)
	if err != nil {
		panic(err)
	}
	return sk.Pixels(), d
}

func TestBuildsOfPartsGiveTheStrokesOfOneBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 7))
	opts := []Options{DefaultOptions(), {SpurFactor: 1, SpurSlack: 2, JoinAngle: 40, JoinGaps: 6}}
	for i := range 300 {
		w, h := 8+rng.IntN(90), 8+rng.IntN(90)
		pix, d := randomSkeleton(rng, w, h)
		if i%3 == 2 {
			// Pixels at random, unthinned: clusters, chains that stop, any shape.
			sk := make([]bool, w*h)
			p := 0.05 + 0.3*rng.Float64()
			pix = pix[:0]
			for k := range sk {
				if sk[k] = rng.Float64() < p; sk[k] {
					pix = append(pix, int32(k))
				}
			}
			d = distance.Transform(sk, w, h)
		}
		o := opts[i%len(opts)]
		want := buildIn(1, pix, d, w, h, o)
		for _, builds := range []int{2, 3, 5} {
			if got := buildIn(builds, pix, d, w, h, o); !reflect.DeepEqual(got, want) {
				t.Fatalf("skeleton %d (%d x %d, %d pixels) in %d builds: %d strokes, want those of one build, %d strokes:\ngot  %v\nwant %v", i, w, h, len(pix), builds, len(got), len(want), got, want)
			}
		}
	}
}

// TestGridsGoBackEmpty checks that every grid a build gives back to gridCache is all
// zero (its whole capacity), so that the next build starts on an empty grid, across
// skeletons of changing sizes and builds of several parts.
func TestGridsGoBackEmpty(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, tc := range []struct{ w, h, builds int }{
		{90, 70, 1}, {20, 10, 2}, {60, 95, 3}, {8, 8, 1}, {97, 12, 5}, {30, 40, 2},
	} {
		pix, d := randomSkeleton(rng, tc.w, tc.h)
		buildIn(tc.builds, pix, d, tc.w, tc.h, DefaultOptions())
		g := gridCache.Get()
		for i, b := range g.st[:cap(g.st)] {
			if b != 0 {
				t.Fatalf("%dx%d in %d builds: byte %d of the grid given back is %#x", tc.w, tc.h, tc.builds, i, b)
			}
		}
		gridCache.Put(g, true)
	}
}
