// Package distance computes the exact Euclidean distance transform of a binary image
// in whole numbers with Meijster, Roerdink and Hesselink's two-phase algorithm (2000):
// for every pixel, the squared distance to the nearest pixel outside the shape. Both
// phases run on integers (the second with the integer "separator" of two parabolas),
// so the result is exact, and in bands of columns and of rows across the machine's
// cores; every value depends on the image alone.
package distance

import (
	"context"
	"math"

	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// Transform returns, for each pixel of the w x h mask in, the squared Euclidean
// distance from its centre to the centre of the nearest pixel where in is false; the
// outside of the image counts as false, so a shape touching the border is measured to
// it. Pixels where in is false get 0.
func Transform(in []bool, w, h int) []int32 {
	d := make([]int32, w*h)
	transform(in, d, w, h, false)
	return d
}

// ToSet returns, for each pixel of the w x h image, the squared Euclidean distance from
// its centre to the centre of the nearest pixel where set is true (0 on the set); the
// outside of the image is not part of the set. Where set is empty every distance is
// at least (w+h)² (or the largest int32, where that is less), more than any distance
// inside the image.
func ToSet(set []bool, w, h int) []int32 {
	d := make([]int32, w*h)
	transform(set, d, w, h, true)
	return d
}

// transform writes into d the squared distance from each pixel to the nearest pixel
// where in is false (toSet false: the outside of the image counts as false) or to the
// nearest pixel where in is true (toSet true: the outside is not part of the set).
func transform(in []bool, d []int32, w, h int, toSet bool) {
	if w <= 0 || h <= 0 {
		return
	}
	columns(in, d, w, h, toSet)
	// Phase 2, per row: the lower envelope of the parabolas (x-i)² + g(i)². For the
	// shape's own transform it runs over each run of shape pixels alone, with the
	// background pixels (g = 0) or the outside of the image at either end: no parabola
	// beyond them can be lower. The distance to a set runs over the whole row.
	workers := parallel.Workers(h, 16)
	scratch := make([]rowScratch, workers)
	for k := range scratch {
		scratch[k] = rowScratch{g: make([]int64, w+2), s: make([]int, w+2), t: make([]int, w+2)}
	}
	_ = parallel.For(context.Background(), h, 16, func(worker, lo, hi int) {
		sc := &scratch[worker]
		for y := lo; y < hi; y++ {
			row := d[y*w : (y+1)*w]
			if toSet {
				for x, v := range row {
					sc.g[x] = int64(v) * int64(v)
				}
				envelope(sc, w, row, 0)
				continue
			}
			for x := 0; x < w; {
				if row[x] == 0 {
					x++
					continue
				}
				a := x
				for x < w && row[x] != 0 {
					x++
				}
				run := row[a:x]
				sc.g[0] = 0
				for k, v := range run {
					sc.g[k+1] = int64(v) * int64(v)
				}
				sc.g[len(run)+1] = 0
				envelope(sc, len(run)+2, run, 1)
			}
		}
	})
}

// columns is the first phase of transform: d gets, for each pixel, the distance to
// the nearest target pixel in its column (where in is false, or with toSet where in is
// true), at most w+h.
func columns(in []bool, d []int32, w, h int, toSet bool) {
	// "Infinite" one-dimensional distance: larger than any distance in the image, and
	// small enough that its square plus a square of the image fits an int64.
	inf := int32(min(w+h, math.MaxInt32-1))
	// Phase 1, per column: the distance to the nearest target pixel in the same column,
	// in a sweep down and a sweep up. Columns are independent; a band of them is swept
	// row by row so that memory is read in order.
	_ = parallel.For(context.Background(), w, 64, func(_, lo, hi int) {
		for y := 0; y < h; y++ {
			row, inRow := d[y*w+lo:y*w+hi], in[y*w+lo:y*w+hi]
			switch {
			case y == 0 && toSet:
				for k, on := range inRow {
					row[k] = inf
					if on {
						row[k] = 0
					}
				}
			case y == 0:
				for k, on := range inRow {
					row[k] = 0
					if on {
						row[k] = 1 // the outside above
					}
				}
			case toSet:
				above := d[(y-1)*w+lo : (y-1)*w+hi]
				for k, on := range inRow {
					row[k] = min(above[k]+1, inf)
					if on {
						row[k] = 0
					}
				}
			default:
				above := d[(y-1)*w+lo : (y-1)*w+hi]
				for k, on := range inRow {
					row[k] = 0
					if on {
						row[k] = above[k] + 1
					}
				}
			}
		}
		// Up; for the shape's own transform the outside below is one more target row
		// (where the shape is not, the distance is 0 already).
		last := d[(h-1)*w+lo : (h-1)*w+hi]
		if !toSet {
			for k := range last {
				last[k] = min(last[k], 1)
			}
		}
		for y := h - 2; y >= 0; y-- {
			row, below := d[y*w+lo:y*w+hi], d[(y+1)*w+lo:(y+1)*w+hi]
			for k := range row {
				row[k] = min(row[k], below[k]+1)
			}
		}
	})
}

// Within returns the pixels of the w x h mask in whose squared distance to the nearest
// pixel of set is at most r2, for a set whose every pixel is at least sqrt(r2) from
// every pixel of the image where in is false (Transform(in) >= r2 there), as the
// centres of the discs of an opening are. Then from a set pixel c to a pixel p within reach, the row of p is in
// the shape all the way from p to c's column (those pixels are nearer to c than p is,
// so nearer than any pixel outside in), and the lower envelope of the second phase
// runs over the runs of in alone, not over whole rows.
func Within(set, in []bool, w, h int, r2 float64) []bool {
	out := make([]bool, w*h)
	if w <= 0 || h <= 0 {
		return out
	}
	d := make([]int32, w*h)
	columns(set, d, w, h, true)
	workers := parallel.Workers(h, 16)
	scratch := make([]rowScratch, workers)
	for k := range scratch {
		scratch[k] = rowScratch{g: make([]int64, w), s: make([]int, w), t: make([]int, w), out: make([]int32, w)}
	}
	_ = parallel.For(context.Background(), h, 16, func(worker, lo, hi int) {
		sc := &scratch[worker]
		for y := lo; y < hi; y++ {
			row, inRow := d[y*w:(y+1)*w], in[y*w:(y+1)*w]
			for x := 0; x < w; {
				if !inRow[x] {
					x++
					continue
				}
				a := x
				for x < w && inRow[x] {
					x++
				}
				for k, v := range row[a:x] {
					sc.g[k] = int64(v) * int64(v)
				}
				run := sc.out[:x-a]
				envelope(sc, x-a, run, 0)
				for k, v := range run {
					out[y*w+a+k] = float64(v) <= r2
				}
			}
		}
	})
	return out
}

// rowScratch is one worker's buffers for the second phase.
type rowScratch struct {
	g    []int64 // squared column distances of the row or run (padded)
	s, t []int   // the envelope's parabola apexes and the start of each one's reign
	out  []int32 // a run's distances (Within)
}

// envelope computes out[x-pad] = min_i (x-i)² + g[i] for x in [pad, n-pad), where
// sc.g holds the n squared column distances, by Meijster's lower-envelope scan: the
// apexes of the parabolas still on the envelope (s) and the first x each one is the
// lowest at (t), with sep the integer floor of their intersection.
func envelope(sc *rowScratch, n int, out []int32, pad int) {
	g, s, t := sc.g, sc.s, sc.t
	f := func(x, i int) int64 { return int64((x-i)*(x-i)) + g[i] }
	// sep is the first x at which the parabola at v is no higher than the one at u < v,
	// less one: floor(((v²-u²) + g[v] - g[u]) / (2(v-u))).
	sep := func(u, v int) int64 {
		num := int64(v*v-u*u) + g[v] - g[u]
		den := int64(2 * (v - u))
		q := num / den
		if num%den != 0 && num < 0 {
			q--
		}
		return q
	}
	q := 0
	s[0], t[0] = 0, 0
	for u := 1; u < n; u++ {
		for q >= 0 && f(t[q], s[q]) > f(t[q], u) {
			q--
		}
		if q < 0 {
			q = 0
			s[0] = u
			continue
		}
		x := 1 + sep(s[q], u)
		if x < int64(n) {
			q++
			s[q] = u
			t[q] = int(x)
		}
	}
	for x := n - 1; x >= 0; x-- {
		if x >= pad && x < n-pad {
			out[x-pad] = int32(min(f(x, s[q]), math.MaxInt32))
		}
		if x == t[q] {
			q--
		}
	}
}
