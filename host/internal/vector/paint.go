package vector

import (
	"cmp"
	"context"
	"image"
	"image/color"
	"math"
	"slices"

	"github.com/tdewolff/canvas"
)

// The reference renderer of SVG here is resvg, whose rasteriser (tiny-skia, after Skia's
// supersampling scan converter) anti-aliases by sampling each pixel at a 4 x 4 grid of
// points: a pixel covered at n of the 16 points gets n/16 of the colour. An exact-area
// rasteriser draws the same edges a level or two apart. Paint samples the same grid, so
// that the PNG we write looks like resvg's render of the SVG, and the quality score
// (package fidelity) agrees with the bench's, which renders with resvg.

// sub is the samples per pixel side.
const sub = 4

// flatness is the largest distance, in pixels, between a curve and the lines it is
// drawn with.
const flatness = 0.02

// edge is a line of an outline in pixel space, y pointing down, y0 < y1; dir is +1 when
// the outline runs down it, −1 up.
type edge struct {
	x0, y0, x1, y1, dxdy float64
	dir                  int
}

// crossing is where a sample row crosses an edge.
type crossing struct {
	x   float64
	dir int
}

// painter paints shapes on rows y0 to y1 of a w x h raster of premultiplied colours.
type painter struct {
	w, h, y0, y1 int
	img          *image.RGBA
	cov          []uint8 // samples covered per pixel of the row being painted
	edges        []edge
	polys        []poly
	active       []int
	cross        []crossing
}

// Paint paints the document on rows y0 to y1 (not included) of a w x h raster filled
// with bg (premultiplied; transparent is the zero colour), the viewBox stretched over
// the raster, sampling each pixel at 4 x 4 points as resvg does, and blending in sRGB
// values with 8-bit premultiplied channels as resvg does. The image returned holds rows
// y0 to y1 as its rows 0 to y1-y0. It stops early, returning ctx's error, when ctx ends.
func Paint(ctx context.Context, d *Document, w, h, y0, y1 int, bg color.RGBA) (*image.RGBA, error) {
	p := &painter{w: w, h: h, y0: y0, y1: y1, img: image.NewRGBA(image.Rect(0, 0, w, y1-y0)), cov: make([]uint8, w)}
	if bg != (color.RGBA{}) {
		for i := 0; i < len(p.img.Pix); i += 4 {
			p.img.Pix[i], p.img.Pix[i+1], p.img.Pix[i+2], p.img.Pix[i+3] = bg.R, bg.G, bg.B, bg.A
		}
	}
	sx, sy := float64(w)/d.Width, float64(h)/d.Height
	scale := math.Sqrt(sx * sy)
	for i, s := range d.Shapes {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t := func(q Point) point { return point{sx * (q.X - d.MinX), sy * (q.Y - d.MinY)} }
		p.polys = polylines(p.polys[:0], s.Path, t)
		if s.Fill != nil {
			p.fill(p.polys, s.FillRule == EvenOdd, *s.Fill)
		}
		if s.Stroke != nil && s.StrokeWidth > 0 {
			capper := [...]canvas.Capper{canvas.ButtCap, canvas.RoundCap, canvas.SquareCap}[s.Cap]
			var joiner canvas.Joiner
			switch s.Join {
			case RoundJoin:
				joiner = canvas.RoundJoin
			case BevelJoin:
				joiner = canvas.BevelJoin
			default:
				joiner = canvas.MiterJoiner{GapJoiner: canvas.BevelJoin, Limit: s.MiterLimit}
			}
			if width := s.StrokeWidth * scale; width <= 1 {
				p.hairline(p.polys, s.Cap != ButtCap, width, *s.Stroke)
			} else {
				path := &canvas.Path{}
				for _, pl := range p.polys {
					path.MoveTo(pl.pts[0].x, pl.pts[0].y)
					for _, q := range pl.pts[1:] {
						path.LineTo(q.x, q.y)
					}
					if pl.closed {
						path.Close()
					}
				}
				p.fill(canvasPolylines(path.Stroke(width, capper, joiner, flatness)), false, *s.Stroke)
			}
		}
	}
	return p.img, nil
}

// fill paints the area the polylines enclose (non-zero or even-odd; each is closed for
// filling) in c.
func (p *painter) fill(polys []poly, evenOdd bool, c color.NRGBA) {
	if c.A == 0 {
		return
	}
	p.edges = p.edges[:0]
	add := func(a, b point) {
		if a.y == b.y {
			return
		}
		e := edge{x0: a.x, y0: a.y, x1: b.x, y1: b.y, dir: 1}
		if a.y > b.y {
			e = edge{x0: b.x, y0: b.y, x1: a.x, y1: a.y, dir: -1}
		}
		e.dxdy = (e.x1 - e.x0) / (e.y1 - e.y0)
		p.edges = append(p.edges, e)
	}
	for _, pl := range polys {
		for i := 1; i < len(pl.pts); i++ {
			add(pl.pts[i-1], pl.pts[i])
		}
		add(pl.pts[len(pl.pts)-1], pl.pts[0])
	}
	if len(p.edges) == 0 {
		return
	}
	slices.SortFunc(p.edges, func(a, b edge) int { return cmp.Compare(a.y0, b.y0) })
	ymax := math.Inf(-1)
	for _, e := range p.edges {
		ymax = math.Max(ymax, e.y1)
	}
	// Sample rows: row s samples at y = (s + 0.5) / sub.
	first := max(p.y0*sub, int(math.Ceil(p.edges[0].y0*sub-0.5)))
	last1 := min(p.y1*sub, int(math.Ceil(ymax*sub-0.5)))
	if first >= last1 {
		return
	}
	p.active = p.active[:0]
	next := 0
	minX, maxX := p.w, -1
	for s := first; s < last1; s++ {
		y := (float64(s) + 0.5) / sub
		for next < len(p.edges) && p.edges[next].y0 <= y {
			p.active = append(p.active, next)
			next++
		}
		p.cross = p.cross[:0]
		keep := p.active[:0]
		for _, i := range p.active {
			e := &p.edges[i]
			if e.y1 <= y {
				continue
			}
			keep = append(keep, i)
			if e.y0 <= y {
				p.cross = append(p.cross, crossing{e.x0 + (y-e.y0)*e.dxdy, e.dir})
			}
		}
		p.active = keep
		slices.SortFunc(p.cross, func(a, b crossing) int { return cmp.Compare(a.x, b.x) })
		wind := 0
		for k := 0; k+1 < len(p.cross); k++ {
			wind += p.cross[k].dir
			inside := wind != 0
			if evenOdd {
				inside = wind%2 != 0
			}
			if !inside {
				continue
			}
			// Samples at x = (j + 0.5) / sub with xa <= x < xb.
			ja := max(0, int(math.Ceil(p.cross[k].x*sub-0.5)))
			jb := min(p.w*sub, int(math.Ceil(p.cross[k+1].x*sub-0.5)))
			for j := ja; j < jb; j++ {
				p.cov[j/sub]++
			}
			if ja < jb {
				minX, maxX = min(minX, ja/sub), max(maxX, (jb-1)/sub)
			}
		}
		if s%sub == sub-1 || s == last1-1 {
			p.blend(s/sub-p.y0, minX, maxX, c)
			minX, maxX = p.w, -1
		}
	}
}

// blend paints colour c on row y of the band where the row's samples cover it, and
// clears the coverage of pixels x0 to x1.
func (p *painter) blend(y, x0, x1 int, c color.NRGBA) {
	row := p.img.Pix[y*p.img.Stride:]
	for x := x0; x <= x1; x++ {
		n := p.cov[x]
		if n == 0 {
			continue
		}
		p.cov[x] = 0
		// n of 16 samples: n·16, the full pixel 255, as Skia's supersampler counts.
		a := min(255, int(n)*(256/(sub*sub))) * int(c.A) / 255
		over(row[x*4:x*4+4:x*4+4], c, a)
	}
}

// hairline paints a stroke no wider than a pixel as Skia and resvg do: each line of the
// flattened outline on its own (where two meet, both paint), a band one pixel across
// along its minor axis, anti-aliased by how much of each pixel the band covers, its
// colour scaled by the stroke's width; round and square caps extend the ends by half a
// pixel.
func (p *painter) hairline(polys []poly, extend bool, width float64, c color.NRGBA) {
	alpha := width * float64(c.A) / 255
	line := func(a, b point) {
		dx, dy := b.x-a.x, b.y-a.y
		if dx == 0 && dy == 0 {
			return
		}
		if extend {
			l := math.Hypot(dx, dy)
			ex, ey := dx/l/2, dy/l/2
			a, b = point{a.x - ex, a.y - ey}, point{b.x + ex, b.y + ey}
		}
		p.line(a, b, alpha, c)
	}
	for _, pl := range polys {
		for i := 1; i < len(pl.pts); i++ {
			line(pl.pts[i-1], pl.pts[i])
		}
		if pl.closed {
			line(pl.pts[len(pl.pts)-1], pl.pts[0])
		}
	}
}

// line paints one hairline from a to b with coverage alpha (0 to 1) in colour c: along
// its major axis pixel by pixel (the end pixels by the part the line spans), across it
// the one-pixel band around the line's position at the pixel's centre.
func (p *painter) line(a, b point, alpha float64, c color.NRGBA) {
	steep := math.Abs(b.y-a.y) > math.Abs(b.x-a.x)
	if steep {
		a.x, a.y, b.x, b.y = a.y, a.x, b.y, b.x
	}
	if a.x > b.x {
		a, b = b, a
	}
	slope := (b.y - a.y) / (b.x - a.x)
	for X := int(math.Floor(a.x)); float64(X) < b.x; X++ {
		span := math.Min(b.x, float64(X+1)) - math.Max(a.x, float64(X))
		if span <= 0 {
			continue
		}
		yc := a.y + (float64(X)+0.5-a.x)*slope
		row := math.Floor(yc + 0.5)
		below := yc + 0.5 - row
		for _, part := range [2]struct {
			minor int
			cover float64
		}{{int(row), below}, {int(row) - 1, 1 - below}} {
			x, y := X, part.minor
			if steep {
				x, y = part.minor, X
			}
			p.dot(x, y, alpha*span*part.cover, c)
		}
	}
}

// dot blends colour c at coverage a (0 to 1) into pixel x, y of the raster, if the pixel
// is in the band, with 8-bit alpha as resvg keeps it.
func (p *painter) dot(x, y int, a float64, c color.NRGBA) {
	if x < 0 || x >= p.w || y < p.y0 || y >= p.y1 {
		return
	}
	al := int(a * 255)
	if al <= 0 {
		return
	}
	px := p.img.Pix[(y-p.y0)*p.img.Stride+x*4:]
	over(px[:4:4], c, al)
}

// over blends colour c (not premultiplied) at alpha a (0 to 255: its coverage times
// its own alpha) over the premultiplied pixel px, source over: each channel becomes
// c·a + px·(1 − a), the alpha a + px's·(1 − a).
func over(px []uint8, c color.NRGBA, a int) {
	for k, v := range [4]uint8{c.R, c.G, c.B, 255} {
		px[k] = uint8((int(v)*a + int(px[k])*(255-a) + 127) / 255)
	}
}

// point is a point in pixel space, y pointing down.
type point struct{ x, y float64 }

// poly is one subpath flattened to points; closed when it ended with a close.
type poly struct {
	pts    []point
	closed bool
}

// polylines appends the subpaths of path, mapped by t, flattened to within flatness.
func polylines(dst []poly, path []Segment, t func(Point) point) []poly {
	var cur *poly
	var last point
	start := func(q point) {
		dst = append(dst, poly{pts: []point{q}})
		cur = &dst[len(dst)-1]
	}
	for _, seg := range path {
		switch seg.Op {
		case MoveTo:
			last = t(seg.P[0])
			start(last)
			continue
		case Close:
			if cur != nil {
				cur.closed = true
				last = cur.pts[0]
				cur = nil
			}
			continue
		}
		if cur == nil {
			start(last)
		}
		switch seg.Op {
		case LineTo:
			last = t(seg.P[0])
			cur.pts = append(cur.pts, last)
		case CubicTo:
			p1, p2, p3 := t(seg.P[0]), t(seg.P[1]), t(seg.P[2])
			cur.pts = cubic(cur.pts, last, p1, p2, p3)
			last = p3
		}
	}
	// A subpath of one point draws nothing.
	out := dst[:0]
	for _, pl := range dst {
		if len(pl.pts) > 1 {
			out = append(out, pl)
		}
	}
	return out
}

// cubic appends the points of the cubic Bézier p0..p3 after p0, in as many equal steps
// of its parameter as keep the lines within flatness of the curve: a step of h moves at
// most 3/4 of the control polygon's largest second difference times h² off it.
func cubic(pts []point, p0, p1, p2, p3 point) []point {
	dd := math.Max(math.Hypot(p0.x-2*p1.x+p2.x, p0.y-2*p1.y+p2.y), math.Hypot(p1.x-2*p2.x+p3.x, p1.y-2*p2.y+p3.y))
	n := min(1000, max(1, int(math.Ceil(math.Sqrt(0.75*dd/flatness)))))
	for i := 1; i <= n; i++ {
		u := float64(i) / float64(n)
		v := 1 - u
		a, b, c, d := v*v*v, 3*v*v*u, 3*v*u*u, u*u*u
		pts = append(pts, point{a*p0.x + b*p1.x + c*p2.x + d*p3.x, a*p0.y + b*p1.y + c*p2.y + d*p3.y})
	}
	return pts
}

// canvasPolylines flattens a canvas path (a stroke's outline) into polylines.
func canvasPolylines(path *canvas.Path) []poly {
	var out []poly
	for sc := path.Flatten(flatness).Scanner(); sc.Scan(); {
		end := sc.End()
		q := point{end.X, end.Y}
		switch sc.Cmd() {
		case canvas.MoveToCmd:
			out = append(out, poly{pts: []point{q}})
		case canvas.LineToCmd, canvas.CloseCmd:
			if len(out) == 0 {
				out = append(out, poly{pts: []point{{0, 0}}})
			}
			out[len(out)-1].pts = append(out[len(out)-1].pts, q)
		}
	}
	return out
}
