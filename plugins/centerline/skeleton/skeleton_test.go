package skeleton

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
)

func parse(rows ...string) ([]bool, int, int) {
	w, h := len(rows[0]), len(rows)
	in := make([]bool, w*h)
	for y, r := range rows {
		for x, c := range r {
			in[y*w+x] = c == '#'
		}
	}
	return in, w, h
}

func show(sk []bool, w int) string {
	var b strings.Builder
	for i, on := range sk {
		if on {
			b.WriteByte('#')
		} else {
			b.WriteByte('.')
		}
		if i%w == w-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// bar is a 9 x 3 bar with a pixel of paper around it.
var bar = []string{
	"...........",
	".#########.",
	".#########.",
	".#########.",
	"...........",
}

func TestThinKeepsTheMedialLineOfABar(t *testing.T) {
	in, w, h := parse(bar...)
	sk, err := Thin(context.Background(), in, distance.Transform(in, w, h), w, h)
	if err != nil {
		t.Fatal(err)
	}
	want := "...........\n...........\n..#######..\n...........\n...........\n"
	if got := show(sk.Mask(), w); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

func TestThinKeepsARingsHole(t *testing.T) {
	in, w, h := parse(
		".......",
		".#####.",
		".##.##.",
		".#...#.",
		".##.##.",
		".#####.",
		".......",
	)
	sk, _ := Thin(context.Background(), in, distance.Transform(in, w, h), w, h)
	mask := sk.Mask()
	// The skeleton must still enclose the centre: the background from the centre cannot
	// reach the border through 4-connected steps.
	seen := map[int]bool{3*w + 3: true}
	stack := []int{3*w + 3}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x == 0 || y == 0 || x == w-1 || y == h-1 {
			t.Fatalf("the hole leaks to the border:\n%s", show(sk.Mask(), w))
		}
		for _, o := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			j := (y+o[1])*w + x + o[0]
			if !mask[j] && !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
}

func TestSimpleTable(t *testing.T) {
	tests := []struct {
		name string
		c    int
		want bool
	}{
		{"isolated pixel is not simple", 0, false},
		{"an end with one neighbour is simple", 1, true},
		{"a pixel between east and west is not simple", 1 | 1<<4, false},
		{"a corner of a filled block is simple", 1 | 1<<6 | 1<<7, true},
		{"an interior pixel is not simple", 255, false},
	}
	for _, tt := range tests {
		if simple[tt.c] != tt.want {
			t.Errorf("%s: simple[%08b] = %v", tt.name, tt.c, simple[tt.c])
		}
	}
}

func TestVisitOrderIsByDistanceThenIndex(t *testing.T) {
	tests := []struct {
		name string
		d    []int32 // the distances of the shape's pixels; 0: not in the shape
	}{
		{"few distinct distances (counting sort)", []int32{0, 2, 1, 1, 0, 2, 5, 1, 2, 0, 1, 5}},
		{"far larger distances than pixels (key sort)", []int32{0, 9e6, 4e6, 4e6, 0, 1, 9e6, 2e9, 1, 0, 4e6, 1}},
		{"no shape", []int32{0, 0, 0}},
		{"a tall image (bands of rows)", tallDistances(3, 1000)},
	}
	const w = 3
	// shared carries the buffers of every case before into the next one's second run,
	// as the pool does between traces.
	shared := new(scratch)
	for _, tt := range tests {
		in := make([]bool, len(tt.d))
		for i, v := range tt.d {
			in[i] = v > 0
		}
		h := len(tt.d) / w
		framed := make([]uint8, (w+2)*(h+2))
		order, layers := visitOrder(distance.FindRuns(in, w, h), tt.d, w, framed, nil)
		for range 2 {
			again, againLayers := visitOrder(distance.FindRuns(in, w, h), tt.d, w, make([]uint8, len(framed)), shared)
			if !slices.Equal(again, order) || !slices.Equal(againLayers, layers) {
				t.Errorf("%s: with a used scratch, order %v layers %v, want %v %v", tt.name, again, againLayers, order, layers)
			}
		}
		for q, v := range framed {
			x, y := q%(w+2)-1, q/(w+2)-1
			inside := x >= 0 && y >= 0 && x < w && y < h && in[y*w+x]
			if (v == 1) != inside {
				t.Errorf("%s: framed pixel (%d,%d) = %d, want the shape's", tt.name, x, y, v)
			}
		}
		var want []int
		for i, v := range tt.d {
			if v > 0 {
				want = append(want, i)
			}
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(tt.d[a], tt.d[b]) })
		got := make([]int, len(order))
		for k, q := range order {
			got[k] = (int(q)/(w+2)-1)*w + int(q)%(w+2) - 1
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: order %v, want %v", tt.name, got, want)
		}
		if len(layers) == 0 || (len(order) > 0 && layers[0] != 0) || layers[len(layers)-1] != len(order) {
			t.Fatalf("%s: layers %v do not span the order", tt.name, layers)
		}
		for k := 0; k+1 < len(layers); k++ {
			a, b := layers[k], layers[k+1]
			if a >= b {
				t.Errorf("%s: empty layer %d in %v", tt.name, k, layers)
				continue
			}
			for _, i := range got[a:b] {
				if tt.d[i] != tt.d[got[a]] {
					t.Errorf("%s: layer %d mixes distances %d and %d", tt.name, k, tt.d[got[a]], tt.d[i])
				}
			}
			if b < len(got) && tt.d[got[b]] == tt.d[got[a]] {
				t.Errorf("%s: layers %d and %d share distance %d", tt.name, k, k+1, tt.d[got[a]])
			}
		}
	}
}

// TestThinKeepsTheEndOfAnEvenBand thins vertical bands of even width with a round top
// end: their two middle columns are equally deep, and the skeleton must still reach to
// within about a radius of the end's centre instead of being eaten from the end.
func TestThinKeepsTheEndOfAnEvenBand(t *testing.T) {
	tests := []struct {
		name  string
		width int
	}{
		{"6 px", 6},
		{"8 px", 8},
		{"10 px", 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h := tt.width+8, 80
			r := float64(tt.width) / 2
			cx, cy := float64(w)/2, 4+r // the end's centre
			in := make([]bool, w*h)
			for y := 0; y < h-4; y++ {
				for x := 0; x < w; x++ {
					px, py := float64(x)+0.5, float64(y)+0.5
					dy := math.Max(0, cy-py)
					in[y*w+x] = math.Hypot(px-cx, dy) <= r
				}
			}
			sk, err := Thin(context.Background(), in, distance.Transform(in, w, h), w, h)
			if err != nil {
				t.Fatal(err)
			}
			top := h
			for i, on := range sk.Mask() {
				if on {
					top = min(top, i/w)
				}
			}
			if got := float64(top) + 0.5; got > cy+r+1 {
				t.Errorf("the skeleton starts at y %.1f, want at most %.1f (the end's centre %.1f plus a radius and a pixel)\n%s", got, cy+r+1, cy, show(sk.Mask(), w))
			}
		})
	}
}

func TestRemoveClearsTheSkeletonUnderTheMaskAloneAndPixelsListsTheRest(t *testing.T) {
	in, w, h := parse(bar...)
	for _, tc := range []struct {
		name string
		mask func(x, y int) bool
	}{
		{"nothing", func(x, y int) bool { return false }},
		{"the right half", func(x, y int) bool { return x >= w/2 }},
		{"everything", func(x, y int) bool { return true }},
	} {
		sk, err := Thin(context.Background(), in, distance.Transform(in, w, h), w, h)
		if err != nil {
			t.Fatal(err)
		}
		want := sk.Mask()
		mask := make([]bool, w*h)
		for i := range mask {
			mask[i] = tc.mask(i%w, i/w)
			want[i] = want[i] && !mask[i]
		}
		sk.Remove(mask)
		if !slices.Equal(sk.Mask(), want) {
			t.Errorf("%s: got\n%swant\n%s", tc.name, show(sk.Mask(), w), show(want, w))
		}
		var listed []int32
		for i, on := range want {
			if on {
				listed = append(listed, int32(i))
			}
		}
		if got := sk.Pixels(); !slices.Equal(got, listed) {
			t.Errorf("%s: Pixels() = %v, want %v", tc.name, got, listed)
		}
	}
}

// tallDistances returns distances of a w x h shape, pseudo-random from 0 to 11 (0: not
// in the shape), so that visitOrder splits it into bands.
func tallDistances(w, h int) []int32 {
	d := make([]int32, w*h)
	seed := uint32(1)
	for i := range d {
		seed = seed*1664525 + 1013904223
		d[i] = int32(seed>>16) % 12
	}
	return d
}

// TestColumnsPacksEveryNeighbourhood checks columns and byColumns against the ring
// configuration read pixel by pixel, for every neighbourhood, with the pixel itself
// and the bytes past the 3 x 3 block set and clear.
func TestColumnsPacksEveryNeighbourhood(t *testing.T) {
	for _, tc := range []struct {
		name        string
		centre, far uint8
	}{
		{"centre and far bytes clear", 0, 0},
		{"centre set", 1, 0},
		{"far bytes set", 0, 1},
		{"both set", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const pw = 4 // a 4 x 3 block: the 3 x 3 neighbourhood and a column past it
			for c := range 256 {
				var block [3 * pw]uint8
				for y := range 3 {
					block[y*pw+3] = tc.far
				}
				block[pw+1] = tc.centre
				for k, o := range ring {
					block[(1+o[1])*pw+1+o[0]] = uint8(c >> k & 1)
				}
				got := byColumns[columns(
					binary.LittleEndian.Uint32(block[0:4]),
					binary.LittleEndian.Uint32(block[pw:pw+4]),
					binary.LittleEndian.Uint32(block[2*pw:2*pw+4]))]
				if int(got) != c {
					t.Fatalf("configuration %08b: got %08b", c, got)
				}
			}
		})
	}
}

// plainThin is ThinRuns' thinning written plainly: the shape's pixels by distance then
// index, each layer swept until a sweep removes nothing, a simple pixel removed when it
// has two neighbours or more (and, in phase 0 of a layer at least 3 px deep, does not
// end a two-pixel-wide line) or when a neighbour is deeper by half a pixel or more.
// It returns the pixels kept, in the order thinned.
func plainThin(in []bool, d []int32, w, h int) []int32 {
	on := slices.Clone(in)
	at := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && on[y*w+x] }
	var px []int
	for i, v := range in {
		if v {
			px = append(px, i)
		}
	}
	slices.SortStableFunc(px, func(a, b int) int { return cmp.Compare(d[a], d[b]) })
	var kept []int32
	for len(px) > 0 {
		n := 1
		for n < len(px) && d[px[n]] == d[px[0]] {
			n++
		}
		layer, dl := px[:n], d[px[0]]
		px = px[n:]
		for phase := 0; phase < 2; phase++ {
			if phase == 1 && dl < 9 {
				break
			}
			for changed := true; changed; {
				changed = false
				var next []int
				for _, i := range layer {
					x, y := i%w, i/w
					c, count := 0, 0
					for k, o := range ring {
						if at(x+o[0], y+o[1]) {
							c |= 1 << k
							count++
						}
					}
					remove := false
					if simple[c] {
						remove = count >= 2 && !(phase == 0 && dl >= 9 && tip[c])
						if !remove {
							// It ends no ridge: a neighbour is deeper by half a pixel.
							limit := math.Sqrt(float64(d[i])) + 0.5
							for _, o := range ring {
								if at(x+o[0], y+o[1]) && float64(d[(y+o[1])*w+x+o[0]]) >= limit*limit {
									remove = true
								}
							}
						}
					}
					if remove {
						on[i] = false
						changed = true
					} else {
						next = append(next, i)
					}
				}
				layer = next
			}
		}
		for _, i := range layer {
			kept = append(kept, int32(i))
		}
	}
	return kept
}

// TestThinIsThePlainThinning checks ThinRuns against plainThin on random shapes: blobs,
// bands and ragged noise.
func TestThinIsThePlainThinning(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	for trial := range 40 {
		w, h := 10+r.IntN(70), 10+r.IntN(60)
		in := make([]bool, w*h)
		for range 1 + r.IntN(6) {
			cx, cy, rr := r.IntN(w), r.IntN(h), 1+r.IntN(12)
			band := r.IntN(3) == 0
			for y := range h {
				for x := range w {
					dx, dy := x-cx, y-cy
					if band && abs(dx-dy) <= rr/2 || !band && dx*dx+dy*dy <= rr*rr {
						in[y*w+x] = true
					}
				}
			}
		}
		for i := range in {
			if r.IntN(20) == 0 {
				in[i] = !in[i]
			}
		}
		d := distance.Transform(in, w, h)
		sk, err := Thin(context.Background(), in, d, w, h)
		if err != nil {
			t.Fatal(err)
		}
		if want := plainThin(in, d, w, h); !slices.Equal(sk.at, want) {
			t.Fatalf("trial %d, %dx%d: thinned to %v, want %v", trial, w, h, sk.at, want)
		}
	}
}
