// Package distance computes the exact Euclidean distance transform of a binary image
// with Felzenszwalb and Huttenlocher's lower envelope of parabolas (2012): for every
// pixel, the squared distance to the nearest pixel outside the shape.
package distance

import (
	"math"
	"slices"
)

// Transform returns, for each pixel of the w x h mask in, the squared Euclidean
// distance from its centre to the centre of the nearest pixel where in is false; the
// outside of the image counts as false, so a shape touching the border is measured to
// it. Pixels where in is false get 0.
func Transform(in []bool, w, h int) []float64 { return transform(in, w, h, 0) }

// ToSet returns, for each pixel of the w x h image, the squared Euclidean distance from
// its centre to the centre of the nearest pixel where set is true (0 on the set); the
// outside of the image is not part of the set. Where set is empty every distance is
// at least 1e12.
func ToSet(set []bool, w, h int) []float64 {
	notSet := make([]bool, len(set))
	for i, v := range set {
		notSet[i] = !v
	}
	return transform(notSet, w, h, far)
}

// far stands for an infinite distance in one dimension; its square stays exact.
const far = 1e6

// transform is Transform with the outside of the image at one-dimensional distance
// border (0: the outside is outside the shape; far: it is not there).
func transform(in []bool, w, h int, border float64) []float64 {
	d := make([]float64, w*h)
	// Columns first: the distance to the nearest outside pixel in the same column, in
	// two linear sweeps over the rows (the outside of the image counts as outside).
	col := make([]float64, w)
	for x := range col {
		col[x] = border
	}
	for y := 0; y < h; y++ {
		row := in[y*w : (y+1)*w]
		for x, on := range row {
			if on {
				col[x]++
			} else {
				col[x] = 0
			}
			d[y*w+x] = col[x]
		}
	}
	for x := range col {
		col[x] = border
	}
	for y := h - 1; y >= 0; y-- {
		row := in[y*w : (y+1)*w]
		for x, on := range row {
			if on {
				col[x]++
			} else {
				col[x] = 0
			}
			v := min(d[y*w+x], col[x])
			d[y*w+x] = v * v
		}
	}
	n := w + 2
	f := make([]float64, n)
	out := make([]float64, n)
	v := make([]int, n)
	z := make([]float64, n+1)
	for y := 0; y < h; y++ {
		if !slices.Contains(in[y*w:(y+1)*w], true) {
			continue
		}
		f[0], f[w+1] = border*border, border*border
		copy(f[1:w+1], d[y*w:(y+1)*w])
		envelope(f[:w+2], out[:w+2], v, z)
		copy(d[y*w:(y+1)*w], out[1:w+1])
	}
	return d
}

// envelope computes the one-dimensional transform out[q] = min_p (q-p)² + f[p].
func envelope(f, out []float64, v []int, z []float64) {
	n := len(f)
	k := 0
	v[0] = 0
	z[0], z[1] = math.Inf(-1), math.Inf(1)
	for q := 1; q < n; q++ {
		var s float64
		for {
			p := v[k]
			s = ((f[q] + float64(q*q)) - (f[p] + float64(p*p))) / float64(2*(q-p))
			if s <= z[k] && k > 0 {
				k--
				continue
			}
			break
		}
		if s <= z[k] {
			// k == 0 and the new parabola wins everywhere.
			v[0] = q
			z[0], z[1] = math.Inf(-1), math.Inf(1)
			continue
		}
		k++
		v[k] = q
		z[k] = s
		z[k+1] = math.Inf(1)
	}
	k = 0
	for q := 0; q < n; q++ {
		for z[k+1] < float64(q) {
			k++
		}
		p := v[k]
		out[q] = float64((q-p)*(q-p)) + f[p]
	}
}
