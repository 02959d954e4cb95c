package quantize

import (
	"context"
	"encoding/binary"
	"image"
	"math"

	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// blendRadius is how far (in pixels) assignBlends looks for the flat colours an edge pixel
// may be a blend of: anti-aliasing spreads an edge over up to two pixels, and the pixels
// next to those are not flat either.
const blendRadius = 3

// notEdge marks, in assignBlends' window cells, an opaque edge pixel (not a flat colour
// a blend can be made of).
const notEdge = -3

// blendBuffers holds assignBlends' per-pixel buffers, so that its second call in one
// Quantize reuses the first one's.
type blendBuffers struct {
	cell []int16
	// span[i] is how many cells from i on to the right hold cell[i]'s value, at most
	// the window's width: the window scan steps over a run in one go.
	span []uint8
	// unexplained lists, per worker of the last call, the pixels it found unexplained.
	unexplained [][]int32
	// edgeSums are, per worker of the last call, the colour sums of the edge pixels
	// under the index the call left them (in edge; flat is not used).
	edgeSums []meanSums
}

// windowWidth is the width of assignBlends' window, and the longest span it records.
const windowWidth = 2*blendRadius + 1

// assignBlends finds the edge pixels that are blends of nearby flat colours. An
// anti-aliased pixel between red and white is pink; left to the nearest palette colour it
// could join a pink region elsewhere and draw a thin pink seam along the edge. Instead, it
// joins whichever of the two blended colours covers more of it. Blends are tested in
// premultiplied sRGB, where a renderer mixes them, so a pixel half covered by a shape
// over transparency is a blend of the shape and transparency. Pixels that are no blend of
// nearby flat colours (thin lines, texture) keep their nearest palette colour.
//
// A blend pixel takes the index of the colour that covers most of it in res.Index at once
// (no other pixel's test reads it). It returns how many edge pixels are unexplained (no
// blend; they keep their index), listed in buf.unexplained, and buf.edgeSums sums the
// edge pixels under the indices they are left with; the next call overwrites buf.
func assignBlends(ctx context.Context, img *image.NRGBA, res *Result, buf *blendBuffers) (int, error) {
	w, h := res.Width, res.Height
	pm := make([][4]float64, len(res.Palette))
	for k, c := range res.Palette {
		a := float64(c.A)
		pm[k] = [4]float64{float64(c.R) * a / 255, float64(c.G) * a / 255, float64(c.B) * a / 255, a}
	}
	if len(buf.cell) != len(res.Index) {
		buf.cell, buf.span = make([]int16, len(res.Index)), make([]uint8, len(res.Index))
	}
	cell, span := buf.cell, buf.span
	// cell holds what the window scan needs of each pixel in one load: its palette
	// index when it is flat, Transparent, or notEdge for an opaque edge pixel.
	grain := rowGrain(w)
	err := parallel.For(ctx, h, grain, func(_, y0, y1 int) {
		for y := y0; y < y1; y++ {
			index, flat := res.Index[y*w:(y+1)*w], res.Flat[y*w:(y+1)*w]
			c, s := cell[y*w:(y+1)*w], span[y*w:(y+1)*w]
			for x, k := range index {
				v := int16(notEdge)
				if k == Transparent {
					v = Transparent
				} else if flat[x] == 1 {
					v = k
				}
				c[x] = v
			}
			run, prev := uint8(0), int16(math.MinInt16)
			for x := w - 1; x >= 0; x-- {
				if c[x] != prev {
					run, prev = 0, c[x]
				}
				run = min(run+1, windowWidth)
				s[x] = run
			}
		}
	})
	if err != nil {
		return 0, err
	}
	workers := parallel.Workers(h, grain)
	cands := make([][]int16, workers)
	// seen[k] == stamp marks palette entry k as a candidate of the current pixel, so
	// that the candidates keep their scan order without a search of the list.
	seens := make([][]uint32, workers)
	counts := make([]int, workers)
	if len(buf.unexplained) != workers {
		buf.unexplained = make([][]int32, workers)
	}
	for k := range buf.unexplained {
		buf.unexplained[k] = buf.unexplained[k][:0]
	}
	buf.edgeSums = newMeanSums(workers, len(res.Palette))
	err = parallel.For(ctx, h, grain, func(worker, y0, y1 int) {
		cand := cands[worker]
		if seens[worker] == nil {
			seens[worker] = make([]uint32, len(res.Palette))
		}
		seen := seens[worker]
		sums := buf.edgeSums[worker]
		stamp := uint32(0)
		n := 0
		for y := y0; y < y1; y++ {
			rowPix := img.Pix[y*img.Stride:]
			for x := 0; x < w; x++ {
				i := y*w + x
				if cell[i] != notEdge {
					continue // flat or transparent
				}
				cand = cand[:0]
				stamp++
				if stamp == 0 {
					clear(seen)
					stamp = 1
				}
				hasT := false
				x0, x1 := max(0, x-blendRadius), min(w-1, x+blendRadius)
				for yy := max(0, y-blendRadius); yy <= min(h-1, y+blendRadius); yy++ {
					// A run of one value adds what its first cell adds.
					row, rs := cell[yy*w:(yy+1)*w], span[yy*w:(yy+1)*w]
					for xx := x0; xx <= x1; xx += int(rs[xx]) {
						switch k := row[xx]; {
						case k == Transparent:
							hasT = true
						case k >= 0 && seen[k] != stamp:
							seen[k] = stamp
							cand = append(cand, k)
						}
					}
				}
				px := rowPix[4*x : 4*x+4]
				c := premultiplied(px)
				// Partial alpha is a blend with transparency even where no transparent
				// pixel is near: the seam between two abutting anti-aliased shapes.
				hasT = hasT || c[3] < 250
				if k, ok := explainBlend(c, cand, hasT, pm); ok {
					res.Index[i] = k
				} else {
					n++
					buf.unexplained[worker] = append(buf.unexplained[worker], int32(i))
				}
				sums.add(res.Index[i], 0, binary.LittleEndian.Uint32(px))
			}
		}
		cands[worker] = cand
		counts[worker] += n
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	return n, nil
}

// premultiplied returns the 8-bit pixel p (R, G, B, A) premultiplied by its alpha, each
// channel rounded to 8 bits as premultiplyRow rounds it.
func premultiplied(p []uint8) [4]float64 {
	a := uint32(p[3])
	if a == 255 {
		return [4]float64{float64(p[0]), float64(p[1]), float64(p[2]), 255}
	}
	return [4]float64{
		float64((uint32(p[0])*a + 127) / 255),
		float64((uint32(p[1])*a + 127) / 255),
		float64((uint32(p[2])*a + 127) / 255),
		float64(a),
	}
}

// explainBlend tests whether the premultiplied colour c is a blend of one or two of the
// palette colours cand (premultiplied in pm), and of transparency when hasT, and returns
// the colour that covers most of it.
func explainBlend(c [4]float64, cand []int16, hasT bool, pm [][4]float64) (int16, bool) {
	bestK, bestR, bestTol := int16(-1), math.MaxFloat64, 0.0
	try := func(k int16, r, tol float64) {
		if r < bestR {
			bestK, bestR, bestTol = k, r, tol
		}
	}
	for ai, ka := range cand {
		pa := pm[ka]
		try(ka, dist4(c, pa), blendTolerance(0))
		if hasT {
			// c = t·A over transparency.
			t := math.Max(0, math.Min(1, dot4(c, pa)/dot4(pa, pa)))
			try(ka, residual(c, pa, t, pa, 0), blendTolerance(math.Sqrt(dot4(pa, pa))))
		}
		for _, kb := range cand[ai+1:] {
			pb := pm[kb]
			var d [4]float64
			for ch := range d {
				d[ch] = pa[ch] - pb[ch]
			}
			dd := dot4(d, d)
			if dd == 0 {
				continue
			}
			var cb [4]float64
			for ch := range cb {
				cb[ch] = c[ch] - pb[ch]
			}
			t := math.Max(0, math.Min(1, dot4(cb, d)/dd))
			k := ka
			if t < 0.5 {
				k = kb
			}
			try(k, residual(c, pa, t, pb, 1-t), blendTolerance(math.Sqrt(dd)))
			if hasT {
				// c = t·A + u·B over transparency (a seam between A and B): solve
				// the 2x2 normal equations.
				aa, ab, bb := dot4(pa, pa), dot4(pa, pb), dot4(pb, pb)
				ca, cbb := dot4(c, pa), dot4(c, pb)
				det := aa*bb - ab*ab
				if det > 1e-9 {
					t := (ca*bb - cbb*ab) / det
					u := (cbb*aa - ca*ab) / det
					if t >= 0 && u >= 0 && t+u <= 1 {
						k := ka
						if u > t {
							k = kb
						}
						try(k, residual(c, pa, t, pb, u), blendTolerance(math.Sqrt(dd)))
					}
				}
			}
		}
	}
	return bestK, bestK >= 0 && bestR <= bestTol
}

func dot4(a, b [4]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3] }

// residual returns |c - (t·a + u·b)|.
func residual(c, a [4]float64, t float64, b [4]float64, u float64) float64 {
	var s float64
	for ch := range c {
		e := c[ch] - t*a[ch] - u*b[ch]
		s += e * e
	}
	return math.Sqrt(s)
}

// blendTolerance is how far (0..255 units) a pixel may lie from a blend of two colours
// span apart and still count as that blend: rounding and mild compression noise.
func blendTolerance(span float64) float64 { return 12 + 0.08*span }

func dist4(a, b [4]float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}
