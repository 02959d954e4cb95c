// Package skeleton thins a binary shape to a one-pixel-wide, 8-connected medial axis by
// distance-ordered homotopic thinning: pixels are visited from the boundary inwards in
// the order of their distance to it, and a pixel is removed when that does not change
// the shape's topology (it is simple) and it is not the end of a ridge of the distance
// map. What remains runs along the ridges, the medial axis, and keeps every hole.
// Scratch buffers are kept between calls (at most 20 MB, those of a 2000 x 2000 image).
package skeleton

import (
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
	"github.com/tracecraft/tracecraft/plugins/centerline/internal/grain"
	"github.com/tracecraft/tracecraft/plugins/centerline/internal/keep"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// Neighbour offsets in ring order, starting east and turning anticlockwise on screen
// (y down): E, NE, N, NW, W, SW, S, SE.
var ring = [8][2]int{{1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}, {0, 1}, {1, 1}}

// simple[c] says whether a pixel whose 8 neighbours are the bits of c (bit i for
// ring[i]) is simple: its neighbours in the shape form one 8-connected component and
// the background neighbours that touch it by an edge form one 4-connected component.
var simple = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = components(c, true) == 1 && components(c, false) == 1
	}
	return t
}()

// tip[c] says whether a pixel whose neighbours are c ends a line two pixels wide: two
// or three neighbours side by side. Removing such pixels one after the other, in scan
// order, eats a straight band of even width from its end (its two middle columns are
// equally deep, so no pixel of them is the end of a ridge); Thin removes them only
// once the rest of their layer is thinned. It does so from a depth of 3 px (bands 6 px
// wide and wider): nearer the paper the distances are too coarse to tell a ridge, and
// deferring there grows spurs on the ragged edges of real line art.
var tip = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		n, runs := 0, 0
		for i := 0; i < 8; i++ {
			n += c >> i & 1
			if c>>i&1 == 1 && c>>((i+7)%8)&1 == 0 {
				runs++
			}
		}
		t[c] = n >= 2 && n <= 3 && runs == 1
	}
	return t
}()

// freeTip[c] says whether Thin removes a pixel whose neighbours are c without asking
// whether it ends a ridge: it is simple with two neighbours or more; freeNoTip[c] the
// same, but for the ends of two-pixel-wide lines (tip), which phase 0 defers.
var freeTip, freeNoTip = func() (all, noTip [256]bool) {
	for c := range 256 {
		all[c] = simple[c] && bits.OnesCount8(uint8(c)) >= 2
		noTip[c] = all[c] && !tip[c]
	}
	return all, noTip
}()

// columns packs the eight neighbours of a pixel, given as the bytes (0 or 1) of the
// little-endian words read from its upper-left, left and lower-left neighbours on, into
// a byte by column: bits 0-2 the west column's upper, lower and middle pixel, bits 3-4
// the middle column's upper and lower, bits 5-7 the east column's upper, lower and
// middle (the pixel itself and the words' fourth bytes are left out). The three
// columns are put side by side in each byte and the bytes moved next to each other by
// one multiplication: its eight other products fall apart from bits 11-18 and add up
// to less than 1<<11 below them, so that no carry reaches those bits.
func columns(up, mid, dn uint32) uint8 {
	v := up&0x010101 | dn&0x010101<<1 | mid&0x010001<<2
	return uint8(v * (1<<11 | 1<<6 | 1) >> 11)
}

// byColumns[b] is the ring configuration (bit i for ring[i]) of the neighbours packed
// as columns packs them into b.
var byColumns = func() (t [256]uint8) {
	// The ring position of each bit of columns' byte.
	var at [8]int
	for bit, o := range [8][2]int{{-1, -1}, {-1, 1}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {1, 1}, {1, 0}} {
		at[bit] = slices.Index(ring[:], o)
	}
	for b := range 256 {
		for bit, k := range at {
			t[b] |= uint8(b>>bit&1) << k
		}
	}
	return t
}()

// What ThinRuns does with a pixel, by its neighbours packed as columns packs them: the
// bits of removal[b] say whether the pixel is simple, free (freeTip) and free but for
// tips (freeNoTip).
const (
	isSimple uint8 = 1 << iota
	isFreeTip
	isFreeNoTip
)

var removal = func() (t [256]uint8) {
	for b, c := range byColumns {
		if simple[c] {
			t[b] |= isSimple
		}
		if freeTip[c] {
			t[b] |= isFreeTip
		}
		if freeNoTip[c] {
			t[b] |= isFreeNoTip
		}
	}
	return t
}()

// components counts the 8-connected components of the set neighbours of configuration
// c (fg), or the 4-connected components of the unset neighbours that contain an edge
// neighbour (background).
func components(c int, fg bool) int {
	in := func(i int) bool { return (c>>i&1 == 1) == fg }
	seen := 0
	n := 0
	for s := 0; s < 8; s++ {
		if !in(s) || seen>>s&1 == 1 {
			continue
		}
		if !fg && s%2 == 1 {
			continue // background components must reach an edge neighbour
		}
		n++
		stack := []int{s}
		seen |= 1 << s
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := 0; j < 8; j++ {
				if !in(j) || seen>>j&1 == 1 || !adjacent(i, j, fg) {
					continue
				}
				seen |= 1 << j
				stack = append(stack, j)
			}
		}
	}
	return n
}

// adjacent says whether ring positions i and j touch: by an edge or corner for the
// shape (8-connectivity), by an edge for the background (4-connectivity).
func adjacent(i, j int, eight bool) bool {
	dx, dy := ring[i][0]-ring[j][0], ring[i][1]-ring[j][1]
	if eight {
		return max(abs(dx), abs(dy)) == 1
	}
	return abs(dx)+abs(dy) == 1
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Skeleton is a shape's thinned medial axis: a list of pixels, a small part of the
// image, so that no map of the whole image is kept.
type Skeleton struct {
	// at lists the skeleton's pixels (indices on the image), in the order thinned.
	at []int32
	// n is the number of the image's pixels.
	n int
}

// Pixels returns the indices on the image of the skeleton's pixels, in increasing
// order.
func (s *Skeleton) Pixels() []int32 {
	out := slices.Clone(s.at)
	slices.Sort(out)
	return out
}

// Mask returns the skeleton as a mask of the image's pixels.
func (s *Skeleton) Mask() []bool {
	m := make([]bool, s.n)
	for _, i := range s.at {
		m[i] = true
	}
	return m
}

// Remove takes off the skeleton its pixels where mask (of the image's pixels) is set,
// so that no stroke runs through a filled area.
func (s *Skeleton) Remove(mask []bool) {
	s.at = slices.DeleteFunc(s.at, func(i int32) bool { return mask[i] })
}

// Thin returns the skeleton of the w x h shape in, given its squared distance map d
// (package distance). It checks ctx between distance layers.
func Thin(ctx context.Context, in []bool, d []int32, w, h int) (*Skeleton, error) {
	return ThinRuns(ctx, distance.FindRuns(in, w, h), d, w, h)
}

// ThinRuns is Thin of the shape whose runs are rs (distance.FindRuns), for a caller
// that has them.
func ThinRuns(ctx context.Context, rs distance.Runs, d []int32, w, h int) (*Skeleton, error) {
	// The shape on a grid with a one-pixel empty frame, so that every pixel's eight
	// neighbours are at fixed offsets.
	// Bytes (0 or 1) rather than bools, so that a pixel's configuration is put
	// together without a branch per neighbour.
	pw := w + 2
	// The framed grid and the visit order are scratch, taken from a pool: on a small
	// image their allocation (300 KB of the horse's 2.4 MB a trace) made the garbage
	// collector run more often than the thinning itself cost.
	sc := scratchCache.Get()
	defer func() { scratchCache.Put(sc, cap(sc.sk)+4*cap(sc.order) <= maxKeptScratch) }()
	sk := keep.Grown(sc.sk, pw*(h+2)+1) // and a byte for sweep's last word
	clear(sk)
	sc.sk = sk
	var off [8]int
	for k, o := range ring {
		off[k] = o[1]*pw + o[0]
	}
	// Visit order: by distance, then by index, in layers of equal distance; pixels are
	// named by their index on the framed grid.
	order, layers := visitOrder(rs, d, w, sk, sc) // and sets sk
	unframe := func(q int32) int { return (int(q)/pw-1)*w + int(q)%pw - 1 }
	// kept[li] is the number of layer li's pixels left in the skeleton, compacted to the
	// layer's start in order.
	kept := keep.Grown(sc.kept, len(layers)) // each set before it is read
	sc.kept = kept
	for li := 0; li+1 < len(layers); li++ {
		start, end := layers[li], layers[li+1]
		if li&0xff == 0 || end-start > 4096 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		layer := order[start:end]  // the order is not needed again: compacted in place
		dl := d[unframe(layer[0])] // the layer's distance
		// Phase 0 leaves the pixels ending a two-pixel-wide line (tip) at least 3 px
		// deep for phase 1.
		for phase := 0; phase < 2; phase++ {
			if phase == 1 && dl < 9 {
				break // phase 0 deferred nothing
			}
			// A simple pixel goes when free (see the tables) or when it ends no ridge.
			free := isFreeTip
			if phase == 0 && dl >= 9 {
				free = isFreeNoTip
			}
			for changed := true; changed; {
				changed = false
				n := 0
				for i := 0; i < len(layer); i++ {
					var gone bool
					n, i, gone = sweep(sk, layer, n, i, pw, free)
					changed = changed || gone
					if i == len(layer) {
						break
					}
					// Pixel i is simple but not free: it goes when it ends no ridge.
					if p := layer[i]; ridgeEnd(sk, d, &off, int(p), w) {
						layer[n] = p
						n++
					} else {
						sk[p] = 0
						changed = true
					}
				}
				layer = layer[:n]
			}
		}
		kept[li] = len(layer)
	}
	// The skeleton is the pixels kept, a small part of the image, in the order of
	// their layers. Its slice is made to its length at once: grown by appending, it
	// was a tenth of what ThinRuns allocated on the horse.
	total := 0
	for li := 0; li+1 < len(layers); li++ {
		total += kept[li]
	}
	out := &Skeleton{n: w * h, at: make([]int32, 0, total)}
	for li := 0; li+1 < len(layers); li++ {
		for _, p := range order[layers[li] : layers[li]+kept[li]] {
			out.at = append(out.at, int32(unframe(p)))
		}
	}
	return out, nil
}

// scratch holds ThinRuns's buffers between calls: the framed grid, the visit order,
// visitOrder's bands and layers, and the count kept of each layer.
type scratch struct {
	sk    []uint8
	order []int32
	bands []orderBand // each band's next kept for its capacity
	// visitOrder's layers and ThinRuns's count of each layer's pixels kept
	layers, kept []int
}

// scratchCache keeps ThinRuns's scratch between calls.
var scratchCache keep.Cache[scratch]

// maxKeptScratch is the most bytes of scratch scratchCache keeps in its slot (those of
// keep.MaxPixels: a byte a pixel of framed grid, four of visit order); a larger one is
// left to its pool.
const maxKeptScratch = 5 * keep.MaxPixels

// sweep goes on thinning layer from its pixel i (see ThinRuns), with the first n pixels
// kept so far compacted at its start, until a simple pixel that is not free asks
// whether it ends a ridge: it returns n, that pixel's index (len(layer) at the layer's
// end), and whether it took any pixel out. It calls nothing, so that its loop's
// variables stay in registers.
//
// The layer's pixels are inside sk's frame, and sk has a byte past the frame's end, so
// the three words read around a pixel q (from q-pw-1 to q+pw+2) lie within sk: they
// are read without bounds tests, which took a third of the loop's instructions.
func sweep(sk []uint8, layer []int32, n, i, pw int, free uint8) (int, int, bool) {
	base := unsafe.Pointer(unsafe.SliceData(sk))
	gone := false
	for ; i < len(layer); i++ {
		p := layer[i]
		left := unsafe.Add(base, int(p)-1) // the pixel's left neighbour
		k := removal[columns(
			binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(left, -pw))[:]),
			binary.LittleEndian.Uint32((*[4]byte)(left)[:]),
			binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(left, pw))[:]))]
		if k&free != 0 {
			*(*uint8)(unsafe.Add(left, 1)) = 0
			gone = true
			continue
		}
		if k&isSimple != 0 {
			break
		}
		layer[n] = p
		n++
	}
	return n, i, gone
}

// ridgeEnd says whether pixel q of the framed grid sk (ThinRuns') may end a line: no
// neighbour in the shape (off are their offsets on sk, as ring's) is farther from the
// boundary by half a pixel or more. (Exact distances along a ridge wobble by less than
// that; past the centre of a round end they fall by about a pixel per step.) It is
// called for few of the pixels thinning visits, and kept out of its loop so that the
// loop's variables stay in registers.
func ridgeEnd(sk []uint8, d []int32, off *[8]int, q, w int) bool {
	pw := w + 2
	i := (q/pw-1)*w + q%pw - 1
	limit := math.Sqrt(float64(d[i])) + 0.5
	limit *= limit
	for k, o := range off {
		if sk[q+o] == 1 && float64(d[i+ring[k][1]*w+ring[k][0]]) >= limit {
			return false
		}
	}
	return true
}

// visitOrder returns the pixels of the shape whose runs are rs (indices on the grid
// framed by one pixel, of width w+2) in the order of their distance d, then of their
// index, and the bounds of the runs of equal distance: run k is
// order[layers[k]:layers[k+1]]. Distances are whole numbers no larger than the number
// of pixels in a true distance map, so a counting sort does it in two scans; distances
// far beyond that fall back to a sort of distance-and-index keys. The first scan also
// sets framed's pixels of the shape (on the framed grid) to 1.
//
// Both scans run in bands of rows across the machine's cores: the first counts each
// band's distances, and the second places each band's pixels after those of the same
// distance in the bands above, so that the order is the same whatever the bands.
//
// It takes its buffers from sc (nil: new ones) and leaves them there for the next call.
func visitOrder(rs distance.Runs, d []int32, w int, framed []uint8, sc *scratch) (order []int32, layers []int) {
	h := len(rs.Start) - 1
	if w <= 0 || h <= 0 {
		return nil, []int{0}
	}
	limit := int32(min(w*h+1024, math.MaxInt32-1))
	if sc == nil {
		sc = new(scratch)
	}
	bands := keep.Grown(sc.bands, min(maxOrderBands, (h+orderBandRows-1)/orderBandRows))
	sc.bands = bands
	rows := (h + len(bands) - 1) / len(bands)
	_ = parallel.For(context.Background(), len(bands), grain.Lines(len(bands), rows*w, 1), func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			bands[b].count(rs, d, w, b*rows, min(h, (b+1)*rows), limit, framed)
		}
	})
	// Each distance's start in the order, and each band's within it.
	var most int
	for b := range bands {
		if bands[b].far {
			return sortedOrder(rs, d, w, framed)
		}
		most = max(most, len(bands[b].next))
	}
	var at int32
	layers = sc.layers[:0]
	defer func() { sc.layers = layers }()
	for v := range most {
		first := at
		for b := range bands {
			if nb := bands[b].next; v < len(nb) {
				c := nb[v]
				nb[v] = at
				at += c
			}
		}
		if at > first {
			layers = append(layers, int(first))
		}
	}
	layers = append(layers, int(at))
	order = keep.Grown(sc.order, int(at)) // every element is placed: no need to zero it
	sc.order = order
	_ = parallel.For(context.Background(), len(bands), grain.Lines(len(bands), rows*w, 1), func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			bands[b].place(rs, d, w, order)
		}
	})
	return order, layers
}

// place puts the pixels of the band's rows, of the shape of runs rs with distances d,
// in order (see visitOrder). It is a method rather than For's closure: the variables a
// closure captures are loaded from memory in its loop, which cost a third of it.
func (b *orderBand) place(rs distance.Runs, d []int32, w int, order []int32) {
	pw := w + 2
	next := b.next
	for y := b.y0; y < b.y1; y++ {
		for _, r := range rs.Row(y) {
			placeRun(next, order, d[y*w+int(r.A):y*w+int(r.B)], int32((y+1)*pw+1+int(r.A)))
		}
	}
}

// placeRun puts the pixels base, base+1, ... whose distances are vs in order, each
// at next[its distance], which it moves on. It calls nothing, so that its loop's
// variables stay in registers: in place's own loop, two of them were reloaded from
// memory for every pixel, 16 instructions instead of 14 (owl: place -0.6M a trace,
// the call included).
//
//go:noinline
func placeRun(next, order, vs []int32, base int32) {
	for k, v := range vs {
		at := &next[v]
		order[*at] = base + int32(k)
		*at++
	}
}

// orderBandRows is the fewest rows, and maxOrderBands the most bands, visitOrder splits
// an image into. Eight bands are four for each of two cores; each more costs a step
// for every distance up to the largest when the counts are summed (owl's reach 30000:
// 16 bands took 2.2M instructions there).
const (
	orderBandRows = 64
	maxOrderBands = 8
)

// orderBand is visitOrder's work on a band of rows y0 <= y < y1: the number of its
// shape's pixels at each distance (then, where each distance's next pixel goes in the
// order), and whether a distance was out of the counting sort's range.
type orderBand struct {
	next   []int32
	y0, y1 int
	far    bool
}

// count counts rows y0 <= y < y1 of the shape of runs rs with distances d (see
// visitOrder).
func (b *orderBand) count(rs distance.Runs, d []int32, w, y0, y1 int, limit int32, framed []uint8) {
	pw := w + 2
	b.y0, b.y1 = y0, y1
	// next is a local, not set on b by a deferred call: a variable a closure captures
	// lives in memory, and the loop's loads and stores of it were half its cost.
	// It starts from the capacity a former call left (empty: the counts are appended
	// as zeros), 256 at least.
	next := b.next[:0]
	if cap(next) < 256 {
		next = make([]int32, 0, 256)
	}
	b.far = false
	for y := y0; y < y1; y++ {
		for _, r := range rs.Row(y) {
			for vs := d[y*w+int(r.A) : y*w+int(r.B)]; ; {
				k := tally(next, vs)
				if k == len(vs) {
					break
				}
				v := vs[k]
				if v < 0 || v > limit {
					b.next, b.far = next, true
					return
				}
				next = append(next, make([]int32, int(v)+1-len(next))...)
				vs = vs[k:]
			}
			dst := framed[(y+1)*pw+1+int(r.A) : (y+1)*pw+1+int(r.B)]
			for k := range dst {
				dst[k] = 1
			}
		}
	}
	b.next = next
}

// tally counts the distances vs in next, up to the first that is out of next's range,
// and returns that one's index (len(vs) when none is). It calls nothing, so that its
// loop's variables stay in registers: in count's own loop, next's growth made them
// spill, 11 instructions a pixel instead of 8 (owl: count -2.3M a trace).
//
//go:noinline
func tally(next, vs []int32) int {
	for k, v := range vs {
		i := int(v)
		if uint(i) >= uint(len(next)) {
			return k
		}
		next[i]++
	}
	return len(vs)
}

// sortedOrder is visitOrder by a sort of distance-and-index keys.
func sortedOrder(rs distance.Runs, d []int32, w int, framed []uint8) (order []int32, layers []int) {
	pw := w + 2
	var keys []uint64
	for y := range len(rs.Start) - 1 {
		for _, r := range rs.Row(y) {
			for x := int(r.A); x < int(r.B); x++ {
				i := y*w + x
				keys = append(keys, uint64(uint32(d[i]))<<32|uint64(i))
				framed[(y+1)*pw+x+1] = 1
			}
		}
	}
	slices.Sort(keys)
	order = make([]int32, len(keys))
	for k, key := range keys {
		if k == 0 || key>>32 != keys[k-1]>>32 {
			layers = append(layers, k)
		}
		i := int(uint32(key))
		order[k] = int32((i/w+1)*pw + i%w + 1)
	}
	layers = append(layers, len(keys))
	return order, layers
}
