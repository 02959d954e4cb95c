// Package engine is the experimental potrace2 engine: colour Potrace. The image is cut
// into flat palette regions by tracecraft's segmentation (package
// plugins/tracecraft/segment), the regions of each palette colour form a layer, and each
// layer is traced by Potrace (package plugins/potrace/trace) from a bitmap that also
// holds every opaque layer drawn above it (package layers), so the layers stack bottom
// to top with no background showing between them, each outlined by Potrace's smooth
// curves. The bitmaps are upscaled from the anti-aliasing before tracing, so that edges
// sit where the drawing had them, not on the pixel grid.
//
// The SVG holds one path element per layer, bottom to top; transparent areas are never
// drawn.
package engine

import (
	"bytes"
	"context"
	"image"

	"github.com/tracecraft/tracecraft/plugins/potrace/trace"
	"github.com/tracecraft/tracecraft/plugins/potrace2/layers"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/parallel"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Precision is the number of decimals of the SVG coordinates.
const Precision = 1

// Engine is the potrace2 tracer.
type Engine struct{}

var _ sdk.Engine[Params] = (*Engine)(nil)

// New returns the engine.
func New() *Engine { return &Engine{} }

// Params are the engine's parameters: tracecraft's segmentation's and Potrace's.
type Params struct {
	segment.Options
	TurdSize     int     `param:"turdSize" min:"0" max:"100" default:"2" desc:"suppress speckles up to this pixel size in each layer: shapes and holes enclosing at most this many image pixels are dropped (the layer below shows instead)"`
	AlphaMax     float64 `param:"alphaMax" min:"0" max:"1.334" step:"0.01" default:"1" desc:"corner smoothness (0 sharp, 1.334 smooth): corners sharper than this stay corners"`
	OptTolerance float64 `param:"optTolerance" min:"0" max:"1" step:"0.01" default:"0.2" desc:"curve optimization tolerance in pixels: larger values join more Bézier segments, giving smaller files but less accuracy"`
	Upscale      int     `param:"upscale" min:"1" max:"4" default:"2" desc:"sub-pixel factor: each layer's bitmap is upscaled this many times from the anti-aliasing before tracing, so edges follow the drawing between pixels (1 traces the pixel grid; more is slower)"`
}

// Describe returns the engine's name and parameters.
func (*Engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name:        "potrace2",
		Version:     "0.1.0",
		Stability:   sdk.Experimental,
		Description: "color potrace via tracecraft segmentation: each palette colour is a layer traced by Potrace with its smooth curves, layers stacked bottom to top so no background shows between them.",
		Params:      sdk.Describe[Params](),
	}
}

// settings are the parameters as the pipeline takes them.
type settings struct {
	maxColors, minRegion, scale int
	palette                     []string
	opts                        trace.Options
}

func options(p Params) (settings, error) {
	if err := sdk.Check(p); err != nil {
		return settings{}, err
	}
	s := settings{
		maxColors: p.MaxColors,
		minRegion: p.MinRegion,
		palette:   p.Palette,
		scale:     p.Upscale,
		opts: trace.Options{
			TurdSize:     p.TurdSize,
			TurnPolicy:   trace.TurnMinority,
			AlphaMax:     p.AlphaMax,
			OptCurve:     true,
			OptTolerance: p.OptTolerance,
		},
	}
	// Potrace works on the upscaled bitmap: its sizes and distances scale with it.
	s.opts.TurdSize *= s.scale * s.scale
	s.opts.OptTolerance *= float64(s.scale)
	return s, nil
}

// Trace converts img into an SVG document.
func (e *Engine) Trace(ctx context.Context, img *image.NRGBA, p Params) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := options(p)
	if err != nil {
		return nil, err
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w <= 0 || h <= 0 {
		return svg.Empty(max(w, 1), max(h, 1), false), nil
	}
	if img.Rect.Min != (image.Point{}) {
		img = &image.NRGBA{Pix: img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y):], Stride: img.Stride,
			Rect: image.Rect(0, 0, w, h)}
	}
	// Layers are drawn from their pixels: no planar map.
	seg, err := segment.Regions(ctx, img, segment.Options{MaxColors: s.maxColors, MinRegion: s.minRegion, Palette: s.palette})
	if err != nil {
		return nil, err
	}
	st, err := layers.Build(ctx, img, seg.Regions)
	if err != nil {
		return nil, err
	}
	// Layers are traced independently, so in parallel; their paths are written in
	// layer order afterwards.
	data := make([][]byte, len(st.Layers))
	drawn := make([]bool, len(st.Layers))
	errs := make([]error, len(st.Layers))
	paths := make([]*svg.Path, parallel.Workers(len(st.Layers), 1))
	scratch := make([]layers.Scratch, len(paths))
	// A layer's bitmap also holds the layers above it, so layers share many
	// boundaries: each is worked out once.
	memo := trace.NewMemo(s.opts, h*max(s.scale, 1))
	inv := 1 / float64(s.scale)
	err = parallel.For(ctx, len(st.Layers), 1, func(worker, lo, hi int) {
		if paths[worker] == nil {
			paths[worker] = svg.NewPath(Precision)
		}
		d := paths[worker]
		for k := lo; k < hi; k++ {
			bm, err := st.Bitmap(ctx, k, s.scale, &scratch[worker])
			if err != nil {
				errs[k] = err
				return
			}
			roots, err := memo.Trace(ctx, bm)
			if err != nil {
				errs[k] = err
				return
			}
			if len(roots) == 0 {
				continue
			}
			d.Reset()
			trace.EachShape(roots, func(p *trace.Path) {
				scalePath(p, inv)
				for _, c := range p.Children {
					scalePath(c, inv)
				}
				trace.AppendShape(d, p)
			})
			data[k], drawn[k] = append([]byte(nil), d.Bytes()...), true
		}
	})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	svg.Header(&b, w, h, false, "")
	var ids svg.IDs
	for k, l := range st.Layers {
		if errs[k] != nil {
			return nil, errs[k]
		}
		if !drawn[k] {
			continue
		}
		b.WriteString(`<path` + svg.IDAttr(ids.Colour(l.Color)) + svg.Paint("fill", l.Color) + ` d="`)
		b.Write(data[k])
		b.WriteString(`"/>`)
	}
	svg.Footer(&b)
	return b.Bytes(), nil
}

// scalePath multiplies the coordinates of p's curve by k.
func scalePath(p *trace.Path, k float64) {
	if k == 1 {
		return
	}
	sc := func(q *trace.Point) { q.X, q.Y = q.X*k, q.Y*k }
	for i := range p.Curve {
		s := &p.Curve[i]
		sc(&s.Ctrl1)
		sc(&s.Ctrl2)
		sc(&s.Vertex)
		sc(&s.End)
	}
}
