package ink

import (
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/tracecraft/tracecraft/plugins/centerline/internal/grain"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// Paper lighting (flat-field correction). A photographed page is lit unevenly or dimly:
// its paper is bright in one corner and grey in another, and a fixed threshold turns
// the grey paper into ink. Flatten estimates the paper's brightness over a grid of tiles
// and divides it out, so that paper is white everywhere and ink keeps its contrast
// with the paper around it. Unlike a local threshold, it also gives the width
// measurement (which reads the darkness as coverage) paper of darkness 0.

// DimPaper is the share of white below which Flatten finds the paper dim (its 5th
// percentile over the tiles): shaded or grey all over, as in a photograph, where the
// paper's grain and shading cross a fixed threshold. White paper, a scan or a drawing,
// stays as it is.
const DimPaper = 0.8

// paperStep is the largest ratio by which the paper may dim from one tile to the next
// and still be paper: light falls off smoothly, while a tile much darker than its
// lit neighbours lies inside a filled area, whose brightness says nothing of the paper.
const paperStep = 0.6

// Flatten returns g with the paper's lighting divided out, and whether it found the
// paper dim (see DimPaper); when it did not, it returns g itself.
func Flatten(g *Image) (*Image, bool) {
	f, dim, _ := flatten(g, nil, 0)
	return f, dim
}

// flatten is Flatten that, with mask not nil and tb at least 0, also sets mask to the
// pixels of g darker than tb as it reads g for the paper's brightness, and says whether
// it did (it does not when the image is too small to have its lighting measured).
func flatten(g *Image, mask []bool, tb int) (*Image, bool, bool) {
	t := tileSide(g.W, g.H)
	tw, th := (g.W+t-1)/t, (g.H+t-1)/t
	if tw < 2 && th < 2 {
		return g, false, false
	}
	if tb < 0 {
		mask = nil
	}
	est := paperTiles(g, t, tw, th, mask, tb)
	trusted := litTiles(est, tw, th)
	var lit []float64
	for i, ok := range trusted {
		if ok {
			lit = append(lit, est[i])
		}
	}
	slices.Sort(lit)
	if lit[len(lit)*5/100] >= DimPaper*255 {
		return g, false, mask != nil
	}
	fillTiles(est, trusted, tw, th)
	out := &Image{W: g.W, H: g.H, Pix: make([]uint8, len(g.Pix))}
	// Tile centres are at (i+0.5) t: each pixel is interpolated between the two around
	// it across and down. The columns' tiles and weights are the same in every row.
	type across struct {
		i0, i1 int
		wx     float64
	}
	cols := make([]across, g.W)
	for x := range cols {
		fx := math.Max(0, math.Min(float64(tw-1), (float64(x)+0.5)/float64(t)-0.5))
		i0 := int(fx)
		cols[x] = across{i0, min(i0+1, tw-1), fx - float64(i0)}
	}
	_ = parallel.For(context.Background(), g.H, grain.Lines(g.H, g.W, 16), func(_, lo, hi int) {
		for y := lo; y < hi; y++ {
			fy := math.Max(0, math.Min(float64(th-1), (float64(y)+0.5)/float64(t)-0.5))
			j0 := int(fy)
			j1, wy := min(j0+1, th-1), fy-float64(j0)
			top, bottom := est[j0*tw:(j0+1)*tw], est[j1*tw:(j1+1)*tw]
			src, dst := g.Pix[y*g.W:(y+1)*g.W], out.Pix[y*g.W:(y+1)*g.W]
			for x, c := range cols {
				a := top[c.i0]*(1-c.wx) + top[c.i1]*c.wx
				b := bottom[c.i0]*(1-c.wx) + bottom[c.i1]*c.wx
				paper := a*(1-wy) + b*wy
				bright := 255 - float64(src[x])
				// The builtin min and max: math.Min and math.Max's rules exactly (the
				// Go spec), inline.
				v := min(255, math.Round(bright*255/max(paper, 1)))
				dst[x] = uint8(255 - v)
			}
		}
	})
	return out, true, mask != nil
}

// maxStretch bounds Stretch's gain: faint ink is made at most this much darker, so that
// paper grain is not made into ink where there is little ink to measure.
const maxStretch = 3

// Stretch scales g's darkness, in place, so that its ink (the mean darkness of the
// pixels above Otsu's level) is full black, by a gain of at most maxStretch: under dim
// light the ink is grey, and a threshold halfway to black would miss it.
func Stretch(g *Image) {
	// The ink's sum and count from the histogram: whole numbers, the same as summed
	// pixel by pixel.
	hist := histogram(g)
	t := otsuOf(hist)
	var sum, n float64
	for v := int(t) + 1; v < 256; v++ {
		sum += float64(v) * hist[v]
		n += hist[v]
	}
	if n == 0 || sum == 0 {
		return
	}
	gain := math.Min(maxStretch, 255*n/sum)
	if gain <= 1 {
		return
	}
	var lut [256]uint8
	for i := range lut {
		lut[i] = uint8(math.Min(255, math.Round(float64(i)*gain)))
	}
	_ = parallel.For(context.Background(), len(g.Pix), grain.Pixels(len(g.Pix), 1<<16), func(_, lo, hi int) {
		for i, v := range g.Pix[lo:hi] {
			g.Pix[lo+i] = lut[v]
		}
	})
}

// tileSide returns the side of the lighting grid's tiles: a twelfth of the image's
// shorter side, within 24 to 128 pixels, so that most tiles show some paper beside
// letters and lines while the lighting changes little across one.
func tileSide(w, h int) int { return max(24, min(128, min(w, h)/12)) }

// paperTiles returns the paper brightness of each tile: the 95th percentile of its
// pixels' brightness (255 less darkness), which is paper wherever a twentieth of the
// tile is.
func paperTiles(g *Image, t, tw, th int, mask []bool, tb int) []float64 {
	est := make([]float64, tw*th)
	// Rows of tiles across the machine's cores: each tile's estimate is its own.
	_ = parallel.For(context.Background(), th, grain.Lines(th, t*g.W, 1), func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			paperTileRow(g, t, tw, j, est[j*tw:(j+1)*tw], mask, tb)
		}
	})
	return est
}

// paperTileRow sets est[i] to the paper brightness of tile i of row j of tiles. The
// histogram counts words of eight pixels of white paper (darkness 0, most of a
// drawing's) at once. With mask not nil, it also sets mask's pixels of the tiles to
// whether they are darker than tb (at least 0: paper is never darker).
func paperTileRow(g *Image, t, tw, j int, est []float64, mask []bool, tb int) {
	for i := range tw {
		y0, y1, x0, x1 := j*t, min(g.H, (j+1)*t), i*t, min(g.W, (i+1)*t)
		n := (y1 - y0) * (x1 - x0)
		target := n * 95 / 100
		var dark [256]int // by darkness, 255 less the brightness
		for y := y0; y < y1; y++ {
			row := g.Pix[y*g.W+x0 : y*g.W+x1]
			if mask != nil {
				// The mask may be a buffer given back (Binarise), and countInk sets
				// only the ink: cleared here, a tile's row at a time.
				m := mask[y*g.W+x0 : y*g.W+x1]
				clear(m)
				countInk(&dark, row, m, tb)
				continue
			}
			k := 0
			for ; k+8 <= len(row); k += 8 {
				if binary.LittleEndian.Uint64(row[k:]) == 0 {
					dark[0] += 8
					continue
				}
				for _, d := range row[k : k+8] {
					dark[d]++
				}
			}
			for _, d := range row[k:] {
				dark[d]++
			}
		}
		if n-dark[0] <= target {
			est[i] = 255 // paper but for at most a twentieth
			continue
		}
		c := 0
		for v := 0; v < 256; v++ {
			c += dark[255-v]
			if c > target {
				est[i] = float64(v)
				break
			}
		}
	}
}

// countInk adds row's darkness values to dark, eight pixels of paper (darkness 0) or
// of full ink (255) at a time, and sets mask (row's pixels) where they are darker than
// tb (at least 0).
func countInk(dark *[256]int, row []uint8, mask []bool, tb int) {
	mask = mask[:len(row)]
	black := 255 > tb
	k := 0
	for ; k+8 <= len(row); k += 8 {
		switch binary.LittleEndian.Uint64(row[k:]) {
		case 0:
			dark[0] += 8
			// Paper: the words after it too, four at a time while they are all paper
			// (most of a drawing is; on the openclipart owl the loop's test of each
			// word was a third of countInk's instructions).
			for k+40 <= len(row) {
				e := row[k+8 : k+40 : k+40]
				if binary.LittleEndian.Uint64(e)|binary.LittleEndian.Uint64(e[8:])|binary.LittleEndian.Uint64(e[16:])|binary.LittleEndian.Uint64(e[24:]) != 0 {
					break
				}
				dark[0] += 32
				k += 32
			}
			continue
		case 1<<64 - 1:
			dark[255] += 8
			m := mask[k : k+8 : k+8]
			m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7] = black, black, black, black, black, black, black, black
			continue
		}
		m := mask[k : k+8 : k+8]
		for i, d := range row[k : k+8 : k+8] {
			dark[d]++
			m[i] = int(d) > tb
		}
	}
	for i, d := range row[k:] {
		dark[d]++
		mask[k+i] = int(d) > tb
	}
}

// litTiles marks the tiles whose estimate is paper: those reached from the brightest
// tile through neighbours (8-connected), each step dimming by no more than paperStep.
func litTiles(est []float64, tw, th int) []bool {
	trusted := make([]bool, len(est))
	start := 0
	for i, v := range est {
		if v > est[start] {
			start = i
		}
	}
	trusted[start] = true
	queue := []int{start}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		kx, ky := k%tw, k/tw
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				x, y := kx+dx, ky+dy
				if x < 0 || y < 0 || x >= tw || y >= th {
					continue
				}
				n := y*tw + x
				if !trusted[n] && est[n] >= paperStep*est[k] {
					trusted[n] = true
					queue = append(queue, n)
				}
			}
		}
	}
	return trusted
}

// fillTiles replaces the estimate of each tile that is not paper by the mean of its
// neighbours already known, layer by layer outwards from the paper.
func fillTiles(est []float64, known []bool, tw, th int) {
	known = slices.Clone(known)
	for {
		var next []int
		var vals []float64
		for k, ok := range known {
			if ok {
				continue
			}
			kx, ky := k%tw, k/tw
			var s float64
			n := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					x, y := kx+dx, ky+dy
					if x >= 0 && y >= 0 && x < tw && y < th && known[y*tw+x] {
						s += est[y*tw+x]
						n++
					}
				}
			}
			if n > 0 {
				next = append(next, k)
				vals = append(vals, s/float64(n))
			}
		}
		if len(next) == 0 {
			return
		}
		for i, k := range next {
			est[k], known[k] = vals[i], true
		}
	}
}
