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
	"slices"
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
	runs  []run     // each row's runs, left to right, row after row
	rowAt []int32   // the runs of row y are runs[rowAt[y]:rowAt[y+1]]
}

// run is a stretch of one row from column x to the next run's x (or the row's end) that
// every layer's coverage field holds constant: pixels of one layer that blend with none
// (other -2), or a single pixel that blends with layer other.
type run struct {
	x            int32
	layer, other int16
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
	err := parallel.For(ctx, h, rowGrain(w), func(_, y0, y1 int) {
		for i := y0 * w; i < y1*w; i++ {
			st.layer[i] = regionLayer[rm.Labels[i]]
		}
	})
	if err != nil {
		return nil, err
	}
	if err := st.blends(ctx, img); err != nil {
		return nil, err
	}
	if err := st.findRuns(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

// rowGrain is the fewest rows of width w worth a goroutine of their own.
func rowGrain(w int) int { return max(1, 16384/max(1, w)) }

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
	return parallel.For(ctx, h, rowGrain(w), func(_, y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := img.Pix[y*img.Stride:]
			l := st.layer[y*w : (y+1)*w]
			other := st.other[y*w : (y+1)*w]
			for x := range other {
				other[x] = -2
			}
			var up, dn []int16
			if y > 0 && y+1 < h && w >= 3 {
				up, dn = st.layer[(y-1)*w:y*w], st.layer[(y+1)*w:(y+2)*w]
			}
			// edge(x) is true where pixel x differs from the pixel right of it or from
			// the ones above and below it. A pixel with edge false at x-1, x and x+1 has
			// all eight neighbours in its own layer (most pixels): nothing to blend with.
			edge := func(x int) bool { return l[x] != l[x+1] || up[x] != l[x] || dn[x] != l[x] }
			var prev, cur bool
			if up != nil {
				prev, cur = edge(0), edge(1)
			}
			for x := range w {
				if up != nil && x > 0 && x+1 < w {
					var next bool
					if x+2 < w {
						next = edge(x + 1)
					} else { // the last column: nothing right of it
						next = up[x+1] != l[x+1] || dn[x+1] != l[x+1]
					}
					inside := !prev && !cur && !next
					prev, cur = cur, next
					if inside {
						continue
					}
				}
				st.blendPixel(x, y, row[4*x:4*x+4], paints)
			}
		}
	})
}

// blendPixel finds the neighbouring layer pixel (x, y) of colour px blends with, if any,
// and its own layer's share of it.
func (st *Stack) blendPixel(x, y int, px []uint8, paints [][4]float32) {
	w, h := st.Width, st.Height
	i := y*w + x
	layer := st.layer
	own := layer[i]
	// The neighbours' layers other than its own, in the order of neighbours, each once:
	// a layer met again gives the same blend as the first time, taken or beaten then.
	var others [8]int16
	n := 0
	add := func(o int16) {
		if o != own && !slices.Contains(others[:n], o) {
			others[n] = o
			n++
		}
	}
	if x > 0 && y > 0 && x+1 < w && y+1 < h {
		for _, d := range [8]int{1, w, -1, -w, w + 1, w - 1, -w - 1, 1 - w} { // neighbours' offsets
			add(layer[i+d])
		}
	} else {
		for _, d := range neighbours {
			if nx, ny := x+d[0], y+d[1]; nx >= 0 && ny >= 0 && nx < w && ny < h {
				add(layer[ny*w+nx])
			}
		}
	}
	if n == 0 {
		return
	}
	a := float32(px[3])
	c := [4]float32{float32(px[0]) * a / 255, float32(px[1]) * a / 255, float32(px[2]) * a / 255, a}
	A := paints[own+1]
	best := sq(c, A)
	for _, o := range others[:n] {
		t, res, ok := blend(c, A, paints[o+1])
		if ok && res < best {
			best, st.other[i], st.cover[i] = res, o, t
		}
	}
}

// findRuns cuts every row into runs: bands of rows in parallel, joined in row order.
func (st *Stack) findRuns(ctx context.Context) error {
	w, h := st.Width, st.Height
	bands := make([][]run, h) // the runs of the band of rows starting at each row
	count := make([]int32, h) // the runs of each row
	err := parallel.For(ctx, h, rowGrain(w), func(_, y0, y1 int) {
		var runs []run
		for y := y0; y < y1; y++ {
			n := len(runs)
			layer, other := st.layer[y*w:(y+1)*w], st.other[y*w:(y+1)*w]
			for x := range layer {
				if x > 0 && other[x] == -2 && other[x-1] == -2 && layer[x] == layer[x-1] {
					continue
				}
				runs = append(runs, run{x: int32(x), layer: layer[x], other: other[x]})
			}
			count[y] = int32(len(runs) - n)
		}
		bands[y0] = runs
	})
	if err != nil {
		return err
	}
	st.rowAt = make([]int32, h+1)
	for y, n := range count {
		st.rowAt[y+1] = st.rowAt[y] + n
	}
	st.runs = make([]run, 0, st.rowAt[h])
	for _, b := range bands {
		st.runs = append(st.runs, b...)
	}
	return nil
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

// coverTable returns covers(k, o) for every layer o, -1 (transparent) and -2 (none), at
// index o+2.
func (st *Stack) coverTable(k int) []bool {
	covers := make([]bool, len(st.Layers)+2)
	for o := range covers {
		covers[o] = st.covers(int16(k), int16(o-2))
	}
	return covers
}

// coverageOf returns how much of pixel i, of layer own blending with layer other (-2:
// none), layer k's bitmap covers, with covers from coverTable(k).
func (st *Stack) coverageOf(i int, own, other int16, covers []bool) float32 {
	in := covers[own+2]
	var f float32
	if other == -2 {
		if in {
			f = 1
		}
		return f
	}
	t := st.cover[i]
	if in {
		f = t
	}
	if covers[other+2] {
		f += 1 - t
	}
	return f
}

// Coverage returns layer k's coverage field: for each pixel, how much of it the layer's
// bitmap covers (0..1).
func (st *Stack) Coverage(k int) []float32 {
	covers := st.coverTable(k)
	v := make([]float32, st.Width*st.Height)
	for i := range v {
		v[i] = st.coverageOf(i, st.layer[i], st.other[i], covers)
	}
	return v
}

// Scratch is working space for Bitmap, reused from layer to layer by one goroutine.
type Scratch struct {
	pieces       []piece
	rowAt        []int32
	xa, xb       []int32
	x0, x1       []int
	fx           []float32
	width, scale int
	rows         [][]uint64 // the bitmap rows being filled
	fys          []float32  // their weights of the second source row
}

// piece is a stretch of one row of a layer's coverage field, from column x to the next
// piece's x (or the row's end), where the coverage is f.
type piece struct {
	x int32
	f float32
}

// Bitmap returns layer k's bitmap, scale times the image's size: the coverage field
// sampled bilinearly at the centre of every bitmap pixel, black where it exceeds one
// half. Scale 1 traces the pixels whose coverage exceeds one half. sc is working space
// (nil for a new one).
//
// The field is made of runs of constant coverage, so each bitmap row is filled a
// stretch at a time: a bitmap pixel whose four samples lie in one run of each of its
// two rows takes that runs' value, and only the pixels that sample across a change of
// value are interpolated one by one.
func (st *Stack) Bitmap(ctx context.Context, k, scale int, sc *Scratch) (*trace.Bitmap, error) {
	if sc == nil {
		sc = &Scratch{}
	}
	scale = max(scale, 1)
	w, h := st.Width, st.Height
	st.pieces(k, sc)
	sc.columns(w, scale)
	W, H := w*scale, h*scale
	bm := trace.NewBitmap(W, H)
	for Y := 0; Y < H; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The bitmap rows that sample the same two source rows (scale of them, fewer
		// at the edges) are filled together, the rows' pieces walked once.
		y0, y1, fy := sampleAt(Y, scale, h)
		sc.rows, sc.fys = append(sc.rows[:0], bm.Row(Y)), append(sc.fys[:0], fy)
		for Y++; Y < H; Y++ {
			a, b, fy := sampleAt(Y, scale, h)
			if a != y0 || b != y1 {
				break
			}
			sc.rows, sc.fys = append(sc.rows, bm.Row(Y)), append(sc.fys, fy)
		}
		sc.fillRows(sc.pieces[sc.rowAt[y0]:sc.rowAt[y0+1]], sc.pieces[sc.rowAt[y1]:sc.rowAt[y1+1]], w)
	}
	return bm, nil
}

// pieces cuts every row of layer k's coverage field into pieces of constant value, the
// runs of equal coverage joined, into sc.
func (st *Stack) pieces(k int, sc *Scratch) {
	covers := st.coverTable(k)
	w := st.Width
	sc.pieces = sc.pieces[:0]
	if cap(sc.rowAt) < st.Height+1 {
		sc.rowAt = make([]int32, st.Height+1)
	}
	sc.rowAt = sc.rowAt[:st.Height+1]
	for y := range st.Height {
		first := len(sc.pieces)
		sc.rowAt[y] = int32(first)
		for _, r := range st.runs[st.rowAt[y]:st.rowAt[y+1]] {
			f := st.coverageOf(y*w+int(r.x), r.layer, r.other, covers)
			if len(sc.pieces) > first && sc.pieces[len(sc.pieces)-1].f == f {
				continue
			}
			sc.pieces = append(sc.pieces, piece{x: r.x, f: f})
		}
	}
	sc.rowAt[st.Height] = int32(len(sc.pieces))
}

// columns makes the source columns and weights of the bitmap columns of a scale-times
// upscaling of w pixels, and for each source column p the first bitmap column xa[p]
// whose left sample is at p or beyond and the first xb[p] whose right sample is.
func (sc *Scratch) columns(w, scale int) {
	if sc.width == w && sc.scale == scale {
		return
	}
	sc.width, sc.scale = w, scale
	W := w * scale
	sc.x0, sc.x1, sc.fx = make([]int, W), make([]int, W), make([]float32, W)
	for X := range W {
		sc.x0[X], sc.x1[X], sc.fx[X] = sampleAt(X, scale, w)
	}
	sc.xa, sc.xb = firstAtLeast(sc.x0, w), firstAtLeast(sc.x1, w)
}

// firstAtLeast returns, for every p in 0..n, the first index X with xs[X] >= p
// (len(xs) if none); xs does not decrease.
func firstAtLeast(xs []int, n int) []int32 {
	out := make([]int32, n+1)
	p := 0
	for X, x := range xs {
		for ; p <= x && p <= n; p++ {
			out[p] = int32(X)
		}
	}
	for ; p <= n; p++ {
		out[p] = int32(len(xs))
	}
	return out
}

// fillRows sets the black pixels of the bitmap rows sc.rows that sample the source
// rows made of pieces r0 and r1, with weights sc.fys for r1 (w source columns).
func (sc *Scratch) fillRows(r0, r1 []piece, w int) {
	rows, fys := sc.rows, sc.fys
	end := func(r []piece, i int) int {
		if i+1 < len(r) {
			return int(r[i+1].x)
		}
		return w
	}
	i, j := 0, 0
	p := 0
	for {
		e0, e1 := end(r0, i), end(r1, j)
		q := min(e0, e1)
		a, c := r0[i].f, r1[j].f
		// The bitmap columns whose samples all lie in p..q-1, where both rows are
		// constant.
		if lo, hi := int(sc.xa[p]), int(sc.xb[q]); lo < hi && (a != 0 || c != 0) {
			for m, fy := range fys {
				if a+(c-a)*fy > 0.5 {
					setBits(rows[m], lo, hi)
				}
			}
		}
		if q == w {
			return
		}
		if e0 == q {
			i++
		}
		if e1 == q {
			j++
		}
		// The bitmap columns between them sample columns q-1 and q.
		b, d := r0[i].f, r1[j].f
		for X, stop := int(sc.xb[q]), int(sc.xa[q]); X < stop; X++ {
			bit := uint64(1) << (uint(X) & 63)
			if a == b && b == c && c == d {
				if a > 0.5 {
					for _, row := range rows {
						row[X>>6] |= bit
					}
				}
				continue
			}
			top := a + (b-a)*sc.fx[X]
			bot := c + (d-c)*sc.fx[X]
			for m, fy := range fys {
				if top+(bot-top)*fy > 0.5 {
					rows[m][X>>6] |= bit
				}
			}
		}
		p = q
	}
}

// setBits sets bits lo..hi-1 of a bitmap row.
func setBits(words []uint64, lo, hi int) {
	for lo < hi {
		n := min(64-lo&63, hi-lo)
		words[lo>>6] |= (^uint64(0) >> (64 - n)) << (uint(lo) & 63)
		lo += n
	}
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
