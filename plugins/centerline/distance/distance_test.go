package distance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// brute is the transform by definition.
func brute(in []bool, w, h int) []int32 {
	d := make([]int32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !in[y*w+x] {
				continue
			}
			best := int32(math.MaxInt32)
			for yy := -1; yy <= h; yy++ {
				for xx := -1; xx <= w; xx++ {
					if xx >= 0 && yy >= 0 && xx < w && yy < h && in[yy*w+xx] {
						continue
					}
					dd := int32((xx-x)*(xx-x) + (yy-y)*(yy-y))
					best = min(best, dd)
				}
			}
			d[y*w+x] = best
		}
	}
	return d
}

func TestTransformEqualsTheDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		w, h int
		fill float64
	}{{1, 1, 1}, {7, 5, 0.9}, {20, 13, 0.7}, {31, 31, 0.97}, {16, 1, 1}, {1, 9, 1},
		{200, 20, 0.995}, {20, 200, 0.999}, {400, 3, 0.9}, {150, 70, 0.99}, {150, 70, 0.5}, {130, 130, 0.9}} {
		in := make([]bool, tc.w*tc.h)
		for i := range in {
			in[i] = r.Float64() < tc.fill
		}
		got, want := Transform(in, tc.w, tc.h), brute(in, tc.w, tc.h)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%dx%d: pixel (%d,%d) = %v, want %v", tc.w, tc.h, i%tc.w, i/tc.w, got[i], want[i])
			}
		}
	}
}

// bruteToSet is the squared distance to the nearest pixel of set, by definition.
func bruteToSet(set []bool, w, h int) []int32 {
	d := make([]int32, w*h)
	for i := range d {
		x, y := i%w, i/w
		best := int32(math.MaxInt32)
		for j, on := range set {
			if on {
				xx, yy := j%w, j/w
				best = min(best, int32((xx-x)*(xx-x)+(yy-y)*(yy-y)))
			}
		}
		d[i] = best
	}
	return d
}

func TestOpeningIsTheUnionOfTheDiscsThatFit(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name string
		w, h int
		r    float64
	}{
		{"small discs", 40, 30, 1.5},
		{"radius 3", 60, 50, 3},
		{"radius 4.2", 70, 40, 4.2},
		{"a thin image", 120, 12, 2.5},
		{"a tall image (cores in groups of rows far apart)", 24, 160, 2},
		{"a tall image, radius 1.5", 16, 200, 1.5},
		{"a tall image, radius 3", 30, 240, 3},
	} {
		// Random blocks and discs of ink, so that discs of radius r fit in some places.
		in := make([]bool, tc.w*tc.h)
		for range 8 {
			cx, cy, rr := r.IntN(tc.w), r.IntN(tc.h), 2+r.IntN(9)
			square := r.IntN(2) == 0
			for y := 0; y < tc.h; y++ {
				for x := 0; x < tc.w; x++ {
					dx, dy := x-cx, y-cy
					if square && max(abs(dx), abs(dy)) <= rr || !square && dx*dx+dy*dy <= rr*rr {
						in[y*tc.w+x] = true
					}
				}
			}
		}
		d := Transform(in, tc.w, tc.h)
		r2 := tc.r * tc.r
		set := make([]bool, len(in))
		any := false
		for i, v := range d {
			set[i] = float64(v) >= r2
			any = any || set[i]
		}
		if !any {
			t.Fatalf("%s: no disc of radius %v fits; the case tests nothing", tc.name, tc.r)
		}
		want := bruteToSet(set, tc.w, tc.h)
		check := func(how string, got []bool) {
			t.Helper()
			for i := range got {
				if w := in[i] && float64(want[i]) <= r2; got[i] != w {
					t.Fatalf("%s, %s: pixel (%d,%d) in the opening %v, want %v", tc.name, how, i%tc.w, i/tc.w, got[i], w)
				}
			}
		}
		check("Opening", Opening(in, d, tc.w, tc.h, tc.r))
		out, runs := OpeningRuns(FindRuns(in, tc.w, tc.h), d, tc.w, tc.h, tc.r)
		check("OpeningRuns", out)
		if want := FindRuns(out, tc.w, tc.h); !slices.Equal(runs.Spans, want.Spans) || !slices.Equal(runs.Start, want.Start) {
			t.Errorf("%s: the opening's runs are %v from %v, want %v from %v", tc.name, runs.Spans, runs.Start, want.Spans, want.Start)
		}
		// The wide distances used for radii over 253 pixels, on the whole image.
		wide := make([]bool, len(in))
		opening(FindRuns(in, tc.w, tc.h), d, int32(math.Ceil(r2)), box{0, 0, tc.w - 1, tc.h - 1, tc.w}, int32(math.Ceil(tc.r)+1), r2, nil, wide, make([]int32, tc.w*tc.h))
		check("int32 distances", wide)
	}
	in := make([]bool, 100)
	if got := Opening(in, Transform(in, 10, 10), 10, 10, 1); got != nil {
		t.Errorf("the opening of an empty image is %v, want nil", got)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestFindRunsWithinAShapeAreTheMasksRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name       string
		w, h       int
		shape, sub float64 // the shares of pixels in the shape, and of those in the mask
	}{
		{"a sparse shape", 50, 30, 0.3, 0.5},
		{"a dense shape, most of it in the mask", 40, 40, 0.9, 0.9},
		{"all of the shape", 30, 20, 0.6, 1.01},
		{"none of it", 30, 20, 0.6, 0},
		{"a single row", 70, 1, 0.5, 0.5},
	} {
		shape, in := make([]bool, tc.w*tc.h), make([]bool, tc.w*tc.h)
		for i := range shape {
			shape[i] = r.Float64() < tc.shape
			in[i] = shape[i] && r.Float64() < tc.sub
		}
		got, want := FindRunsWithin(in, FindRuns(shape, tc.w, tc.h), tc.w), FindRuns(in, tc.w, tc.h)
		if !slices.Equal(got.Spans, want.Spans) || !slices.Equal(got.Start, want.Start) {
			t.Errorf("%s: runs %v from %v, want %v from %v", tc.name, got.Spans, got.Start, want.Spans, want.Start)
		}
	}
}

// TestEnvelopesEqualTheDefinition checks both ways of finding a run's lower envelope,
// whichever TransformRuns would choose, against min_i (x-i)² + g[i].
func TestEnvelopesEqualTheDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		n    int // the run's pixels
		most int // the largest column distance
	}{
		{"one pixel", 1, 3},
		{"a thin line", 5, 2},
		{"a short run, deep", 6, 40},
		{"a long shallow run", 80, 3},
		{"a long deep run", 120, 60},
		{"a wide area", 300, 150},
		{"distances near the int32 cap", 40, 46340},
	} {
		for trial := range 50 {
			g := make([]int64, tc.n+2)
			for k := 1; k <= tc.n; k++ {
				v := 1 + r.IntN(tc.most)
				if trial%2 == 1 && k > 1 { // smooth, as a distance map is
					v = max(1, min(tc.most, int(math.Sqrt(float64(g[k-1])))+r.IntN(3)-1))
				}
				g[k] = int64(v) * int64(v)
			}
			want := make([]int32, tc.n)
			for x := 1; x <= tc.n; x++ {
				best := int64(math.MaxInt64)
				for i, gi := range g {
					best = min(best, int64((x-i)*(x-i))+gi)
				}
				want[x-1] = int32(min(best, math.MaxInt32))
			}
			near, scan, scanSmall := make([]int32, tc.n), make([]int32, tc.n), make([]int32, tc.n)
			envelopeNear(g, near)
			envelopeScan(make([]apex, len(g)), g, scan, false)
			if !slices.Equal(near, want) || !slices.Equal(scan, want) {
				t.Fatalf("%s, trial %d: g %v: near %v, scan %v, want %v", tc.name, trial, g, near, scan, want)
			}
			if int64(len(g))*int64(len(g))+slices.Max(g) <= math.MaxInt32 {
				envelopeScan(make([]apex, len(g)), g, scanSmall, true)
				if !slices.Equal(scanSmall, want) {
					t.Fatalf("%s, trial %d: g %v: scan (no cap) %v, want %v", tc.name, trial, g, scanSmall, want)
				}
			}
		}
	}
}

// BenchmarkEnvelope times both envelopes on runs of n pixels whose column distances
// are up to most, for nearSteps.
func BenchmarkEnvelope(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, tc := range []struct{ n, most int }{{8, 2}, {8, 4}, {20, 3}, {20, 6}, {40, 4}, {40, 8}, {40, 20}, {200, 30}} {
		g := make([]int64, tc.n+2)
		steps := 0
		for k := 1; k <= tc.n; k++ {
			v := 1 + r.IntN(tc.most)
			g[k] = int64(v) * int64(v)
			steps += min(v, k, tc.n-k+1)
		}
		out := make([]int32, tc.n)
		st := make([]apex, len(g))
		name := fmt.Sprintf("n=%d,most=%d,steps/px=%.1f", tc.n, tc.most, float64(steps)/float64(tc.n))
		b.Run(name+"/near", func(b *testing.B) {
			for b.Loop() {
				envelopeNear(g, out)
			}
		})
		b.Run(name+"/scan", func(b *testing.B) {
			for b.Loop() {
				envelopeScan(st, g, out, true)
			}
		})
	}
}

// TestNextSetFindsTheFirst checks nextSet, which reads eight bytes at a time, against
// a look at each byte, from every start, on rows of every length up to 40.
func TestNextSetFindsTheFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for n := range 41 {
		for _, fill := range []float64{0, 0.05, 0.5, 0.95, 1} {
			row := make([]byte, n)
			for i := range row {
				if r.Float64() < fill {
					row[i] = 1
				}
			}
			for x := 0; x <= n; x++ {
				for _, v := range []byte{1, 0} {
					want := n
					for i := x; i < n; i++ {
						if row[i] == v {
							want = i
							break
						}
					}
					if got := nextSet(row, x, v); got != want {
						t.Fatalf("row %v from %d: the first %v at %d, want %d", row, x, v, got, want)
					}
				}
			}
		}
	}
}

// TestOpeningFindsALoneCore opens squares each of whose core (the pixels a disc of
// radius r fits around) is its centre alone, on a row of the square's width: the
// narrowest run that holds a core.
func TestOpeningFindsALoneCore(t *testing.T) {
	for _, tc := range []struct{ side, w, h int }{{3, 9, 7}, {5, 11, 9}, {7, 13, 13}, {9, 30, 12}} {
		k := tc.side / 2
		in := make([]bool, tc.w*tc.h)
		cx, cy := tc.w/2, tc.h/2
		for y := cy - k; y <= cy+k; y++ {
			for x := cx - k; x <= cx+k; x++ {
				in[y*tc.w+x] = true
			}
		}
		d := Transform(in, tc.w, tc.h)
		r := float64(k + 1) // the centre is k+1 from the paper, every other pixel nearer
		set := make([]bool, len(in))
		for i, v := range d {
			set[i] = float64(v) >= r*r
		}
		if n := len(slices.DeleteFunc(slices.Clone(set), func(b bool) bool { return !b })); n != 1 {
			t.Fatalf("side %d: %d core pixels, want 1", tc.side, n)
		}
		want := bruteToSet(set, tc.w, tc.h)
		got, runs := OpeningRuns(FindRuns(in, tc.w, tc.h), d, tc.w, tc.h, r)
		if got == nil {
			t.Fatalf("side %d: no opening, want the disc around the centre", tc.side)
		}
		for i := range in {
			if w := in[i] && float64(want[i]) <= r*r; got[i] != w {
				t.Fatalf("side %d: pixel (%d,%d) in the opening %v, want %v", tc.side, i%tc.w, i/tc.w, got[i], w)
			}
		}
		if want := FindRuns(got, tc.w, tc.h); !slices.Equal(runs.Spans, want.Spans) {
			t.Errorf("side %d: the opening's runs are %v, want %v", tc.side, runs.Spans, want.Spans)
		}
	}
}

func TestTransformAfterLargerImages(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ w, h int }{{300, 90}, {9, 4}, {120, 200}, {2, 2}, {64, 64}, {301, 1}} {
		in := make([]bool, tc.w*tc.h)
		for i := range in {
			in[i] = r.Float64() < 0.9
		}
		rs := FindRuns(in, tc.w, tc.h)
		if got, want := TransformRuns(rs, tc.w, tc.h), brute(in, tc.w, tc.h); !slices.Equal(got, want) {
			t.Errorf("%dx%d: transform differs from the definition", tc.w, tc.h)
		}
		for y := range tc.h {
			var want []Span
			want = appendRuns(want, in[y*tc.w:(y+1)*tc.w], 0, tc.w)
			if got := rs.Row(y); !slices.Equal(got, want) {
				t.Fatalf("%dx%d: row %d runs %v, want %v", tc.w, tc.h, y, got, want)
			}
		}
	}
}

// TestTransformReusesReleasedMaps checks the maps given back with Release: each is
// filled with garbage first, so that a byte TransformRuns fails to clear shows.
func TestTransformReusesReleasedMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		w, h  int
		share float64 // of shape pixels
	}{
		{300, 90, 0.9}, {9, 4, 0.5}, {120, 200, 0.2}, {2, 2, 0}, {64, 64, 0.7},
		{301, 1, 0.6}, {1, 301, 0.6}, {150, 150, 0.05}, {40, 30, 1},
	} {
		in := make([]bool, tc.w*tc.h)
		for i := range in {
			in[i] = r.Float64() < tc.share
		}
		got := TransformRuns(FindRuns(in, tc.w, tc.h), tc.w, tc.h)
		if want := brute(in, tc.w, tc.h); !slices.Equal(got, want) {
			t.Errorf("%dx%d (share %v): transform differs from the definition", tc.w, tc.h, tc.share)
		}
		got = got[:cap(got)]
		for i := range got {
			got[i] = int32(r.Uint32())
		}
		Release(got)
	}
}

// TestOpeningReusesReleasedMasks checks OpeningRuns on masks given back with
// ReleaseOpening, filled with garbage first (and longer than needed), against its
// result on a new mask.
func TestOpeningReusesReleasedMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		w, h  int
		share float64
		rad   float64
		extra int
	}{
		{120, 90, 0.9, 3, 0}, {64, 64, 1, 6, 17}, {200, 40, 0.8, 2, 1}, {9, 9, 1, 2, 3},
	} {
		in := make([]bool, tc.w*tc.h)
		for i := range in {
			in[i] = r.Float64() < tc.share
		}
		rs := FindRuns(in, tc.w, tc.h)
		d := TransformRuns(rs, tc.w, tc.h)
		want, wantRuns := OpeningRuns(rs, d, tc.w, tc.h, tc.rad)
		want, wantSpans := slices.Clone(want), slices.Clone(wantRuns.Spans)
		if want == nil {
			t.Fatalf("%dx%d: no opening to compare", tc.w, tc.h)
		}
		b := make([]bool, tc.w*tc.h+tc.extra)
		for i := range b {
			b[i] = r.IntN(2) == 0
		}
		ReleaseOpening(b)
		got, gotRuns := OpeningRuns(rs, d, tc.w, tc.h, tc.rad)
		if !slices.Equal(got, want) || !slices.Equal(gotRuns.Spans, wantSpans) {
			t.Errorf("%dx%d r %v: opening on a mask given back differs", tc.w, tc.h, tc.rad)
		}
	}
}

// TestMaskIsClearWhateverWasGivenBack: a mask from Mask is all false, whether it is
// new or one given back dirty (larger, or of the size asked), and a mask given back
// too small is not used.
func TestMaskIsClearWhateverWasGivenBack(t *testing.T) {
	for _, tc := range []struct {
		name     string
		given, n int
	}{
		{"nothing given back", 0, 100},
		{"larger", 300, 100},
		{"the same size", 100, 100},
		{"too small", 50, 100},
	} {
		if tc.given > 0 {
			b := make([]bool, tc.given)
			for i := range b {
				b[i] = true
			}
			ReleaseOpening(b)
		}
		m := Mask(tc.n)
		if len(m) != tc.n || slices.Contains(m, true) {
			t.Errorf("%s: %d bools, set: %v", tc.name, len(m), slices.Contains(m, true))
		}
		for i := range m {
			m[i] = true
		}
		ReleaseOpening(m) // dirty, for the next case
	}
}
