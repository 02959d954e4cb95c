package vector

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/rasterizer"
)

// canvasPath returns the outline in canvas's space: y up, one unit a pixel of a w x h
// raster onto which the viewBox is stretched.
func (d *Document) canvasPath(path []Segment, w, h float64) *canvas.Path {
	sx, sy := w/d.Width, h/d.Height
	t := func(p Point) (float64, float64) { return sx * (p.X - d.MinX), h - sy*(p.Y-d.MinY) }
	p := &canvas.Path{}
	for _, s := range path {
		switch s.Op {
		case MoveTo:
			p.MoveTo(t(s.P[0]))
		case LineTo:
			p.LineTo(t(s.P[0]))
		case CubicTo:
			x1, y1 := t(s.P[0])
			x2, y2 := t(s.P[1])
			x, y := t(s.P[2])
			p.CubeTo(x1, y1, x2, y2, x, y)
		case Close:
			p.Close()
		}
	}
	return p
}

func premultiplied(c color.NRGBA) color.RGBA {
	return color.RGBAModel.Convert(c).(color.RGBA)
}

// Rasterize paints the document on a transparent w x h raster, the viewBox stretched
// over it, anti-aliased; colours are blended in sRGB values as SVG renderers do. An
// even-odd fill is first resolved into the outline it covers. It stops early, returning
// ctx's error, when ctx ends.
func Rasterize(ctx context.Context, d *Document, w, h int) (*image.RGBA, error) {
	r := rasterizer.New(float64(w), float64(h), canvas.DPMM(1), canvas.LinearColorSpace{})
	scale := math.Sqrt(float64(w) / d.Width * float64(h) / d.Height)
	for i, s := range d.Shapes {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		style := canvas.DefaultStyle
		style.Fill = canvas.Paint{}
		p := d.canvasPath(s.Path, float64(w), float64(h))
		if s.Fill != nil {
			fill := p
			if s.FillRule == EvenOdd {
				fill = p.Settle(canvas.EvenOdd)
			}
			fs := style
			fs.Fill = canvas.Paint{Color: premultiplied(*s.Fill)}
			r.RenderPath(fill, fs, canvas.Identity)
		}
		if s.Stroke != nil {
			ss := style
			ss.Stroke = canvas.Paint{Color: premultiplied(*s.Stroke)}
			ss.StrokeWidth = s.StrokeWidth * scale
			ss.StrokeCapper = [...]canvas.Capper{canvas.ButtCap, canvas.RoundCap, canvas.SquareCap}[s.Cap]
			switch s.Join {
			case RoundJoin:
				ss.StrokeJoiner = canvas.RoundJoin
			case BevelJoin:
				ss.StrokeJoiner = canvas.BevelJoin
			default:
				ss.StrokeJoiner = canvas.MiterJoiner{GapJoiner: canvas.BevelJoin, Limit: s.MiterLimit}
			}
			r.RenderPath(p, ss, canvas.Identity)
		}
	}
	r.Close()
	return r.Image.(*image.RGBA), nil
}

// WritePNG rasterises the document at w x h pixels and writes it as a PNG.
func WritePNG(ctx context.Context, out io.Writer, d *Document, w, h int) error {
	img, err := Rasterize(ctx, d, w, h)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(out, img)
}
