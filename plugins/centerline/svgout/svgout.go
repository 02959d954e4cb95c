// Package svgout writes centre-line strokes as an SVG document: one group per pen
// colour with fill="none", round caps and joins, each stroke an open path with its own
// width, and filled areas as even-odd filled paths inside their colour's group.
package svgout

import (
	"bytes"
	"image/color"

	"github.com/tracecraft/tracecraft/plugins/centerline/fit"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Precision is the number of decimals of coordinates; widths keep two.
const Precision = 2

// Stroke is one pen stroke.
type Stroke struct {
	Segments []fit.Segment
	Width    float64
	Closed   bool
}

// Group is what one pen draws.
type Group struct {
	Color   color.NRGBA
	Strokes []Stroke
	// Fills are closed outlines filled together with the even-odd rule.
	Fills [][]fit.Segment
}

// Document returns the SVG of a w x h image. travel, when positive, is written as the
// root's data-travel-length attribute (pixels of pen-up travel), so plotter tools and
// the service can read it back. It also returns the number of path segments written.
func Document(w, h int, groups []Group, travel float64) ([]byte, int) {
	var b bytes.Buffer
	extra := ""
	if travel > 0 {
		extra = ` ` + svg.TravelLength + `="` + svg.Num(travel, 1) + `"`
	}
	svg.Header(&b, w, h, false, extra)
	p := svg.NewPath(Precision)
	segments := 0
	var ids svg.IDs
	for _, g := range groups {
		if len(g.Strokes) == 0 && len(g.Fills) == 0 {
			continue
		}
		b.WriteString(`<g` + svg.IDAttr(ids.Colour(g.Color)) + ` fill="none"` + svg.Paint("stroke", g.Color) + ` stroke-linecap="round" stroke-linejoin="round">`)
		if len(g.Fills) > 0 {
			p.Reset()
			for _, f := range g.Fills {
				writeSegments(p, f, true)
			}
			segments += p.Segments()
			b.WriteString(`<path` + svg.IDAttr(ids.Shape()) + svg.Paint("fill", g.Color) + ` stroke="none" fill-rule="evenodd" d="`)
			b.Write(p.Bytes())
			b.WriteString(`"/>`)
		}
		for _, s := range g.Strokes {
			if len(s.Segments) == 0 {
				continue
			}
			p.Reset()
			writeSegments(p, s.Segments, s.Closed)
			segments += p.Segments()
			b.WriteString(`<path` + svg.IDAttr(ids.Shape()) + ` stroke-width="` + svg.Num(s.Width, 2) + `" d="`)
			b.Write(p.Bytes())
			b.WriteString(`"/>`)
		}
		b.WriteString("</g>\n")
	}
	svg.Footer(&b)
	return b.Bytes(), segments
}

func writeSegments(p *svg.Path, segs []fit.Segment, closed bool) {
	p.MoveTo(segs[0].P0.X, segs[0].P0.Y)
	for i, s := range segs {
		if closed && i == len(segs)-1 && s.Line {
			break // Z draws the last line
		}
		if s.Line {
			p.LineTo(s.P3.X, s.P3.Y)
		} else {
			p.CubicTo(s.P1.X, s.P1.Y, s.P2.X, s.P2.Y, s.P3.X, s.P3.Y)
		}
	}
	if closed {
		p.Close()
	}
}
