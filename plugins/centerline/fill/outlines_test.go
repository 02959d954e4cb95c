package fill

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
)

// outlinesByCrackList is Outlines as first written: every crack listed in raster order,
// sorted by start corner, and each boundary followed by looking up the cracks leaving
// its corners, turning right at corners shared by two diagonal pixels. It is the
// reference Outlines must match point for point.
func outlinesByCrackList(b []bool, w, h int) [][]Pt {
	type crack struct{ x0, y0, x1, y1 int }
	var cracks []crack
	for y := range h {
		row := b[y*w : (y+1)*w]
		for x, v := range row {
			if !v {
				continue
			}
			i := y*w + x
			if y == 0 || !b[i-w] {
				cracks = append(cracks, crack{x, y, x + 1, y})
			}
			if x+1 == w || !row[x+1] {
				cracks = append(cracks, crack{x + 1, y, x + 1, y + 1})
			}
			if y+1 == h || !b[i+w] {
				cracks = append(cracks, crack{x + 1, y + 1, x, y + 1})
			}
			if x == 0 || !row[x-1] {
				cracks = append(cracks, crack{x, y + 1, x, y})
			}
		}
	}
	corner := func(x, y int) uint64 { return uint64(y)*uint64(w+1) + uint64(x) }
	byStart := make([]uint64, len(cracks))
	for k, c := range cracks {
		byStart[k] = corner(c.x0, c.y0)<<32 | uint64(k)
	}
	slices.Sort(byStart)
	leaving := func(x, y int) []uint64 {
		key := corner(x, y) << 32
		lo, _ := slices.BinarySearch(byStart, key)
		hi := lo
		for hi < len(byStart) && byStart[hi]>>32 == key>>32 {
			hi++
		}
		return byStart[lo:hi]
	}
	turn := func(a, b crack) int {
		return (a.x1-a.x0)*(b.y1-b.y0) - (a.y1-a.y0)*(b.x1-b.x0)
	}
	used := make([]bool, len(cracks))
	var polys [][]Pt
	for s := range cracks {
		if used[s] {
			continue
		}
		var poly []Pt
		c := s
		for !used[c] {
			used[c] = true
			k := cracks[c]
			poly = append(poly, Pt{X: float64(k.x0+k.x1) / 2, Y: float64(k.y0+k.y1) / 2})
			pick := -1
			for _, key := range leaving(k.x1, k.y1) {
				n := int(uint32(key))
				if used[n] && n != s {
					continue
				}
				if pick < 0 || turn(k, cracks[n]) > turn(k, cracks[pick]) {
					pick = n
				}
			}
			if pick < 0 {
				break
			}
			c = pick
		}
		if len(poly) >= 3 {
			polys = append(polys, poly)
		}
	}
	return polys
}

func TestOutlinesFollowEveryCrackAsTheCrackListDoes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		w, h    int
		density float64
	}{
		{"sparse specks", 40, 30, 0.1},
		{"diagonal pixels everywhere", 37, 23, 0.5},
		{"blobs with pinholes", 50, 41, 0.85},
		{"a single row", 64, 1, 0.5},
		{"a single column", 1, 64, 0.5},
		{"empty", 20, 20, 0},
		{"full", 20, 20, 1.01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 21))
				b := make([]bool, tc.w*tc.h)
				for i := range b {
					b[i] = rng.Float64() < tc.density
				}
				got, want := Outlines(b, tc.w, tc.h), outlinesByCrackList(b, tc.w, tc.h)
				if len(got) != len(want) {
					t.Fatalf("seed %d: %d outlines, want %d", seed, len(got), len(want))
				}
				for i := range got {
					if !slices.Equal(got[i], want[i]) {
						t.Fatalf("seed %d: outline %d is %v, want %v", seed, i, got[i], want[i])
					}
				}
			}
		})
	}
}

func TestEdgeOutlinesAreOutlinesMovedBySubpixel(t *testing.T) {
	for _, tc := range []struct {
		name          string
		w, h          int
		shape, inside float64 // densities of the shape's pixels, and of b's within it
		edge          float64
	}{
		{"specks at half", 40, 30, 0.3, 0.5, 0.5},
		{"blobs at half", 50, 41, 0.9, 0.9, 0.5},
		{"blobs at a third", 50, 41, 0.9, 0.8, 0.33},
		{"all of the shape", 23, 17, 0.7, 1.01, 0.5},
		{"the whole image", 20, 20, 1.01, 1.01, 0.5},
		{"a single row", 64, 1, 0.8, 0.8, 0.5},
		{"a single column", 1, 64, 0.8, 0.8, 0.5},
		{"nothing", 20, 20, 0.5, 0, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(10) {
				rng := rand.New(rand.NewPCG(seed, 5))
				in, b := make([]bool, tc.w*tc.h), make([]bool, tc.w*tc.h)
				g := &ink.Image{W: tc.w, H: tc.h, Pix: make([]uint8, tc.w*tc.h)}
				for i := range in {
					in[i] = rng.Float64() < tc.shape
					b[i] = in[i] && rng.Float64() < tc.inside
					// Ink mostly dark, paper mostly light, both sometimes grey.
					v := rng.IntN(256)
					if in[i] && rng.IntN(3) > 0 {
						v = 128 + v/2
					}
					g.Pix[i] = uint8(v)
				}
				parts := NewParts(in, tc.w, tc.h)
				want := parts.Outlines(b)
				firsts := make([]Pt, len(want))
				for i, poly := range want {
					firsts[i] = poly[0]
				}
				Subpixel(want, g, tc.edge)
				got, gotFirsts := parts.EdgeOutlines(b, g, tc.edge)
				if len(got) != len(want) || len(gotFirsts) != len(got) {
					t.Fatalf("seed %d: %d outlines and %d firsts, want %d", seed, len(got), len(gotFirsts), len(want))
				}
				for i := range got {
					if !slices.Equal(got[i], want[i]) {
						t.Fatalf("seed %d: outline %d is %v, want %v", seed, i, got[i], want[i])
					}
					if gotFirsts[i] != firsts[i] {
						t.Fatalf("seed %d: outline %d's first is %v, want %v", seed, i, gotFirsts[i], firsts[i])
					}
				}
			}
		})
	}
}

func TestSelectEdgeOutlinesAreTheSelectedPartsEdgeOutlines(t *testing.T) {
	for _, tc := range []struct {
		name         string
		w, h         int
		shape, chose float64 // densities of the shape's pixels, and the share of parts selected
	}{
		{"specks, half chosen", 40, 30, 0.2, 0.5},
		{"parts with holes, half chosen", 50, 41, 0.6, 0.5},
		{"every part", 30, 20, 0.4, 1.01},
		{"no part", 30, 20, 0.4, 0},
		{"the whole image", 20, 20, 1.01, 1.01},
		{"a single row", 64, 1, 0.6, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(10) {
				rng := rand.New(rand.NewPCG(seed, 7))
				parts, g := randomParts(rng, tc.w, tc.h, tc.shape)
				sel := make([]bool, parts.Len())
				for k := range sel {
					sel[k] = rng.Float64() < tc.chose
				}
				var want [][]Pt
				var wantFirsts []Pt
				if b := parts.Select(sel); b != nil {
					want, wantFirsts = parts.EdgeOutlines(b, g, 0.5)
				}
				got, firsts := parts.SelectEdgeOutlines(sel, g, 0.5)
				if len(got) != len(want) || !slices.Equal(firsts, wantFirsts) {
					t.Fatalf("seed %d: %d outlines from %v, want %d from %v", seed, len(got), firsts, len(want), wantFirsts)
				}
				for i := range got {
					if !slices.Equal(got[i], want[i]) {
						t.Fatalf("seed %d: outline %d is %v, want %v", seed, i, got[i], want[i])
					}
				}
			}
		})
	}
}

// TestKeyedOutlinesOfTwoSelectionsMergeIntoTheirUnions: the outlines of two disjoint
// selections of parts, merged by key, are those of the two selected together, each
// with its key, in increasing order: what the centre-line tracer relies on when it
// finds some parts' outlines ahead and the rest later. Large masks are traced in two
// halves at once, small ones in one go; both are covered.
func TestKeyedOutlinesOfTwoSelectionsMergeIntoTheirUnions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		w, h  int
		shape float64
	}{
		{"small, parts with holes", 50, 41, 0.6},
		{"large, specks", 200, 120, 0.3},
		{"large, parts with holes", 160, 120, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(6) {
				rng := rand.New(rand.NewPCG(seed, 21))
				parts, g := randomParts(rng, tc.w, tc.h, tc.shape)
				a, b, both := make([]bool, parts.Len()), make([]bool, parts.Len()), make([]bool, parts.Len())
				for k := range both {
					switch rng.IntN(3) {
					case 0:
						a[k], both[k] = true, true
					case 1:
						b[k], both[k] = true, true
					}
				}
				want, wantFirsts, wantKeys := parts.SelectEdgeOutlinesKeyed(both, g, 0.5)
				if !slices.IsSorted(wantKeys) || len(wantKeys) != len(want) {
					t.Fatalf("seed %d: keys %v not one per outline in increasing order", seed, wantKeys)
				}
				pa, fa, ka := parts.SelectEdgeOutlinesKeyed(a, g, 0.5)
				pb, fb, kb := parts.SelectEdgeOutlinesKeyed(b, g, 0.5)
				var got [][]Pt
				var firsts []Pt
				var keys []int
				for i, j := 0, 0; i < len(ka) || j < len(kb); {
					if j == len(kb) || i < len(ka) && ka[i] < kb[j] {
						got, firsts, keys = append(got, pa[i]), append(firsts, fa[i]), append(keys, ka[i])
						i++
					} else {
						got, firsts, keys = append(got, pb[j]), append(firsts, fb[j]), append(keys, kb[j])
						j++
					}
				}
				if !slices.Equal(keys, wantKeys) || !slices.Equal(firsts, wantFirsts) {
					t.Fatalf("seed %d: merged keys %v, firsts %v; want %v, %v", seed, keys, firsts, wantKeys, wantFirsts)
				}
				for i := range got {
					if !slices.Equal(got[i], want[i]) {
						t.Fatalf("seed %d: outline %d is %v, want %v", seed, i, got[i], want[i])
					}
				}
			}
		})
	}
}

func TestSizesAndHolding(t *testing.T) {
	// Three parts: a 2 x 2 square, a 3-pixel row, a single pixel.
	rows := []string{
		"##..###",
		"##.....",
		"......#",
	}
	w, h := len(rows[0]), len(rows)
	in := make([]bool, w*h)
	for y, r := range rows {
		for x, c := range r {
			in[y*w+x] = c == '#'
		}
	}
	parts := NewParts(in, w, h)
	sizes := make(map[int]int)
	for k, n := range parts.Sizes() {
		sizes[n] = k
	}
	if len(sizes) != 3 || sizes[4] != parts.At(0, 0) || sizes[3] != parts.At(4, 0) || sizes[1] != parts.At(6, 2) {
		t.Fatalf("sizes %v, parts at (0,0) %d, (4,0) %d, (6,2) %d", parts.Sizes(), parts.At(0, 0), parts.At(4, 0), parts.At(6, 2))
	}
	for _, tc := range []struct {
		name string
		mask []bool // within the shape
		want []int  // the points whose parts hold some of it
	}{
		{"none", make([]bool, w*h), nil},
		{"one pixel of the square", func() []bool { m := make([]bool, w*h); m[w+1] = true; return m }(), []int{0}},
		{"the row and the dot", func() []bool { m := make([]bool, w*h); m[5], m[2*w+6] = true, true; return m }(), []int{4, 2*w + 6}},
	} {
		held := parts.Holding(distance.FindRuns(tc.mask, w, h))
		want := make([]bool, parts.Len())
		for _, i := range tc.want {
			want[parts.At(i%w, i/w)] = true
		}
		if !slices.Equal(held, want) {
			t.Errorf("%s: holding %v, want %v", tc.name, held, want)
		}
	}
}

// randomParts returns the parts of a w x h shape whose pixels are set with the
// probability shape, and an ink image of random levels as large.
func randomParts(rng *rand.Rand, w, h int, shape float64) (*Parts, *ink.Image) {
	in := make([]bool, w*h)
	g := &ink.Image{W: w, H: h, Pix: make([]uint8, w*h)}
	for i := range in {
		in[i] = rng.Float64() < shape
		g.Pix[i] = uint8(rng.IntN(256))
	}
	return NewParts(in, w, h), g
}
