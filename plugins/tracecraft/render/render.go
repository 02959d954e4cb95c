// Package render rasterises traced shapes in Go (with golang.org/x/image/vector) so the
// tracer can measure how far its candidate SVG is from the input without leaving the
// process. Shapes are accumulated additively: where two shapes share an edge their
// coverages add up to one, so the canvas shows each shared edge exactly anti-aliased,
// without the background seam that painting one shape over the other shows
// (conflation). That is the image an ideal renderer would draw.
package render

import (
	"image"
	"image/draw"
	"sync"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"golang.org/x/image/vector"
)

// Canvas is a premultiplied RGBA image with float channels in 0..255.
type Canvas struct {
	// Width and Height are the size in pixels.
	Width, Height int
	// Pix holds R, G, B, A per pixel in row-major order.
	Pix []float32

	rast Rasterizer
	mask []uint8
}

// pool keeps released canvases: a trace renders one for every refinement pass, and
// allocating (and clearing) megabytes each time costs more than the rendering.
var pool sync.Pool

// NewCanvas returns a transparent w x h canvas. Release gives it back for reuse.
func NewCanvas(w, h int) *Canvas {
	n := 4 * w * h
	if c, ok := pool.Get().(*Canvas); ok && cap(c.Pix) >= n {
		c.Width, c.Height, c.Pix = w, h, c.Pix[:n]
		clear(c.Pix)
		return c
	}
	return &Canvas{Width: w, Height: h, Pix: make([]float32, n)}
}

// Release returns the canvas for reuse by NewCanvas; c must not be used afterwards.
func (c *Canvas) Release() { pool.Put(c) }

// Clear makes the canvas transparent again.
func (c *Canvas) Clear() { clear(c.Pix) }

// Coverage rasterises the closed paths (nonzero winding) within bounds and calls fn with
// each pixel's index and coverage in (0, 1]. Paths may cross bounds; they are clipped.
func (c *Canvas) Coverage(paths []fit.Path, bounds image.Rectangle, fn func(i int, cov float32)) {
	var m Mask
	c.mask, m = c.rast.Mask(paths, bounds.Intersect(image.Rect(0, 0, c.Width, c.Height)), c.mask)
	c.eachCovered(m, fn)
}

// eachCovered calls fn with the canvas index and coverage of every pixel m covers.
func (c *Canvas) eachCovered(m Mask, fn func(i int, cov float32)) {
	bw := m.Bounds.Dx()
	for y := 0; y < m.Bounds.Dy(); y++ {
		row := m.Alpha[y*bw : y*bw+bw]
		base := (m.Bounds.Min.Y+y)*c.Width + m.Bounds.Min.X
		for x, a := range row {
			if a != 0 {
				fn(base+x, float32(a)/255)
			}
		}
	}
}

// Mask is the coverage of a set of paths within a rectangle of the canvas: one byte a
// pixel, row by row.
type Mask struct {
	Bounds image.Rectangle
	Alpha  []uint8
}

// Rasterizer rasterises paths into masks. Its zero value is ready; each goroutine needs
// its own. The masks are the same whichever Rasterizer makes them.
type Rasterizer struct {
	ras vector.Rasterizer
}

// Mask rasterises the closed paths (nonzero winding) within bounds, which must lie on
// the canvas, into buf (grown when too small) and returns buf and the mask, which
// shares buf. Paths may cross bounds; they are clipped.
func (r *Rasterizer) Mask(paths []fit.Path, bounds image.Rectangle, buf []uint8) ([]uint8, Mask) {
	if bounds.Empty() || len(paths) == 0 {
		return buf, Mask{}
	}
	bw, bh := bounds.Dx(), bounds.Dy()
	r.ras.Reset(bw, bh)
	r.ras.DrawOp = draw.Src
	ox, oy := float64(bounds.Min.X), float64(bounds.Min.Y)
	for _, p := range paths {
		r.ras.MoveTo(float32(p.From.X-ox), float32(p.From.Y-oy))
		for _, s := range p.Segs {
			if s.Cubic {
				r.ras.CubeTo(float32(s.C1.X-ox), float32(s.C1.Y-oy), float32(s.C2.X-ox), float32(s.C2.Y-oy), float32(s.To.X-ox), float32(s.To.Y-oy))
			} else {
				r.ras.LineTo(float32(s.To.X-ox), float32(s.To.Y-oy))
			}
		}
		r.ras.ClosePath()
	}
	if cap(buf) < bw*bh {
		buf = make([]uint8, bw*bh)
	}
	m := &image.Alpha{Pix: buf[:bw*bh], Stride: bw, Rect: image.Rect(0, 0, bw, bh)}
	r.ras.Draw(m, m.Rect, image.Opaque, image.Point{})
	return buf, Mask{Bounds: bounds, Alpha: m.Pix}
}

// AddMask adds m's coverage times the premultiplied colour pm (0..255 channels) to the
// canvas, as Add does for the paths m was made of.
func (c *Canvas) AddMask(m Mask, pm [4]float32) { c.AddMaskRows(m, pm, m.Bounds.Min.Y, m.Bounds.Max.Y) }

// AddMaskRows is AddMask on the canvas rows y0..y1-1 alone: goroutines that add the same
// masks in the same order to rows of their own make the canvas AddMask would.
func (c *Canvas) AddMaskRows(m Mask, pm [4]float32, y0, y1 int) {
	bw := m.Bounds.Dx()
	for y := max(y0, m.Bounds.Min.Y); y < min(y1, m.Bounds.Max.Y); y++ {
		row := m.Alpha[(y-m.Bounds.Min.Y)*bw : (y-m.Bounds.Min.Y+1)*bw]
		base := y*c.Width + m.Bounds.Min.X
		pix := c.Pix[4*base : 4*(base+bw)]
		for x, a := range row {
			if a == 0 {
				continue
			}
			cov := float32(a) / 255
			p := pix[4*x : 4*x+4 : 4*x+4]
			p[0] += cov * pm[0]
			p[1] += cov * pm[1]
			p[2] += cov * pm[2]
			p[3] += cov * pm[3]
		}
	}
}

// Add rasterises the closed paths and adds their coverage times the premultiplied colour
// pm (0..255 channels) to the canvas.
func (c *Canvas) Add(paths []fit.Path, bounds image.Rectangle, pm [4]float32) {
	c.Coverage(paths, bounds, func(i int, cov float32) {
		p := c.Pix[4*i : 4*i+4]
		p[0] += cov * pm[0]
		p[1] += cov * pm[1]
		p[2] += cov * pm[2]
		p[3] += cov * pm[3]
	})
}

// Over rasterises the closed paths and paints the premultiplied colour pm over the
// canvas, as an SVG renderer paints one shape after another.
func (c *Canvas) Over(paths []fit.Path, bounds image.Rectangle, pm [4]float32) {
	c.Coverage(paths, bounds, func(i int, cov float32) {
		p := c.Pix[4*i : 4*i+4]
		k := 1 - cov*pm[3]/255
		p[0] = p[0]*k + cov*pm[0]
		p[1] = p[1]*k + cov*pm[1]
		p[2] = p[2]*k + cov*pm[2]
		p[3] = p[3]*k + cov*pm[3]
	})
}

// NRGBA returns the canvas as a non-premultiplied image.
func (c *Canvas) NRGBA() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, c.Width, c.Height))
	for i := 0; i < c.Width*c.Height; i++ {
		p := c.Pix[4*i : 4*i+4]
		a := p[3]
		if a <= 0 {
			continue
		}
		u := func(v float32) uint8 {
			v = v * 255 / a
			if v > 255 {
				v = 255
			}
			return uint8(v + 0.5)
		}
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2] = u(p[0]), u(p[1]), u(p[2])
		if a > 255 {
			a = 255
		}
		img.Pix[4*i+3] = uint8(a + 0.5)
	}
	return img
}
