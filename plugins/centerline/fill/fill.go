// Package fill finds the solid areas of a drawing that are not lines, where a disc much
// wider than the typical line fits (a morphological opening, package distance), and
// describes them as outlines or as hatching. The outline trace's scratch buffers are
// kept between calls (at most 2.6 MB).
package fill

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"unsafe"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
	"github.com/tracecraft/tracecraft/plugins/centerline/fit"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
	"github.com/tracecraft/tracecraft/plugins/centerline/internal/grain"
	"github.com/tracecraft/tracecraft/plugins/centerline/internal/keep"
	"github.com/tracecraft/tracecraft/sdk/label"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// Blobs returns the parts of the w x h shape in (whose squared distance map is d) that
// a disc of radius r fits in: the union of all such discs (the opening by the disc).
// Nil when there are none.
func Blobs(in []bool, d []int32, w, h int, r float64) []bool {
	b, _ := BlobsAndRuns(distance.FindRuns(in, w, h), d, w, h, r)
	return b
}

// BlobsAndRuns is Blobs of the shape in whose runs are rs (distance.FindRuns), and
// returns too the blobs' runs (as distance.FindRuns finds them), for Parts.AbsorbRuns.
func BlobsAndRuns(rs distance.Runs, d []int32, w, h int, r float64) ([]bool, distance.Runs) {
	out, ors := distance.OpeningRuns(rs, d, w, h, r)
	if out == nil {
		return nil, distance.Runs{}
	}
	kept, left := dropThin(out, ors, d, r*r, w)
	if !left {
		distance.ReleaseOpening(out)
		return nil, distance.Runs{}
	}
	return out, kept
}

// MinCoreShare is the share of a solid area's pixels that must lie in its core (where
// the disc fits) for it to be a filled area: a line just wider than the limit is all
// rim, with a core a pixel or two wide along its middle, and is traced as a stroke.
const MinCoreShare = 0.2

// dropThin clears the 8-connected parts of b (of runs rs, w pixels wide) whose core
// share (pixels whose squared distance d is at least r2) is below MinCoreShare, and
// returns the runs left and whether there are any.
func dropThin(b []bool, rs distance.Runs, d []int32, r2 float64, w int) (distance.Runs, bool) {
	r := joinRuns(rs)
	size := make([]int, r.len())
	inCore := make([]int, r.len())
	for i := range r.len() {
		root := r.root(i)
		lo, hi := r.span(i, w)
		size[root] += hi - lo
		for _, v := range d[lo:hi] {
			if float64(v) >= r2 {
				inCore[root]++
			}
		}
	}
	kept := distance.Runs{Start: make([]int32, len(rs.Start))}
	for y := range len(rs.Start) - 1 {
		for i := rs.Start[y]; i < rs.Start[y+1]; i++ {
			root := r.root(int(i))
			if float64(inCore[root]) < MinCoreShare*float64(size[root]) {
				lo, hi := r.span(int(i), w)
				clear(b[lo:hi])
				continue
			}
			kept.Spans = append(kept.Spans, rs.Spans[i])
		}
		kept.Start[y+1] = int32(len(kept.Spans))
	}
	return kept, len(kept.Spans) > 0
}

// runs are the runs of set pixels of a mask, row by row, and their 8-connected parts:
// the runs are joined across rows by union-find, so that each pixel is read once.
type runs struct {
	distance.Runs
	y      []int32 // each run's row
	parent []int32
}

// joinRuns returns the parts of the runs rs of a mask.
func joinRuns(rs distance.Runs) runs {
	r := runs{Runs: rs, y: make([]int32, len(rs.Spans)), parent: make([]int32, len(rs.Spans))}
	h := len(rs.Start) - 1
	for y := range h {
		for i := rs.Start[y]; i < rs.Start[y+1]; i++ {
			r.y[i] = int32(y)
		}
	}
	for i := range r.parent {
		r.parent[i] = int32(i)
	}
	// Runs of neighbouring rows touch (8-connected) where their spans, one widened by a
	// pixel each side, overlap.
	sp := rs.Spans
	for y := 1; y < h; y++ {
		up, upEnd := rs.Start[y-1], rs.Start[y]
		for c := rs.Start[y]; c < rs.Start[y+1]; c++ {
			for up < upEnd && sp[up].B < sp[c].A {
				up++
			}
			for a := up; a < upEnd && sp[a].A <= sp[c].B; a++ {
				label.Union(r.parent, a, c)
			}
		}
	}
	return r
}

func (r *runs) len() int         { return len(r.Spans) }
func (r *runs) root(i int) int32 { return label.Find(r.parent, int32(i)) }

// span returns the indexes lo <= k < hi of run i's pixels in a mask w pixels wide.
func (r *runs) span(i, w int) (lo, hi int) {
	row := int(r.y[i]) * w
	return row + int(r.Spans[i].A), row + int(r.Spans[i].B)
}

// Absorb marks in b, in place, the whole of every 8-connected part of p's shape that
// b already covers at least share of the pixels of, and returns b (nil stays nil).
// Such a part is a filled shape with limbs, horns and a tail: outlined whole it
// renders as its ink does and costs fewer segments than an outline of its body with
// strokes laid over the outline's notches, each stroke ending in a round cap where the
// ink ends in a point.
func (p *Parts) Absorb(b []bool, share float64) []bool {
	if b == nil {
		return nil
	}
	b, _ = p.AbsorbRuns(b, distance.FindRunsWithin(b, p.r.Runs, p.w), share)
	return b
}

// AbsorbRuns is Absorb of b whose runs are brs (b within p's shape), for a caller
// that has them: b's pixels in each part are counted run by run, not read one by one
// over the whole shape (on the openclipart owl, 3 M instructions a trace less, on one
// core). It returns too which parts it absorbed (by number, At), for Except.
func (p *Parts) AbsorbRuns(b []bool, brs distance.Runs, share float64) (blobs []bool, whole []bool) {
	if b == nil {
		return nil, nil
	}
	size := p.Sizes()
	covered := make([]int, p.n)
	for i, k := range p.runParts(brs) {
		covered[k] += int(brs.Spans[i].B - brs.Spans[i].A)
	}
	whole = make([]bool, p.n)
	for k := range whole {
		whole[k] = covered[k] > 0 && float64(covered[k]) >= share*float64(size[k])
	}
	return p.selectIn(b, whole), whole
}

// Except returns the runs of p's shape but those of the parts marked in parts (by
// number, At), in raster order as distance.FindRuns lists them.
func (p *Parts) Except(parts []bool) distance.Runs {
	rs, _ := p.runsOf(parts, false, false)
	return rs
}

// runsOf returns the runs of p's shape in the parts k with sel[k] == want, in raster
// order as distance.FindRuns lists them, and, when withParts is set, each one's part.
func (p *Parts) runsOf(sel []bool, want, withParts bool) (rs distance.Runs, part []int32) {
	rs.Start = make([]int32, len(p.r.Start))
	for y := range len(p.r.Start) - 1 {
		for i := p.r.Start[y]; i < p.r.Start[y+1]; i++ {
			if k := p.number[i]; sel[k] == want {
				rs.Spans = append(rs.Spans, p.r.Spans[i])
				if withParts {
					part = append(part, k)
				}
			}
		}
		rs.Start[y+1] = int32(len(rs.Spans))
	}
	return rs, part
}

// Pt is a point of an outline, on pixel corners or crack midpoints: a fit.Vec, so
// that an outline is fitted as it is, without a copy.
type Pt = fit.Vec

// Outlines returns the closed boundaries of the blob mask b: outer boundaries and holes,
// each as the midpoints of its unit boundary edges, so that a fit smooths the staircase.
// Filled with the even-odd rule they cover b.
//
// A boundary edge (a crack) runs with the blob on its right (screen coordinates): a
// pixel's top, right, bottom and left cracks, in that order, are its cracks numbered
// 0 to 3. At each corner the boundary goes on along the crack leaving it that turns
// most to the right, which keeps two pixels touching by a corner apart. As many cracks
// leave a corner as reach it, paired by that rule, so each crack has one successor and
// one predecessor, and the boundaries are the cycles of cracks. Each is listed from its
// first crack in raster order (pixel, then number), in the order of those cracks.
func Outlines(b []bool, w, h int) [][]Pt {
	polys, _ := outlines(b, distance.FindRuns(b, w, h), w, h, nil, 0)
	return polys
}

// Outlines is the package's Outlines of the mask b, which lies within the shape p
// numbers the parts of: b is read at the shape's pixels alone.
func (p *Parts) Outlines(b []bool) [][]Pt {
	polys, _ := outlines(b, distance.FindRunsWithin(b, p.r.Runs, p.w), p.w, len(p.r.Start)-1, nil, 0)
	return polys
}

// EdgeOutlines returns p.Outlines(b) moved as Subpixel(polys, g, edge) moves them (g is
// as large as the shape), and the first point of each before it was moved, found
// together: each point is moved as it is traced, reading the two pixels beside its
// crack.
func (p *Parts) EdgeOutlines(b []bool, g *ink.Image, edge float64) (polys [][]Pt, firsts []Pt) {
	rs := distance.FindRunsWithin(b, p.r.Runs, p.w)
	polys, firsts, _ = p.outlinesInHalves(b, rs, p.runParts(rs), g, edge)
	return polys, firsts
}

// runParts returns the part of each run of rs, the runs of a mask within p's shape:
// each lies in a run of the shape, found walking both rows together.
func (p *Parts) runParts(rs distance.Runs) []int32 {
	part := make([]int32, len(rs.Spans))
	for y := range len(rs.Start) - 1 {
		k := p.r.Start[y]
		for i := rs.Start[y]; i < rs.Start[y+1]; i++ {
			for p.r.Spans[k].B <= rs.Spans[i].A {
				k++
			}
			part[i] = p.number[k]
		}
	}
	return part
}

// SelectEdgeOutlines is p.EdgeOutlines(p.Select(sel), g, edge) without looking for
// the selected parts' runs in their mask: they are the runs of p's shape numbered
// in sel (nil, nil when sel selects no part).
func (p *Parts) SelectEdgeOutlines(sel []bool, g *ink.Image, edge float64) (polys [][]Pt, firsts []Pt) {
	polys, firsts, _ = p.SelectEdgeOutlinesKeyed(sel, g, edge)
	return polys, firsts
}

// SelectEdgeOutlinesKeyed is SelectEdgeOutlines, and returns too each outline's key:
// the outlines are listed in the order of their keys, and those of one selection are
// those of a larger one with the same keys (each outline lies in one part), so that
// the outlines of two selections merged by key are those of the two together.
func (p *Parts) SelectEdgeOutlinesKeyed(sel []bool, g *ink.Image, edge float64) (polys [][]Pt, firsts []Pt, keys []int) {
	if !slices.Contains(sel, true) {
		return nil, nil, nil
	}
	// The selected parts' mask, in a buffer given back once their outlines are traced.
	b := p.selectIn(distance.Mask(p.w*(len(p.r.Start)-1)), sel)
	defer distance.ReleaseOpening(b)
	rs, part := p.runsOf(sel, true, true)
	return p.outlinesInHalves(b, rs, part, g, edge)
}

// Sizes returns each part's pixels, by number (At).
func (p *Parts) Sizes() []int {
	size := make([]int, p.n)
	for i := range p.r.len() {
		lo, hi := p.r.span(i, p.w)
		size[p.number[i]] += hi - lo
	}
	return size
}

// Holding returns which parts (by number, At) hold some of the runs rs, those of a
// mask within p's shape.
func (p *Parts) Holding(rs distance.Runs) []bool {
	held := make([]bool, p.n)
	for _, k := range p.runParts(rs) {
		held[k] = true
	}
	return held
}

// minHalves is the least number of pixels whose outlines outlinesInHalves traces in
// two halves at once: below it a goroutine costs more than it saves.
const minHalves = 4096

// outlinesInHalves is outlinesKeyed(b, rs, p.w, h, g, edge) of the mask b within p's shape
// whose runs are rs, with part the part of each run. The parts are split in two
// halves of about as many of b's pixels (in part order), and the outlines of each
// half are traced at once, each on a goroutine, then merged in the order one trace
// lists them: parts never touch, not even at a corner, so each outline lies in one
// part and is traced as it is in the whole. (On the openclipart owl, tracing the
// filled areas' outlines ran on one core for 18 M instructions a trace.)
func (p *Parts) outlinesInHalves(b []bool, rs distance.Runs, part []int32, g *ink.Image, edge float64) ([][]Pt, []Pt, []int) {
	h := len(p.r.Start) - 1
	size := make([]int, p.n)
	total := 0
	for i, s := range rs.Spans {
		size[part[i]] += int(s.B - s.A)
		total += int(s.B - s.A)
	}
	if total < minHalves {
		return outlinesKeyed(b, rs, p.w, h, g, edge)
	}
	second := make([]bool, p.n) // the parts of the second half
	cum := 0
	for k, n := range size {
		second[k] = 2*cum >= total
		cum += n
	}
	// The halves' runs in one buffer, each its share of rs's (grown by appending, they
	// were 14 KB and a dozen allocations a trace of the horse).
	var n1 int
	for i := range rs.Spans {
		n1 += bit(second[part[i]])
	}
	spans, starts := make([]distance.Span, len(rs.Spans)), make([]int32, 2*(h+1))
	n0 := len(rs.Spans) - n1
	halves := [2]distance.Runs{
		{Start: starts[:h+1], Spans: spans[:0:n0]},
		{Start: starts[h+1:], Spans: spans[n0:n0]},
	}
	for y := range h {
		for i := rs.Start[y]; i < rs.Start[y+1]; i++ {
			hr := &halves[bit(second[part[i]])]
			hr.Spans = append(hr.Spans, rs.Spans[i])
		}
		for i := range halves {
			halves[i].Start[y+1] = int32(len(halves[i].Spans))
		}
	}
	type traced struct {
		polys  [][]Pt
		firsts []Pt
		keys   []int
	}
	var t [2]traced
	done := make(chan struct{})
	go func() {
		defer close(done)
		t[1].polys, t[1].firsts, t[1].keys = outlinesKeyed(b, halves[1], p.w, h, g, edge)
	}()
	t[0].polys, t[0].firsts, t[0].keys = outlinesKeyed(b, halves[0], p.w, h, g, edge)
	<-done
	// Merge by key; firsts are listed only when g is given.
	n := len(t[0].polys) + len(t[1].polys)
	polys, keys := make([][]Pt, 0, n), make([]int, 0, n)
	var firsts []Pt
	if g != nil {
		firsts = make([]Pt, 0, n)
	}
	var at [2]int
	for range n {
		k := 0
		if at[0] == len(t[0].keys) || at[1] < len(t[1].keys) && t[1].keys[at[1]] < t[0].keys[at[0]] {
			k = 1
		}
		polys, keys = append(polys, t[k].polys[at[k]]), append(keys, t[k].keys[at[k]])
		if g != nil {
			firsts = append(firsts, t[k].firsts[at[k]])
		}
		at[k]++
	}
	if n == 0 {
		return nil, nil, nil
	}
	return polys, firsts, keys
}

// outlines is Outlines of the w x h mask b whose runs are rs. When g is not nil, it
// moves each point as Subpixel(polys, g, edge) does and returns too each outline's
// first point before it was moved.
func outlines(b []bool, rs distance.Runs, w, h int, g *ink.Image, edge float64) ([][]Pt, []Pt) {
	polys, firsts, _ := outlinesKeyed(b, rs, w, h, g, edge)
	return polys, firsts
}

// outlinesKeyed is outlines, and returns too each outline's key, (y*w+x)*2 for a
// boundary first met at the top crack of pixel (x, y) and one more for its bottom:
// the outlines are listed in the order of their keys.
func outlinesKeyed(b []bool, rs distance.Runs, w, h int, g *ink.Image, edge float64) ([][]Pt, []Pt, []int) {
	y0, y1 := -1, -1 // the rows with pixels of b
	for y := range h {
		if rs.Start[y+1] > rs.Start[y] {
			if y0 < 0 {
				y0 = y
			}
			y1 = y
		}
	}
	if y0 < 0 {
		return nil, nil, nil
	}
	// corner returns the four pixels around corner (cx, cy) on the image's border, as
	// crackNext takes them (pixels off the image are not set); trace reads those of
	// the inner corners itself.
	corner := func(cx, cy int) int {
		c := 0
		if cy > 0 {
			row := b[(cy-1)*w : cy*w]
			if cx > 0 && row[cx-1] {
				c |= 1
			}
			if cx < w && row[cx] {
				c |= 2
			}
		}
		if cy < h {
			row := b[cy*w : (cy+1)*w]
			if cx > 0 && row[cx-1] {
				c |= 4
			}
			if cx < w && row[cx] {
				c |= 8
			}
		}
		return c
	}
	// used marks the horizontal cracks already traced, two bits per pixel of rows y0
	// to y1 (top, bottom): a boundary's first crack is one (see below).
	// It and the outline being traced are scratch kept in a pool between calls: on a
	// small image their allocation (the horse's outline grown by appending, 200 KB of
	// its 2.4 MB a trace) made the garbage collector run more often.
	sc := outlineCache.Get()
	defer func() { outlineCache.Put(sc, 8*cap(sc.used)+16*cap(sc.buf) <= maxKeptOutline) }()
	n := ((y1-y0+1)*w*2 + 63) / 64
	sc.used = keep.Grown(sc.used, n)
	used := sc.used
	clear(used)
	var polys [][]Pt
	var firsts []Pt
	var keys []int
	buf := sc.buf[:0] // the outline being traced, copied out once whole
	defer func() { sc.buf = buf[:0] }()
	trace := func(x, y, side int) {
		// What the loop reads, held in locals rather than read through the closure
		// each time, and the inner corners' pixels read in the loop itself (on the
		// openclipart owl, calling corner at each crack was a fifth of the trace's
		// instructions; 1 M a trace less).
		b, used, w, h, y0 := b, used, w, h, y0
		var gpix []uint8
		var gw, gh int
		if g != nil {
			gpix, gw, gh = g.Pix, g.W, g.H
		}
		poly := buf[:0]
		var first Pt
		key := (y*w+x)*2 + side>>1
		for fx, fy, fside := x, y, side; ; {
			if side&1 == 0 {
				k := ((y-y0)*w+x)*2 + side>>1
				used[k>>6] |= 1 << (k & 63)
			}
			// The crack's midpoint and its end corner (cx, cy).
			var cx, cy int
			var q Pt
			switch side {
			case 0:
				q = Pt{X: float64(x) + 0.5, Y: float64(y)}
				cx, cy = x+1, y
			case 1:
				q = Pt{X: float64(x + 1), Y: float64(y) + 0.5}
				cx, cy = x+1, y+1
			case 2:
				q = Pt{X: float64(x) + 0.5, Y: float64(y + 1)}
				cx, cy = x, y+1
			default:
				q = Pt{X: float64(x), Y: float64(y) + 0.5}
				cx, cy = x, y
			}
			if len(poly) == 0 {
				first = q
			}
			if g != nil {
				// q moves across its crack, between pixels (ax, ay) and (bx, by), as
				// Subpixel moves it. The pixels are read directly where both are on
				// the image, and their darkness from a table rather than divided
				// (on the openclipart owl, a call for each crack, with g.At's tests
				// and two divisions, was a third of the trace's instructions).
				ax, ay, bx, by := x, y, x, y
				switch side {
				case 0:
					ay--
				case 1:
					bx++
				case 2:
					by++
				default:
					ax--
				}
				var va, vb uint8
				if ax >= 0 && ay >= 0 && bx < gw && by < gh {
					va, vb = gpix[ay*gw+ax], gpix[by*gw+bx]
				} else {
					va, vb = g.At(ax, ay), g.At(bx, by)
				}
				if a, b := unitDarkness[va], unitDarkness[vb]; !((a-edge)*(b-edge) >= 0) {
					off := (edge-a)/(b-a) - 0.5
					if ay == by {
						q.X += off
					} else {
						q.Y += off
					}
				}
			}
			poly = append(poly, q)
			var c int
			if cx > 0 && cx < w && cy > 0 && cy < h {
				// The four pixels through one slice, its second first: then the
				// others need no bounds checks.
				k := (cy-1)*w + cx - 1
				q := b[k : k+w+2 : k+w+2]
				q1 := q[1]
				c = bit(q[0]) | bit(q1)<<1 | bit(q[len(q)-2])<<2 | bit(q[len(q)-1])<<3
			} else {
				c = corner(cx, cy)
			}
			next := crackNext[side&3][c&15] // side is 0 to 3 and c 0 to 15: no bounds checks
			// The next crack's pixel, beside the corner.
			switch next {
			case 0:
				x, y = cx, cy
			case 1:
				x, y = cx-1, cy
			case 2:
				x, y = cx-1, cy-1
			case 3:
				x, y = cx, cy-1
			}
			if next < 0 || x == fx && y == fy && int(next) == fside {
				break // back at the first crack (a crack always has a successor)
			}
			side = int(next)
		}
		buf = poly
		if len(poly) >= 3 {
			polys = append(polys, slices.Clone(poly))
			keys = append(keys, key)
			if g != nil {
				firsts = append(firsts, first)
			}
		}
	}
	// start traces the boundary from crack side of pixel (x, y) unless it is traced.
	start := func(x, y, side int) {
		if k := ((y-y0)*w+x)*2 + side>>1; used[k>>6]&(1<<(k&63)) == 0 {
			trace(x, y, side)
		}
	}
	// A boundary's first crack is its first pixel's top or bottom: its first pixel in
	// raster order has nothing of the boundary above it or on its left, and a side
	// crack there leads from (or to) that pixel's top. So only the horizontal cracks
	// are looked at for new boundaries: a run's pixels where the row above (tops) or
	// below (bottoms) has none, in order, a top before a bottom.
	var tops, bottoms []distance.Span
	for y := y0; y <= y1; y++ {
		var above, below []distance.Span
		if y > 0 {
			above = rs.Row(y - 1)
		}
		if y+1 < h {
			below = rs.Row(y + 1)
		}
		for _, r := range rs.Row(y) {
			tops, above = gaps(tops[:0], r, above)
			bottoms, below = gaps(bottoms[:0], r, below)
			for t, u := 0, 0; t < len(tops) || u < len(bottoms); {
				x := math.MaxInt32
				if t < len(tops) {
					x = int(tops[t].A)
				}
				if u < len(bottoms) {
					x = min(x, int(bottoms[u].A))
				}
				inTop := t < len(tops) && int(tops[t].A) == x
				inBottom := u < len(bottoms) && int(bottoms[u].A) == x
				if inTop {
					start(x, y, 0)
				}
				if inBottom {
					start(x, y, 2)
				}
				// Step past x.
				if inTop {
					if tops[t].A++; tops[t].A == tops[t].B {
						t++
					}
				}
				if inBottom {
					if bottoms[u].A++; bottoms[u].A == bottoms[u].B {
						u++
					}
				}
			}
		}
	}
	return polys, firsts, keys
}

// outlineScratch holds outlinesKeyed's buffers between calls: the cracks traced and the
// outline being traced.
type outlineScratch struct {
	used []uint64
	buf  []Pt
}

// outlineCache keeps outlinesKeyed's scratch between calls (the two halves' traces run
// at once, so two may be out).
var outlineCache keep.Cache[outlineScratch]

// maxKeptOutline is the most bytes of scratch outlineCache keeps in its slot (a 2000 x
// 2000 image's crack marks and an outline of 100,000 cracks).
const maxKeptOutline = 2_600_000

// bit is 1 for true, 0 for false.
func bit(v bool) int {
	if v {
		return 1
	}
	return 0
}

// crackNext[side][c] is the side (0 to 3, as Outlines numbers them) of the crack that
// follows a crack of the given side at its end corner, whose four pixels are c (bit 0
// the pixel above left, 1 above right, 2 below left, 3 below right), or -1 when none
// does. The crack leaving a corner rightwards is the top of the pixel below right,
// leftwards the bottom of the pixel above left, downwards the right of the pixel below
// left and upwards the left of the pixel above right; the boundary takes the first of
// a right turn, straight on and a left turn that is a crack.
var crackNext = func() (t [4][16]int8) {
	dirs := [4][2]int{{1, 0}, {0, 1}, {-1, 0}, {0, -1}} // each side's direction
	for side, d := range dirs {
		for c := range 16 {
			nw, ne, sw, se := c&1 != 0, c&2 != 0, c&4 != 0, c&8 != 0
			t[side][c] = -1
			for _, dir := range [3][2]int{{-d[1], d[0]}, d, {d[1], -d[0]}} {
				next := -1
				switch {
				case dir[0] == 1 && se && !ne:
					next = 0
				case dir[0] == -1 && nw && !sw:
					next = 2
				case dir[1] == 1 && sw && !se:
					next = 1
				case dir[1] == -1 && ne && !nw:
					next = 3
				}
				if next >= 0 {
					t[side][c] = int8(next)
					break
				}
			}
		}
	}
	return t
}()

// gaps appends to out the parts of run r not covered by the runs of the next row, and
// returns it and those runs from the first that may cover a later run of r's row.
func gaps(out []distance.Span, r distance.Span, next []distance.Span) ([]distance.Span, []distance.Span) {
	for len(next) > 0 && next[0].B <= r.A {
		next = next[1:]
	}
	x := r.A
	for _, n := range next {
		if n.A >= r.B {
			break
		}
		if n.A > x {
			out = append(out, distance.Span{A: x, B: n.A})
		}
		x = max(x, n.B)
	}
	if x < r.B {
		out = append(out, distance.Span{A: x, B: r.B})
	}
	return out, next
}

// Hatch returns horizontal hatching of the blob mask b: for every row spacing apart
// (starting half a spacing in), the runs of blob pixels as segments inset by half a
// spacing from the run's edges, so that a round pen spacing wide covers the run and
// stays inside it.
func Hatch(b []bool, w, h int, spacing float64) [][2]Pt {
	spacing = math.Max(spacing, 1)
	var out [][2]Pt
	for yf := spacing / 2; yf < float64(h); yf += spacing {
		y := int(yf)
		for x := 0; x < w; {
			if !b[y*w+x] {
				x++
				continue
			}
			x0 := x
			for x < w && b[y*w+x] {
				x++
			}
			a, c := float64(x0)+0.5+spacing/2-0.5, float64(x)-0.5-spacing/2+0.5
			if c < a {
				a, c = (a+c)/2, (a+c)/2
			}
			out = append(out, [2]Pt{{X: a, Y: float64(y) + 0.5}, {X: c, Y: float64(y) + 0.5}})
		}
	}
	return out
}

// Disc is a disc of a stroke's ink: centre and radius in pixels, pixel centres at
// half-integers.
type Disc struct{ X, Y, R float64 }

// Cover marks in b, in place, the pixels of the w x h shape in whose centres lie in one
// of the discs, allocating b when it is nil, and returns b: the ink of strokes drawn as
// outlines rather than at one width.
//
// The discs come along strokes, each overlapping the one before: each row keeps the
// last stretch of pixels marked in it (grown while the next touches it), and only the
// part of a disc's row outside it is copied from in. (On the openclipart owl that
// halves Cover's instructions.)
func Cover(b, in []bool, w, h int, discs []Disc) []bool {
	if b == nil {
		b = distance.Mask(w * h)
	}
	if len(discs) == 0 {
		return b
	}
	// last[y] is [x0, x1), the stretch of row y marked last (x0 == x1: none).
	last := make([][2]int32, h)
	mark := func(row, x0, x1 int) {
		out := b[row+x0 : row+x1]
		for k, v := range in[row+x0 : row+x1] {
			if v {
				out[k] = true
			}
		}
	}
	// The rows are covered in bands, in parallel (each row is one band's alone), each
	// band going through the discs that reach it in their order.
	bands := (h + coverBand - 1) / coverBand
	reach := make([][]int32, bands)
	for i, c := range discs {
		y0, y1 := max(0, int(math.Floor(c.Y-c.R))), min(h-1, int(math.Ceil(c.Y+c.R)))
		for bnd := y0 / coverBand; y0 <= y1 && bnd <= y1/coverBand; bnd++ {
			reach[bnd] = append(reach[bnd], int32(i))
		}
	}
	_ = parallel.For(context.Background(), bands, grain.Lines(bands, coverBand*w, 1), func(_, lo, hi int) {
		for bnd := lo; bnd < hi; bnd++ {
			by0, by1 := bnd*coverBand, min(h, (bnd+1)*coverBand)-1
			for _, i := range reach[bnd] {
				c := discs[i]
				y0, y1 := max(by0, int(math.Floor(c.Y-c.R))), min(by1, int(math.Ceil(c.Y+c.R)))
				// The widest any of the disc's rows can be: a row whose last stretch
				// holds it has nothing to add, found without its own extent.
				wx0, wx1 := int32(max(0, int(math.Ceil(c.X-c.R-0.5)))), int32(min(w-1, int(math.Floor(c.X+c.R-0.5))))
				for y := y0; y <= y1; y++ {
					if l := last[y]; l[0] <= wx0 && wx1 < l[1] {
						continue
					}
					dy := float64(y) + 0.5 - c.Y
					half := c.R*c.R - dy*dy
					if half < 0 {
						continue
					}
					s := math.Sqrt(half)
					x0, x1 := max(0, int(math.Ceil(c.X-s-0.5))), min(w-1, int(math.Floor(c.X+s-0.5)))
					if x0 > x1 {
						continue
					}
					x1++ // [x0, x1)
					row := y * w
					l := &last[y]
					a, e := int(l[0]), int(l[1])
					if a == e || x1 < a || x0 > e {
						// Apart from the last stretch (or none): mark it all, and it is the
						// last.
						mark(row, x0, x1)
						l[0], l[1] = int32(x0), int32(x1)
						continue
					}
					// Touching or overlapping the last stretch: mark what lies outside it.
					if x0 < a {
						mark(row, x0, a)
					}
					if x1 > e {
						mark(row, e, x1)
					}
					l[0], l[1] = int32(min(a, x0)), int32(max(e, x1))
				}
			}
		}
	})
	return b
}

// coverBand and growBand are the rows Cover and Grow's first step hand out at a time.
const (
	coverBand = 64
	growBand  = 64
)

// Grow adds to b, in place, the pixels of the shape in (whose parts p numbers) next to
// it (4-connected), steps times: the ink a stroke's discs miss at its tapered tip and
// along its edges. The first step scans the shape's runs; each later one looks only
// around the pixels the step before added, since a pixel next to an older one joined
// already.
func (p *Parts) Grow(b, in []bool, steps int) {
	if steps <= 0 {
		return
	}
	w := p.w
	n := len(in)
	var added []int
	// The first step's scan, in bands of rows in parallel (it reads b, which nothing
	// writes until it ends): on the openclipart owl it ran on one core for 9 M
	// instructions a trace, beside the strokes' fits.
	h := len(p.r.Start) - 1
	bb := boolBytes(b)
	fronts := make([][]int, (h+growBand-1)/growBand)
	_ = parallel.For(context.Background(), len(fronts), grain.Lines(len(fronts), growBand*w, 1), func(_, lo, hi int) {
		for bnd := lo; bnd < hi; bnd++ {
			var front []int
			for y := bnd * growBand; y < min(h, (bnd+1)*growBand); y++ {
				row := y * w
				for _, s := range p.r.Row(y) {
					for x, end := int(s.A), int(s.B); x < end; {
						i := row + x
						stop := x + 1
						if x+8 <= end && i >= w && i >= 1 && i+w+8 <= n && i+9 <= n {
							// Eight pixels at once: none joins when all are in b, or when
							// none of them nor of their neighbours is (the words at i-1,
							// i+1, i-w and i+w hold all the neighbours, and some pixels
							// of other rows at a row's ends, which can only make the test
							// fail). Most of the ink is far from the strokes' discs: on
							// the openclipart owl the pixels' own tests were 5 M
							// instructions a trace.
							c := binary.LittleEndian.Uint64(bb[i:])
							if c == allBools || c|binary.LittleEndian.Uint64(bb[i-1:])|binary.LittleEndian.Uint64(bb[i+1:])|
								binary.LittleEndian.Uint64(bb[i-w:])|binary.LittleEndian.Uint64(bb[i+w:]) == 0 {
								x += 8
								continue
							}
							stop = x + 8
						}
						for ; x < stop; x++ {
							i := row + x
							if b[i] {
								continue
							}
							if (x > 0 && b[i-1]) || (x+1 < w && b[i+1]) || (i >= w && b[i-w]) || (i+w < n && b[i+w]) {
								front = append(front, i)
							}
						}
					}
				}
			}
			fronts[bnd] = front
		}
	})
	front := slices.Concat(fronts...)
	for _, i := range front {
		b[i] = true
	}
	add := func(n int) {
		if in[n] && !b[n] {
			b[n] = true
			added = append(added, n)
		}
	}
	for range steps - 1 {
		added = added[:0]
		for _, i := range front {
			x := i % w
			if x > 0 {
				add(i - 1)
			}
			if x+1 < w {
				add(i + 1)
			}
			if i >= w {
				add(i - w)
			}
			if i+w < n {
				add(i + w)
			}
		}
		front, added = added, front
	}
}

// unitDarkness[v] is float64(v) / 255: darkness v of an ink.Image in [0, 1].
var unitDarkness = func() (u [256]float64) {
	for v := range u {
		u[v] = float64(v) / 255
	}
	return u
}()

// boolBytes returns the bytes of b, each 0 or 1 (a bool is a byte), to be read eight
// at a time as a word.
func boolBytes(b []bool) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// allBools is eight true bools read as a little-endian word.
const allBools = 0x01010101_01010101

// Subpixel moves each point of the outlines polys, in place, from its crack's midpoint
// across the crack to where the darkness of g, interpolated between the centres of the
// two pixels the crack separates, crosses edge (0..1): an anti-aliased edge's true
// place, up to half a pixel off the staircase. A point whose two pixels are both on
// one side of edge stays.
func Subpixel(polys [][]Pt, g *ink.Image, edge float64) {
	for _, poly := range polys {
		for k, p := range poly {
			var a, b float64 // darkness before and after the crack, across it
			horizontal := p.Y == math.Floor(p.Y)
			if horizontal {
				a, b = g.Bilinear(p.X, p.Y-0.5), g.Bilinear(p.X, p.Y+0.5)
			} else {
				a, b = g.Bilinear(p.X-0.5, p.Y), g.Bilinear(p.X+0.5, p.Y)
			}
			if (a-edge)*(b-edge) >= 0 {
				continue
			}
			off := (edge-a)/(b-a) - 0.5
			if horizontal {
				poly[k].Y += off
			} else {
				poly[k].X += off
			}
		}
	}
}

// Area returns the signed area enclosed by poly (shoelace formula): positive when it
// turns clockwise on screen (y down), as Outlines' outer boundaries do.
//
// The terms are added in the order of poly's points, the closing one last, without
// a remainder for each point's successor: an outline's area is taken twice on its
// way to the fit, which made the remainders about 2 M instructions a trace of the
// openclipart owl.
func Area(poly []Pt) float64 {
	if len(poly) == 0 {
		return 0
	}
	var a float64
	p := poly[0]
	for _, q := range poly[1:] {
		a += p.X*q.Y - q.X*p.Y
		p = q
	}
	q := poly[0]
	a += p.X*q.Y - q.X*p.Y
	return a / 2
}

// Parts numbers the 8-connected parts of a shape, for asking which part a pixel is in.
type Parts struct {
	r      runs
	w      int
	number []int32 // each run's part number
	n      int
}

// NewParts returns the parts of the w x h shape in.
func NewParts(in []bool, w, h int) *Parts { return PartsOf(distance.FindRuns(in, w, h), w) }

// PartsOf returns the parts of the shape w pixels wide whose runs are rs
// (distance.FindRuns), for a caller that has them.
func PartsOf(rs distance.Runs, w int) *Parts {
	p := &Parts{r: joinRuns(rs), w: w}
	p.number = p.r.parent
	p.r.parent = nil // numbered in place: no longer a union-find forest
	p.n = label.Number(p.number)
	return p
}

// Len returns the number of parts.
func (p *Parts) Len() int { return p.n }

// At returns the number (0 to Len()-1) of the part pixel (x, y) is in, or -1 when it
// is not in the shape.
func (p *Parts) At(x, y int) int {
	if y < 0 || y+1 >= len(p.r.Start) || x < 0 || x >= p.w {
		return -1
	}
	lo, hi := int(p.r.Start[y]), int(p.r.Start[y+1])
	sp := p.r.Spans
	// the first run of the row ending past x
	k := lo + sort.Search(hi-lo, func(i int) bool { return int(sp[lo+i].B) > x })
	if k < hi && int(sp[k].A) <= x {
		return int(p.number[k])
	}
	return -1
}

// Beside returns the part of the shape beside the crack whose midpoint is q (a first
// point of Outlines' of a mask within the shape, before Subpixel moves it), or -1.
func (p *Parts) Beside(q Pt) int {
	if q.Y == math.Floor(q.Y) { // a horizontal crack: the pixels below and above
		x, y := int(math.Floor(q.X)), int(q.Y)
		if k := p.At(x, y); k >= 0 {
			return k
		}
		return p.At(x, y-1)
	}
	x, y := int(q.X), int(math.Floor(q.Y))
	if k := p.At(x, y); k >= 0 {
		return k
	}
	return p.At(x-1, y)
}

// Select returns the mask of the pixels of the parts k with sel[k] set, or nil when
// there are none.
func (p *Parts) Select(sel []bool) []bool {
	if !slices.Contains(sel, true) {
		return nil
	}
	return p.selectIn(make([]bool, p.w*(len(p.r.Start)-1)), sel)
}

// selectIn sets in b, as large as p's shape, the pixels of the parts k with sel[k]
// set, and returns b.
func (p *Parts) selectIn(b []bool, sel []bool) []bool {
	for i := range p.r.len() {
		if sel[p.number[i]] {
			lo, hi := p.r.span(i, p.w)
			setBools(b[lo:hi])
		}
	}
	return b
}

// setBools sets every bool of s, eight at a time as a word where it can (a pixel at
// a time, Select was 1 M instructions a trace on the openclipart spaghetti).
func setBools(s []bool) {
	bs := boolBytes(s)
	k := 0
	for ; k+8 <= len(bs); k += 8 {
		binary.LittleEndian.PutUint64(bs[k:], allBools)
	}
	for ; k < len(s); k++ {
		s[k] = true
	}
}
