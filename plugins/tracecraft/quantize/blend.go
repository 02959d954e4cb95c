package quantize

import (
	"context"
	"math"

	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// blendRadius is how far (in pixels) assignBlends looks for the flat colours an edge pixel
// may be a blend of: anti-aliasing spreads an edge over up to two pixels, and the pixels
// next to those are not flat either.
const blendRadius = 3

// unexplained marks, in assignBlends' result, an edge pixel that is no blend of nearby
// flat colours; notEdge marks a pixel assignBlends did not look at.
const (
	unexplained = -2
	notEdge     = -3
)

// assignBlends finds the edge pixels that are blends of nearby flat colours. An
// anti-aliased pixel between red and white is pink; left to the nearest palette colour it
// could join a pink region elsewhere and draw a thin pink seam along the edge. Instead, it
// joins whichever of the two blended colours covers more of it. Blends are tested in
// premultiplied sRGB, where a renderer mixes them, so a pixel half covered by a shape
// over transparency is a blend of the shape and transparency. Pixels that are no blend of
// nearby flat colours (thin lines, texture) keep their nearest palette colour.
//
// It returns, per pixel, the palette index a blend pixel should take, unexplained, or
// notEdge for flat and transparent pixels; res is not changed.
func assignBlends(ctx context.Context, pmImg []uint8, res *Result) ([]int16, error) {
	w, h := res.Width, res.Height
	pm := make([][4]float64, len(res.Palette))
	for k, c := range res.Palette {
		a := float64(c.A)
		pm[k] = [4]float64{float64(c.R) * a / 255, float64(c.G) * a / 255, float64(c.B) * a / 255, a}
	}
	out := make([]int16, len(res.Index))
	// cell holds what the window scan needs of each pixel in one load: its palette
	// index when it is flat, Transparent, or notEdge for an opaque edge pixel.
	cell := make([]int16, len(res.Index))
	grain := rowGrain(w)
	err := parallel.For(ctx, h, grain, func(_, y0, y1 int) {
		for i := y0 * w; i < y1*w; i++ {
			out[i] = notEdge
			switch k := res.Index[i]; {
			case k == Transparent:
				cell[i] = Transparent
			case res.Flat[i] == 1:
				cell[i] = k
			default:
				cell[i] = notEdge
			}
		}
	})
	if err != nil {
		return nil, err
	}
	workers := parallel.Workers(h, grain)
	cands := make([][]int16, workers)
	// seen[k] == stamp marks palette entry k as a candidate of the current pixel, so
	// that the candidates keep their scan order without a search of the list.
	seens := make([][]uint32, workers)
	err = parallel.For(ctx, h, grain, func(worker, y0, y1 int) {
		cand := cands[worker]
		if seens[worker] == nil {
			seens[worker] = make([]uint32, len(res.Palette))
		}
		seen := seens[worker]
		stamp := uint32(0)
		for y := y0; y < y1; y++ {
			for x := 0; x < w; x++ {
				i := y*w + x
				if c := cell[i]; c != notEdge {
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
					for _, k := range cell[yy*w+x0 : yy*w+x1+1] {
						switch {
						case k == Transparent:
							hasT = true
						case k >= 0 && seen[k] != stamp:
							seen[k] = stamp
							cand = append(cand, k)
						}
					}
				}
				out[i] = unexplained
				px := pmImg[4*i : 4*i+4]
				a := float64(px[3])
				// Partial alpha is a blend with transparency even where no transparent
				// pixel is near: the seam between two abutting anti-aliased shapes.
				hasT = hasT || a < 250
				c := [4]float64{float64(px[0]), float64(px[1]), float64(px[2]), a}
				if k, ok := explainBlend(c, cand, hasT, pm); ok {
					out[i] = k
				}
			}
		}
		cands[worker] = cand
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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
