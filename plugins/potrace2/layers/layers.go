// Package layers turns a tracecraft segmentation into a stack of colour layers that
// Potrace can trace one by one: the palette colours in drawing order, bottom to top,
// and for each a black-and-white bitmap of where it is drawn.
//
// Stacking. Layer k's bitmap holds its own pixels and those of every opaque layer drawn
// above it, so each layer is drawn solid under the layers that cover it and no
// background can show between two colours: every boundary between two layers is the
// outline of the upper one only, and the lower one reaches under it. Opaque layers come
// first, largest (in pixels) at the bottom; translucent layers (alpha below 250) come
// last and hold only their own pixels, so that nothing shows through them that was not
// there.
//
// Sub-pixel edges. Each pixel that borders another layer is read as an anti-aliased
// blend t·A + (1-t)·B of its own layer's colour A and the neighbouring layer's colour B
// that explains it best (premultiplied RGBA, least squares), so t is how much of the
// pixel its layer covers. A layer's coverage field (1 inside, 0 outside, t or 1-t along
// edges) is upscaled bilinearly and thresholded at one half, the way Potrace's mkbitmap
// prepares anti-aliased input: the bitmap's boundaries then follow the drawing's edges
// to a fraction of a pixel rather than the pixel staircase.
package layers

import (
	"context"
	"image"
	"image/color"
	"sort"

	"github.com/tracecraft/tracecraft/plugins/potrace/trace"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/regions"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// OpaqueAlpha is the palette alpha from which a layer is drawn opaque: the last few
// levels are rounding, not intended translucency.
const OpaqueAlpha = 250

// Layer is one palette colour of the stack.
type Layer struct {
	// Color is the paint; opaque layers have alpha 255.
	Color color.NRGBA
	// Pixels is how many pixels the colour covers in the segmentation.
	Pixels int
	// Palette is the palette index the layer draws.
	Palette int
}

// Opaque reports whether the layer covers what lies below it.
func (l Layer) Opaque() bool { return l.Color.A == 255 }

// Stack is the layers of a segmented image and the data to make their bitmaps.
type Stack struct {
	// Width and Height are the image size in pixels.
	Width, Height int
	// Layers holds the layers bottom to top.
	Layers []Layer

	layer []int16   // layer of each pixel, -1 transparent
	other []int16   // the neighbouring layer a pixel blends with, -1 transparent, -2 none
	cover []float32 // the share of the pixel its own layer covers, when other != -2
}

// minContrast is the distance between two premultiplied colours (0..255 units) below
// which a pixel is not read as their blend: too alike to tell how much of each it holds.
const minContrast = 24

// Build makes the stack of rm, the regions of img. img's bounds must start at (0, 0)
// and match rm's size.
func Build(ctx context.Context, img *image.NRGBA, rm *regions.Map) (*Stack, error) {
	w, h := rm.Width, rm.Height
	st := &Stack{Width: w, Height: h}
	// Layers by palette index.
	byPalette := map[int]int{}
	for _, r := range rm.Regions {
		if r.Transparent() {
			continue
		}
		k, ok := byPalette[r.Palette]
		if !ok {
			k = len(st.Layers)
			byPalette[r.Palette] = k
			c := r.Color
			if c.A >= OpaqueAlpha {
				c.A = 255
			}
			st.Layers = append(st.Layers, Layer{Color: c, Palette: r.Palette})
		}
		st.Layers[k].Pixels += r.Pixels
	}
	// Drawing order: opaque before translucent, then larger first, then palette index.
	order := make([]int, len(st.Layers))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := st.Layers[order[i]], st.Layers[order[j]]
		if a.Opaque() != b.Opaque() {
			return a.Opaque()
		}
		if a.Pixels != b.Pixels {
			return a.Pixels > b.Pixels
		}
		return a.Palette < b.Palette
	})
	rank := make([]int16, len(st.Layers))
	sorted := make([]Layer, len(st.Layers))
	for pos, k := range order {
		rank[k] = int16(pos)
		sorted[pos] = st.Layers[k]
	}
	st.Layers = sorted
	regionLayer := make([]int16, len(rm.Regions))
	for i, r := range rm.Regions {
		regionLayer[i] = -1
		if !r.Transparent() && r.Color.A > 0 {
			regionLayer[i] = rank[byPalette[r.Palette]]
		}
	}
	st.layer = make([]int16, w*h)
	for i, l := range rm.Labels {
		st.layer[i] = regionLayer[l]
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := st.blends(ctx, img); err != nil {
		return nil, err
	}
	return st, nil
}

// premul returns the layer's colour premultiplied, or transparency for -1.
func (st *Stack) premul(k int16) [4]float32 {
	if k < 0 {
		return [4]float32{}
	}
	c := st.Layers[k].Color
	a := float32(c.A)
	return [4]float32{float32(c.R) * a / 255, float32(c.G) * a / 255, float32(c.B) * a / 255, a}
}

// blends finds, for every pixel next to another layer, the neighbouring layer it blends
// with and its own layer's share of it.
func (st *Stack) blends(ctx context.Context, img *image.NRGBA) error {
	w, h := st.Width, st.Height
	st.other = make([]int16, w*h)
	st.cover = make([]float32, w*h)
	paints := make([][4]float32, len(st.Layers)+1) // index k+1, so -1 is 0
	for k := -1; k < len(st.Layers); k++ {
		paints[k+1] = st.premul(int16(k))
	}
	// Each pixel reads the layers and writes only its own entries: rows run in
	// parallel with the same result.
	return parallel.For(ctx, h, max(1, 16384/max(1, w)), func(_, y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := img.Pix[y*img.Stride:]
			for x := 0; x < w; x++ {
				i := y*w + x
				st.other[i] = -2
				own := st.layer[i]
				if x > 0 && x+1 < w && y > 0 && y+1 < h {
					// Inside a layer (most pixels) no neighbour is in another one.
					l, up, dn := st.layer, i-w, i+w
					if l[up-1] == own && l[up] == own && l[up+1] == own && l[i-1] == own &&
						l[i+1] == own && l[dn-1] == own && l[dn] == own && l[dn+1] == own {
						continue
					}
				}
				// The pixel's colour is read only when a neighbour lies in another
				// layer (most pixels have none).
				read := false
				var c, A [4]float32
				var best float32
				for _, d := range neighbours {
					nx, ny := x+d[0], y+d[1]
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					o := st.layer[ny*w+nx]
					if o == own || o == st.other[i] {
						continue
					}
					if !read {
						read = true
						px := row[4*x : 4*x+4]
						a := float32(px[3])
						c = [4]float32{float32(px[0]) * a / 255, float32(px[1]) * a / 255, float32(px[2]) * a / 255, a}
						A = paints[own+1]
						best = sq(c, A)
					}
					t, res, ok := blend(c, A, paints[o+1])
					if ok && res < best {
						best, st.other[i], st.cover[i] = res, o, t
					}
				}
			}
		}
	})
}

// neighbours are the eight neighbouring pixels, 4-neighbours first.
var neighbours = [8][2]int{{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {-1, -1}, {1, -1}}

// blend reads c as t·a + (1-t)·b with t in [0, 1] and returns t and the squared residual;
// ok is false when a and b are too alike.
func blend(c, a, b [4]float32) (t, res float32, ok bool) {
	var ab, cb float32
	for i := range 4 {
		d := a[i] - b[i]
		ab += d * d
		cb += (c[i] - b[i]) * d
	}
	if ab < minContrast*minContrast {
		return 0, 0, false
	}
	t = min(max(cb/ab, 0), 1)
	var m [4]float32
	for i := range 4 {
		m[i] = b[i] + t*(a[i]-b[i])
	}
	return t, sq(c, m), true
}

func sq(a, b [4]float32) float32 {
	var s float32
	for i := range 4 {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// covers reports whether layer k's bitmap includes the pixels of layer o: o is k, or o
// is opaque and drawn above an opaque k.
func (st *Stack) covers(k, o int16) bool {
	if o < 0 {
		return false
	}
	if o == k {
		return true
	}
	return o > k && st.Layers[k].Opaque() && st.Layers[o].Opaque()
}

// Coverage returns layer k's coverage field: for each pixel, how much of it the layer's
// bitmap covers (0..1).
func (st *Stack) Coverage(k int) []float32 {
	v, _ := st.coverage(k, nil)
	return v
}

// span is the columns lo..hi-1 of a row outside which its coverage is zero.
type span struct{ lo, hi int }

// coverage returns Coverage(k), written into buf when it is large enough, and for every
// row the span of its nonzero coverage.
func (st *Stack) coverage(k int, buf []float32) ([]float32, []span) {
	w := st.Width
	if cap(buf) < w*st.Height {
		buf = make([]float32, w*st.Height)
	}
	v := buf[:w*st.Height]
	spans := make([]span, st.Height)
	// covers[o+2] is covers(k, o) for every layer o, -1 (transparent) and -2 (none).
	covers := make([]bool, len(st.Layers)+2)
	for o := range covers {
		covers[o] = st.covers(int16(k), int16(o-2))
	}
	for y := range spans {
		sp := &spans[y]
		row := v[y*w : (y+1)*w]
		layer, other, cover := st.layer[y*w:(y+1)*w], st.other[y*w:(y+1)*w], st.cover[y*w:(y+1)*w]
		for x := range row {
			in := covers[layer[x]+2]
			var f float32
			if o := other[x]; o == -2 {
				if in {
					f = 1
				}
			} else {
				t := cover[x]
				if in {
					f = t
				}
				if covers[o+2] {
					f += 1 - t
				}
			}
			row[x] = f
			if f != 0 {
				if sp.hi == 0 {
					sp.lo = x
				}
				sp.hi = x + 1
			}
		}
	}
	return v, spans
}

// Bitmap returns layer k's bitmap, scale times the image's size: the coverage field
// sampled bilinearly at the centre of every bitmap pixel, black where it exceeds one
// half. Scale 1 traces the pixels whose coverage exceeds one half.
func (st *Stack) Bitmap(ctx context.Context, k, scale int) (*trace.Bitmap, error) {
	bm, _, err := st.BitmapBuf(ctx, k, scale, nil)
	return bm, err
}

// BitmapBuf is Bitmap with the coverage field's scratch space: buf is used when large
// enough and returned, so that a caller making many bitmaps allocates it once.
func (st *Stack) BitmapBuf(ctx context.Context, k, scale int, buf []float32) (*trace.Bitmap, []float32, error) {
	scale = max(scale, 1)
	w, h := st.Width, st.Height
	v, spans := st.coverage(k, buf)
	W, H := w*scale, h*scale
	bm := trace.NewBitmap(W, H)
	// Source columns and weights of each bitmap column.
	x0 := make([]int, W)
	x1 := make([]int, W)
	fx := make([]float32, W)
	for X := range W {
		x0[X], x1[X], fx[X] = sampleAt(X, scale, w)
	}
	for Y := range H {
		if Y%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, v, err
			}
		}
		y0, y1, fy := sampleAt(Y, scale, h)
		// Bitmap columns whose four samples all lie outside both rows' spans sample
		// zero coverage and stay white.
		lo, hi := spans[y0], spans[y1]
		if lo.hi == 0 {
			lo = hi
		} else if hi.hi != 0 {
			lo = span{min(lo.lo, hi.lo), max(lo.hi, hi.hi)}
		}
		if lo.hi == 0 {
			continue
		}
		xStart, xEnd := max(0, (lo.lo-1)*scale), min(W, (lo.hi+1)*scale)
		r0, r1 := v[y0*w:(y0+1)*w], v[y1*w:(y1+1)*w]
		words := bm.Row(Y)
		for xa := xStart; xa < xEnd; {
			// The columns xa..xb-1 of one word: where every source sample they read
			// holds the same value, they all get that value's bit at once.
			xb := min(xEnd, (xa|63)+1)
			if c := r0[x0[xa]]; uniform(r0[x0[xa]:x1[xb-1]+1], c) && uniform(r1[x0[xa]:x1[xb-1]+1], c) {
				if c > 0.5 {
					words[xa>>6] |= (^uint64(0) >> (64 - uint(xb-xa))) << (uint(xa) & 63)
				}
				xa = xb
				continue
			}
			for X := xa; X < xb; X++ {
				a, b := r0[x0[X]], r0[x1[X]]
				c, d := r1[x0[X]], r1[x1[X]]
				if a == b && b == c && c == d {
					if a > 0.5 {
						words[X>>6] |= 1 << (uint(X) & 63)
					}
					continue
				}
				top := a + (b-a)*fx[X]
				bot := c + (d-c)*fx[X]
				if top+(bot-top)*fy > 0.5 {
					words[X>>6] |= 1 << (uint(X) & 63)
				}
			}
			xa = xb
		}
	}
	return bm, v, nil
}

// uniform reports whether every value of v is c.
func uniform(v []float32, c float32) bool {
	for _, x := range v {
		if x != c {
			return false
		}
	}
	return true
}

// sampleAt returns the two source pixels and the weight of the second for bitmap pixel
// i of a scale-times upscaling of n pixels: its centre lies at (i+0.5)/scale in image
// coordinates, between the centres of pixels i0 and i1.
func sampleAt(i, scale, n int) (int, int, float32) {
	x := (float32(i)+0.5)/float32(scale) - 0.5
	i0 := int(x)
	if x < 0 {
		i0 = -1
	}
	f := x - float32(i0)
	i1 := i0 + 1
	if i0 < 0 {
		i0, f = 0, 0
	}
	if i1 >= n {
		i1, f = n-1, 0
		i0 = min(i0, n-1)
	}
	return i0, i1, f
}
