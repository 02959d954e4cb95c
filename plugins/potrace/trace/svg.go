package trace

import (
	"bytes"
	"image/color"

	"github.com/tracecraft/tracecraft/sdk/svg"
)

// AppendCurve appends c to d as one closed subpath: a move to the curve's start, a cubic
// for each Bézier segment, two lines for each corner, and a close.
func AppendCurve(d *svg.Path, c []Segment) {
	if len(c) == 0 {
		return
	}
	start := c[len(c)-1].End
	d.MoveTo(start.X, start.Y)
	for _, s := range c {
		if s.Corner {
			d.LineTo(s.Vertex.X, s.Vertex.Y)
			d.LineTo(s.End.X, s.End.Y)
		} else {
			d.CubicTo(s.Ctrl1.X, s.Ctrl1.Y, s.Ctrl2.X, s.Ctrl2.Y, s.End.X, s.End.Y)
		}
	}
	d.Close()
}

// AppendShape appends p's curve and the curves of its children to d: for an outer
// boundary, the filled shape with its holes, as one path element draws it under the
// default (nonzero) fill rule. This is how Potrace groups its SVG output.
func AppendShape(d *svg.Path, p *Path) {
	AppendCurve(d, p.Curve)
	for _, c := range p.Children {
		AppendCurve(d, c.Curve)
	}
}

// EachShape calls fn for every outer boundary in the forest, depth first: each root,
// then the islands inside its holes, recursively. Together the calls
// AppendShape(d, p) draw the whole image.
func EachShape(roots []*Path, fn func(p *Path)) {
	for _, p := range roots {
		fn(p)
		for _, hole := range p.Children {
			EachShape(hole.Children, fn)
		}
	}
}

// Document returns the SVG of a traced w x h image as the potrace engine writes it: a
// black group holding one path element per outer boundary with its holes, in the order
// EachShape gives, coordinates with prec decimals. The group has the id c-000000, each
// path p-1, p-2... in order (see svg.IDs).
func Document(w, h int, roots []*Path, prec int) []byte {
	return DocumentInk(w, h, roots, prec, color.NRGBA{A: 255})
}

// DocumentInk is Document with the shapes painted in ink instead of black (opaque; its
// alpha is ignored), as Potrace's --color does. The group's id names the colour.
func DocumentInk(w, h int, roots []*Path, prec int, ink color.NRGBA) []byte {
	ink.A = 255
	var b bytes.Buffer
	svg.Header(&b, w, h, false, "")
	if len(roots) > 0 {
		var ids svg.IDs
		b.WriteString(`<g` + svg.IDAttr(ids.Colour(ink)) + svg.Paint("fill", ink) + `>`)
		d := svg.NewPath(prec)
		EachShape(roots, func(p *Path) {
			d.Reset()
			AppendShape(d, p)
			b.WriteString(`<path` + svg.IDAttr(ids.Shape()) + ` d="`)
			b.Write(d.Bytes())
			b.WriteString(`"/>`)
		})
		b.WriteString(`</g>`)
	}
	svg.Footer(&b)
	return b.Bytes()
}
