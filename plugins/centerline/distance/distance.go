// Package distance computes the exact Euclidean distance transform of a binary image
// in whole numbers with Meijster, Roerdink and Hesselink's two-phase algorithm (2000):
// for every pixel, the squared distance to the nearest pixel outside the shape; and,
// from it, the shape's morphological opening by a disc. Both phases run on integers
// (the second with the integer "separator" of two parabolas), so the results are
// exact, and in bands of columns and of rows across the machine's cores; every value
// depends on the image alone. Scratch buffers, and the distance maps and opening masks
// callers give back (Release, ReleaseOpening), are kept between calls (one of at most 4 MB each outside a sync.Pool), so
// that small images do not make the garbage collector run more often.
package distance

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/tracecraft/tracecraft/plugins/centerline/internal/grain"
	"github.com/tracecraft/tracecraft/plugins/centerline/internal/keep"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// Transform returns, for each pixel of the w x h mask in, the squared Euclidean
// distance from its centre to the centre of the nearest pixel where in is false; the
// outside of the image counts as false, so a shape touching the border is measured to
// it. Pixels where in is false get 0.
func Transform(in []bool, w, h int) []int32 {
	return TransformRuns(FindRuns(in, w, h), w, h)
}

// TransformRuns is Transform of the mask whose runs are rs (FindRuns), for a caller
// that keeps them: the later stages of a trace read the ink's runs too.
//
// The map comes from one a caller gave back with Release, when one is large enough:
// its bytes are cleared here, a band of columns at a time in the first phase's
// goroutines, just before the phase writes them.
func TransformRuns(rs Runs, w, h int) []int32 {
	d, dirty := keep.Take(&mapCache, w*h)
	if w <= 0 || h <= 0 {
		return d
	}
	// Both phases work on the runs of shape pixels alone (a drawing is mostly paper).
	// Phase 1, per column: the distance to the nearest pixel outside the shape in the
	// same column (the outside of the image above and below counts). A sweep down
	// counts each run of shape pixels from its top; where the run ends (at paper or at
	// the image's bottom edge), its lower half is set to the distance to that end, the
	// nearer one there. Columns are independent; a band of them is swept row by row, over
	// the runs of each row (the shape pixels, counted) and the gaps they leave in the
	// runs of the row above (where a column's run ends), found by walking both rows'
	// runs together rather than by looking at each pixel of the row above again.
	_ = parallel.For(context.Background(), w, grain.Lines(w, h, 64), func(_, lo, hi int) {
		if dirty {
			clear(d[lo:hi])
		}
		prev := rs.within(0, lo, hi)
		for _, r := range prev {
			a, b := clip(r, lo, hi)
			for k := a; k < b; k++ {
				d[k] = 1
			}
		}
		for y := 1; y < h; y++ {
			row, above := d[y*w:(y+1)*w], d[(y-1)*w:y*w]
			if dirty {
				clear(row[lo:hi])
			}
			cur := rs.within(y, lo, hi)
			for _, r := range cur {
				a, b := clip(r, lo, hi)
				// As slices of the run's columns, not indexed from a to b: one bounds
				// test a run, not two a pixel (owl: phase 1 -0.14M instructions a trace).
				dst := row[a:b]
				for k, v := range above[a:b] {
					dst[k] = v + 1
				}
			}
			j := 0
			for _, r := range prev {
				a, b := clip(r, lo, hi)
				for x := a; x < b; {
					for j < len(cur) && int(cur[j].B) <= x {
						j++
					}
					// Columns x up to the next run of row y (or b) end their runs.
					gap, next := b, b
					if j < len(cur) && int(cur[j].A) < b {
						gap, next = max(x, int(cur[j].A)), int(cur[j].B)
					}
					for k := x; k < gap; k++ {
						if above[k] > 1 {
							runEnd(d, w, k, y, above[k])
						}
					}
					x = next
				}
			}
			prev = cur
		}
		last := d[(h-1)*w : h*w]
		for _, r := range prev {
			a, b := clip(r, lo, hi)
			for k := a; k < b; k++ {
				if v := last[k]; v > 1 {
					runEnd(d, w, k, h, v)
				}
			}
		}
	})
	// Phase 2, per row: the lower envelope of the parabolas (x-i)² + g(i)², over each
	// run of shape pixels alone, with the pixels outside the shape (g = 0) or the
	// outside of the image at either end: no parabola beyond them can be lower.
	rowGrain := grain.Lines(h, w, 16)
	scratch := newScratch(parallel.Workers(h, rowGrain), w+2)
	defer scratchCache.Put(&scratch, (w+2)*len(scratch) <= keep.MaxPixels/40) // 8+32 bytes a column
	// No distance needs capping at MaxInt32 in an image under 32768 pixels a side.
	small := int64(w+2)*int64(w+2)+int64(h)*int64(h) <= math.MaxInt32
	_ = parallel.For(context.Background(), h, rowGrain, func(worker, lo, hi int) {
		sc := &scratch[worker]
		for y := lo; y < hi; y++ {
			row := d[y*w : (y+1)*w]
			for _, r := range rs.Row(y) {
				run := row[r.A:r.B]
				m := len(run)
				g := sc.g[: m+2 : m+2]
				g[0], g[m+1] = 0, 0
				// reach, the column distances' sum, bounds the local search's steps.
				reach := 0
				for k, v := range run {
					g[k+1] = int64(v) * int64(v)
					reach += int(v)
				}
				if m+2 <= shortRun || reach <= shallowReach*m {
					envelopeNear(g, run)
				} else {
					envelopeScan(sc.apex, g, run, small)
				}
			}
		}
	})
	return d
}

// Span is a run of shape pixels A <= x < B of a row.
type Span struct{ A, B int32 }

// Runs are the runs of shape pixels of a mask's rows, in raster order: row y's are
// Spans[Start[y]:Start[y+1]].
type Runs struct {
	Spans []Span
	Start []int32
}

// runBand is the number of rows FindRuns takes at a time.
const runBand = 64

// FindRuns returns the runs of shape pixels of each row of the w x h mask in, found in
// bands of rows across the machine's cores.
func FindRuns(in []bool, w, h int) Runs { return findRuns(in, w, h, nil) }

// FindRunsWithin returns the runs of the mask in, w pixels wide, that lies within the
// shape whose runs are shape (FindRuns): only the shape's pixels are read.
func FindRunsWithin(in []bool, shape Runs, w int) Runs {
	return findRuns(in, w, len(shape.Start)-1, &shape)
}

// findRuns is FindRuns of the mask in, which is empty outside the runs of within (all
// rows when within is nil).
func findRuns(in []bool, w, h int, within *Runs) Runs {
	h = max(h, 0)
	rs := Runs{Start: make([]int32, h+1)}
	if w <= 0 {
		return rs
	}
	// Each band's runs are gathered in a buffer from bandCache (what a former call left,
	// emptied), then copied out: growing them afresh was a sixth of what FindRuns
	// allocated on the horse.
	bands := *bandCache.Get()
	nb := (h + runBand - 1) / runBand
	if cap(bands) < nb {
		bands = append(bands[:cap(bands)], make([][]Span, nb-cap(bands))...)
	}
	bands = bands[:nb]
	defer func() {
		size := 0
		for _, sp := range bands {
			size += 8 * cap(sp)
		}
		bandCache.Put(&bands, size <= keep.MaxPixels)
	}()
	_ = parallel.For(context.Background(), len(bands), grain.Lines(len(bands), runBand*w, 1), func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			sp := bands[b][:0]
			for y := b * runBand; y < min(h, (b+1)*runBand); y++ {
				row := in[y*w : (y+1)*w]
				if within == nil {
					sp = appendRuns(sp, row, 0, w)
				} else {
					for _, r := range within.Row(y) {
						sp = appendRuns(sp, row, int(r.A), int(r.B))
					}
				}
				rs.Start[y+1] = int32(len(sp)) // within the band, for now
			}
			bands[b] = sp
		}
	})
	n := 0
	for _, sp := range bands {
		n += len(sp)
	}
	rs.Spans = make([]Span, 0, n)
	for b, sp := range bands {
		base := int32(len(rs.Spans))
		for y := b*runBand + 1; y <= min(h, (b+1)*runBand); y++ {
			rs.Start[y] += base
		}
		rs.Spans = append(rs.Spans, sp...)
	}
	return rs
}

// appendRuns appends to sp the runs of row within columns x0 <= x < x1.
func appendRuns(sp []Span, row []bool, x0, x1 int) []Span {
	// A bool is a byte, 0 or 1: nextSet reads the row's bytes eight at a time.
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(row))), len(row))[:x1]
	for x := x0; ; {
		a := nextSet(b, x, 1)
		if a == len(b) {
			return sp
		}
		x = nextSet(b, a, 0)
		sp = append(sp, Span{int32(a), int32(x)})
	}
}

// nextSet returns the index of the first byte of b from x on that is v (0 or 1), or
// len(b). Eight bytes are read at a time as a word, and the first one that is v is
// found by counting trailing zero bits: paper, most of a drawing, is skipped at under
// an instruction a pixel, a fifth of what testing each byte costs.
func nextSet(b []byte, x int, v byte) int {
	r := b[x:]
	// The word's bytes that are not v are 0 once xored with flip.
	flip := uint64(1-v) * 0x0101010101010101
	i := 0
	for ; i+8 <= len(r); i += 8 {
		if u := binary.LittleEndian.Uint64(r[i:]) ^ flip; u != 0 {
			return x + i + bits.TrailingZeros64(u)/8
		}
	}
	for ; i < len(r); i++ {
		if r[i] == v {
			return x + i
		}
	}
	return len(b)
}

// Row returns the runs of row y.
func (rs Runs) Row(y int) []Span { return rs.Spans[rs.Start[y]:rs.Start[y+1]] }

// within returns the runs of row y that reach into the columns lo <= x < hi (the first
// and the last may reach out of them: see clip).
func (rs Runs) within(y, lo, hi int) []Span {
	r := rs.Row(y)
	// The first run ending past lo, and the first starting at hi or later.
	i, _ := slices.BinarySearchFunc(r, int32(lo), func(s Span, x int32) int { return cmp.Compare(s.B-1, x) })
	j := i
	for j < len(r) && r[j].A < int32(hi) {
		j++
	}
	return r[i:j]
}

// clip returns the columns of run s within lo <= x < hi.
func clip(s Span, lo, hi int) (int, int) {
	return max(int(s.A), lo), min(int(s.B), hi)
}

// runEnd sets the lower half of the run of shape pixels of column x that ends above row
// y (paper, or the image's bottom edge) and is n pixels long, counted from its top, to
// the distance to y where that is the nearer.
func runEnd(d []int32, w, x, y int, n int32) {
	// The index steps up a row at a time, with no multiplication a pixel (owl: phase 1
	// -0.8M instructions a trace).
	i := (y-1)*w + x
	// j <= n/2 is j < n-j+1, the nearer end; with n/2 worked out once, phase 1's loop
	// no longer reloads n in each step (owl: phase 1 -0.5M instructions a trace).
	for j, m := int32(1), n/2; j <= m; j++ {
		d[i] = j
		i -= w
	}
}

// Opening returns the morphological opening of the w x h shape in by a disc of radius
// r, given its squared distance map d (Transform): the pixels of in whose centre lies
// within r of the centre of a core pixel, one at least r from every pixel outside the
// shape (d >= r²), so that the disc of radius r around it lies in the shape. Nil when
// there is no core pixel.
//
// It is a distance transform to the core, cut short. The boxes of the core's groups of
// near rows, grown by r, hold every pixel within reach. The first phase caps column
// distances just above r, as nothing farther counts (and then a byte holds them), and
// counts in each row only the columns with a core pixel within that many rows above. And
// the second phase runs over the runs of shape pixels alone, not over whole rows: from
// a core pixel c to a pixel p within reach, the pixels of p's row up to c's column are
// nearer to c than p is, so nearer than any pixel outside the shape, and are in it.
func Opening(in []bool, d []int32, w, h int, r float64) []bool {
	out, _ := OpeningRuns(FindRuns(in, w, h), d, w, h, r)
	return out
}

// OpeningRuns is Opening of the shape whose runs are rs (FindRuns), which also
// returns the runs of the opening: both the shape's and the opening's are read within
// the opening's boxes alone.
func OpeningRuns(rs Runs, d []int32, w, h int, r float64) ([]bool, Runs) {
	r2 := r * r
	least := math.Ceil(r2) // distances are whole numbers
	if !(least <= math.MaxInt32) {
		return nil, Runs{}
	}
	t := int32(least)
	grow := int(math.Ceil(r))
	var out []bool
	var boxes []box
	var nears [][][2]int // each box's columns near its core, by row (see opening)
	var ends [][2]int32  // each row's first and last core pixel (-1: none)
	// Core pixels in rows more than 2·grow+1 apart have no pixel within reach in
	// common: each group of closer rows is opened in its own box, the group's cores
	// grown by grow (boxes of different groups share no row), so that the paper
	// between a drawing's filled areas is skipped.
	b := box{x0: w, y0: -1, w: w}
	flush := func() {
		if b.y0 < 0 {
			return
		}
		if out == nil {
			// A mask given back (ReleaseOpening) when one is large enough: the
			// boxes below set only their own pixels, so it is cleared whole.
			out = Mask(w * h)
		}
		b.x0, b.y0, b.x1, b.y1 = max(0, b.x0-grow), max(0, b.y0-grow), min(w-1, b.x1+grow), min(h-1, b.y1+grow)
		// A column distance above r is as good as infinite.
		// The column distances: scratch from openCache in the usual case of one byte
		// (every element is set by opening before it is read).
		if far, n := grow+1, (b.x1-b.x0+1)*(b.y1-b.y0+1); far < math.MaxUint8 { // far+1 must not wrap
			g := openCache.Get()
			*g = keep.Grown(*g, n)
			nears = append(nears, opening(rs, d, t, b, uint8(far), r2, ends, out, *g))
			openCache.Put(g, n <= keep.MaxPixels)
		} else {
			nears = append(nears, opening(rs, d, t, b, int32(far), r2, ends, out, make([]int32, n)))
		}
		boxes = append(boxes, b)
		b = box{x0: w, y0: -1, w: w}
	}
	// Each row's first and last core pixel (-1: none), found in bands of rows across the
	// machine's cores.
	ends = make([][2]int32, h)
	_ = parallel.For(context.Background(), h, grain.Lines(h, w, 16), func(_, lo, hi int) {
		for y := lo; y < hi; y++ {
			// Core pixels are shape pixels: the row's runs are looked at alone, and not
			// those too short to hold one (no pixel of a run of n is farther than
			// (n+1)/2 from its ends): most runs of a drawing's lines.
			row, runs := d[y*w:(y+1)*w], rs.Row(y)
			x0, x1 := -1, -1
		first:
			for _, r := range runs {
				if half := int64(r.B-r.A+1) / 2; half*half < int64(t) {
					continue
				}
				for x := int(r.A); x < int(r.B); x++ {
					if row[x] >= t {
						x0 = x
						break first
					}
				}
			}
			if x0 >= 0 {
			last:
				for k := len(runs) - 1; k >= 0; k-- {
					if half := int64(runs[k].B-runs[k].A+1) / 2; half*half < int64(t) {
						continue
					}
					for x := int(runs[k].B) - 1; x >= max(x0, int(runs[k].A)); x-- {
						if row[x] >= t {
							x1 = x
							break last
						}
					}
				}
			}
			ends[y] = [2]int32{int32(x0), int32(x1)}
		}
	})
	for y := 0; y < h; y++ {
		x0, x1 := int(ends[y][0]), int(ends[y][1])
		if x0 < 0 {
			continue
		}
		if b.y0 >= 0 && y-b.y1 > 2*grow+1 {
			flush()
		}
		if b.y0 < 0 {
			b.y0, b.x1 = y, -1
		}
		b.x0, b.x1, b.y1 = min(b.x0, x0), max(b.x1, x1), y
	}
	flush()
	if out == nil {
		return nil, Runs{}
	}
	// The opening's runs, in its boxes (nothing is open outside them).
	inBox := Runs{Start: make([]int32, h+1)}
	for k, b := range boxes {
		for y := b.y0; y <= b.y1; y++ {
			// An open pixel is within r of a core pixel, in a column near it.
			near := nears[k][y-b.y0]
			if a, e := max(0, near[0]-grow), min(b.x1-b.x0+1, near[1]+grow); a < e {
				inBox.Spans = append(inBox.Spans, Span{int32(b.x0 + a), int32(b.x0 + e)})
			}
			inBox.Start[y+1] = int32(len(inBox.Spans))
		}
	}
	for y := 1; y <= h; y++ {
		inBox.Start[y] = max(inBox.Start[y], inBox.Start[y-1])
	}
	return out, findRuns(out, w, h, &inBox)
}

// box is a rectangle of pixels, corners included, of an image w pixels wide.
type box struct{ x0, y0, x1, y1, w int }

// maxSpanRows is the largest far for which opening finds the columns each row's sweep
// must count, by looking at the far rows above each.
const maxSpanRows = 64

// opening is Opening's work on box b, with column distances of type T capped at far,
// in g (scratch, one per pixel of the box). ends, when not nil, holds each image row's
// first and last core pixel (-1: none). It returns, for each row of the box, the box's
// columns a <= x < b that have a core pixel within far-1 rows (all of them when ends is
// nil).
func opening[T uint8 | int32](rs Runs, d []int32, t int32, b box, far T, r2 float64, ends [][2]int32, out []bool, g []T) [][2]int {
	bw, bh, w := b.x1-b.x0+1, b.y1-b.y0+1, b.w
	// The column distance to the core, capped at far, in one sweep down: counted from
	// the core above, and lowered above the top of each run of core pixels. It starts
	// far everywhere (filled by doubling copies, a small part of a pass over it), so
	// that the rows far from any core are not written at all: most of a box whose
	// cores are few and far apart (spaghetti: the sweep took 8.6M instructions a trace).
	if len(g) > 0 {
		g[0] = far
		for n := 1; n < len(g); n *= 2 {
			copy(g[n:], g[:n])
		}
	}
	// Below a row, a column's count is under far only within far-1 rows of a core pixel
	// in it: span[y] holds the box's columns a <= x < b that have one in the rows
	// from y-far+1 to y, the ones the sweep must count (elsewhere g stays far). The
	// wide distances, for radii over 253 pixels, count every column.
	span := make([][2]int, bh)
	for y := range span {
		span[y] = [2]int{0, bw}
		if ends == nil || int(far) > maxSpanRows {
			continue
		}
		a, e := bw, 0
		for yy := max(0, y-int(far)+1); yy <= y; yy++ {
			if c := ends[yy+b.y0]; c[0] >= 0 {
				a, e = min(a, int(c[0])-b.x0), max(e, int(c[1])-b.x0+1)
			}
		}
		span[y] = [2]int{a, e}
	}
	// And a column's distance is under far at all only within far-1 rows of a core
	// pixel in it, above or below: near[y] holds the columns that have one in the rows
	// from y-far+1 to y+far-1, the only ones the second phase can find within reach.
	near := make([][2]int, bh)
	for y := range near {
		a, e := bw, 0
		for yy := y; yy < min(bh, y+int(far)); yy++ {
			a, e = min(a, span[yy][0]), max(e, span[yy][1])
		}
		near[y] = [2]int{a, e}
	}
	_ = parallel.For(context.Background(), bw, grain.Lines(bw, bh, 64), func(_, lo, hi int) {
		for y := range bh {
			a, e := max(lo, span[y][0]), min(hi, span[y][1])
			if a >= e {
				continue
			}
			row, drow := g[y*bw+a:y*bw+e], d[(y+b.y0)*w+b.x0+a:(y+b.y0)*w+b.x0+e]
			drow = drow[:len(row)]
			if y == 0 {
				for k, v := range drow {
					if v >= t {
						row[k] = 0
					}
				}
				continue
			}
			above := g[(y-1)*bw+a : (y-1)*bw+e]
			above = above[:len(row)]
			for k, v := range drow {
				if v < t {
					row[k] = min(above[k]+1, far)
					continue
				}
				row[k] = 0
				// The top of a run of core pixels: the rows above, up to far, are
				// nearer to it than their count from the core above says.
				if above[k] != 0 {
					for j, q := T(1), (y-1)*bw+a+k; j < far && q >= 0 && j < g[q]; j, q = j+1, q-bw {
						g[q] = j
					}
				}
			}
		}
	})
	// The second phase needs only whether a pixel is within r of the core, not its
	// distance: whether a column i of its run reaches it, |x-i| <= half[g(i)], the
	// largest whole dx with dx² + g(i)² <= r² (none: far below any column's index, so
	// that it reaches nothing either way). A sweep right carries the farthest reach of
	// the columns so far, and one left the same the other way.
	const none = math.MinInt32
	half := make([]int, int(far)+1)
	capped := r2 >= math.MaxInt32
	for v := range half {
		half[v] = none
		v2 := int64(v) * int64(v)
		if float64(v2) > r2 {
			continue
		}
		dx := int64(math.Sqrt(r2 - float64(v2)))
		for dx > 0 && float64(dx*dx+v2) > r2 {
			dx--
		}
		for float64((dx+1)*(dx+1)+v2) <= r2 {
			dx++
		}
		half[v] = int(dx)
	}
	_ = parallel.For(context.Background(), bh, grain.Lines(bh, bw, 16), func(_, lo, hi int) {
		for y := lo; y < hi; y++ {
			gRow := g[y*bw : (y+1)*bw]
			for _, r := range rs.Row(y + b.y0) {
				// The run's columns in the box, from its left edge.
				a, x := max(int(r.A), b.x0)-b.x0, min(int(r.B), b.x1+1)-b.x0
				if a >= x || x <= near[y][0] || a >= near[y][1] {
					continue // no column of the run within reach: nothing to open
				}
				run := gRow[a:x]
				o := out[(y+b.y0)*w+b.x0+a:]
				o = o[:len(run)]
				reach := -1
				for k, v := range run {
					reach = max(reach, k+half[v])
					o[k] = reach >= k
				}
				// A run with no core pixel within r in any of its columns has none
				// within r at all (the paths to it are longer): nothing to open (out
				// was false there, and stays so). Most runs of a drawing's lines are so.
				if reach < 0 {
					continue
				}
				reach = len(run)
				for k := len(run) - 1; k >= 0; k-- {
					reach = min(reach, k-half[run[k]])
					o[k] = o[k] || reach <= k
				}
				if capped {
					// The exact phase this replaces compared distances capped at
					// MaxInt32 <= r²: all within.
					for k := range o {
						o[k] = true
					}
				}
			}
		}
	})
	return near
}

// rowScratch is one worker's buffers for the second phase.
type rowScratch struct {
	g    []int64 // squared column distances of the run (padded)
	apex []apex  // the envelope's stack
}

// apex is a parabola on the lower envelope: its apex's column s and height g, the first
// column t it is the lowest at, and its height there, h.
type apex struct {
	s, t int
	g, h int64
}

// newScratch returns the buffers of workers workers for runs of up to n-2 pixels.
// They come from scratchCache when it has them (what they hold is overwritten before it
// is read): on a small image their allocation made the garbage collector run more often.
func newScratch(workers, n int) []rowScratch {
	sc := *scratchCache.Get()
	if cap(sc) < workers {
		sc = append(sc[:cap(sc)], make([]rowScratch, workers-cap(sc))...)
	}
	sc = sc[:workers]
	for k := range sc {
		if cap(sc[k].g) < n {
			sc[k] = rowScratch{g: make([]int64, n), apex: make([]apex, n)}
		}
		sc[k].g, sc[k].apex = sc[k].g[:n], sc[k].apex[:n]
	}
	return sc
}

// Release gives back a distance map that TransformRuns or Transform returned, for a
// later call to fill instead of allocating one: on the horse of the line-art corpus
// the map was 525 KB of the 1.37 MB a trace allocated. The caller must not use d after.
// A map of more than keep.MaxPixels pixels (16 MB) is kept only in a sync.Pool: kept
// up to a 1000 x 1000 image's, the openclipart owl's (1.45 MP) was allocated afresh
// each trace, and TransformRuns took 4.9 ms there rather than 3.8.
func Release(d []int32) {
	if cap(d) == 0 {
		return
	}
	mapCache.Put(&d, cap(d) <= keep.MaxPixels)
}

// Mask returns a mask of n pixels, all false: one given back by ReleaseOpening,
// cleared, where there is one large enough, else a new one. (On a 640 x 480 brush
// drawing, the masks allocated anew were 0.65 MB of the 2.8 MB a trace allocated, and
// the garbage collector ran that much more often.)
func Mask(n int) []bool {
	b, dirty := keep.Take(&outCache, n)
	if dirty {
		clear(b)
	}
	return b
}

// ReleaseOpening gives back a mask that OpeningRuns returned, or any other of the
// caller's that nothing refers to any more, for a later OpeningRuns to fill instead of
// allocating one (the horse of the line-art corpus: 131 KB of the 380 KB a trace
// allocated). The caller must not use b after. A mask of more than keep.MaxPixels
// bytes is kept only in a sync.Pool.
func ReleaseOpening(b []bool) {
	if cap(b) == 0 {
		return
	}
	outCache.Put(&b, cap(b) <= keep.MaxPixels)
}

// The caches of scratch buffers between calls: the distance maps and the opening
// masks given back (Release, ReleaseOpening),
// findRuns's bands of runs, opening's column distances and TransformRuns's row buffers.
var (
	mapCache     keep.Cache[[]int32]
	outCache     keep.Cache[[]bool]
	bandCache    keep.Cache[[][]Span]
	openCache    keep.Cache[[]uint8]
	scratchCache keep.Cache[[]rowScratch]
)

// TransformRuns finds a run's envelope by envelopeNear when it has at most shortRun
// columns with the pads, or when their column distances are at most shallowReach on
// average: a pixel then looks at about as many columns each side as its own column
// distance, fewer than the scan's steps per column (a horizontal line, a thin run
// along a filled area's edge). 4 rather than 3 or 6 took the fewest instructions on
// the line-art corpus (owl -0.5M a trace, glyphs -0.7M) and on the generated clean
// drawings of BenchmarkAccuracy (-0.7M of 12.03G).
const (
	shortRun     = 7
	shallowReach = 4
)

// envelopeNear computes out[x-1] = min_i (x-i)² + g[i] for x in [1, len(g)-1), where g
// holds squared column distances, the first and the last a pad, 0, by looking at each
// point at its own parabola and those of the columns near enough to be lower, dx² <
// the best so far. The pads end the search: at either one dx² is the best so far, so
// no index leaves g.
func envelopeNear(g []int64, out []int32) {
	for x := 1; x < len(g)-1; x++ {
		best := g[x]
		dx, dd := 1, int64(1)
		for dd < best {
			best = min(best, dd+g[x-dx], dd+g[x+dx])
			dd += int64(2*dx + 1)
			dx++
		}
		out[x-1] = int32(min(best, math.MaxInt32))
	}
}

// envelopeScan is envelopeNear by Meijster's lower-envelope scan, given a stack of
// len(g) apexes for the parabolas still on the envelope. The first, the pad's, stays at
// the bottom: it is 0 at column 0, where no other is as low. small says that no value
// can exceed MaxInt32 (len(g)² plus the largest of g is within it), so that none is
// capped.
func envelopeScan(st []apex, g []int64, out []int32, small bool) {
	n := len(g)
	st = st[:n]
	q := 0
	st[0] = apex{s: 0, t: 0, g: g[0], h: g[0]}
	for u := 1; u < n; u++ {
		gu := g[u]
		// Drop the parabolas that the one at u is below at the start of their reign.
		a := &st[q]
		for {
			b := int64(a.t - u)
			if a.h <= b*b+gu {
				break
			}
			q--
			a = &st[q]
		}
		// The first x at which the parabola at u is below the top one: one more than
		// floor(((u²-s²) + g[u] - g[s]) / (2(u-s))). The top one is no higher at its
		// t >= 0, so that is at least t and the quotient is not negative.
		num := int64(u*u-a.s*a.s) + gu - a.g
		if x := 1 + int(uint64(num)/uint64(2*(u-a.s))); x < n {
			q++
			b := int64(x - u)
			st[q] = apex{s: u, t: x, g: gu, h: b*b + gu}
		}
	}
	// Each apex is the lowest from its t up to the next one's (the top one's up to the
	// last column, a pad, which is not output): its values there are (x-s)² + g, found
	// by adding the odd numbers 2(x-s)+1 from one column to the next.
	end := n - 1
	for ; q >= 0 && end > 1; q-- {
		a := &st[q]
		lo := max(a.t, 1)
		if lo >= end {
			continue
		}
		o := out[lo-1 : end-1]
		dx := int64(lo - a.s)
		v, step := dx*dx+a.g, 2*dx+1
		if small {
			for k := range o {
				o[k] = int32(v)
				v += step
				step += 2
			}
		} else {
			for k := range o {
				o[k] = int32(min(v, math.MaxInt32))
				v += step
				step += 2
			}
		}
		end = lo
	}
}
