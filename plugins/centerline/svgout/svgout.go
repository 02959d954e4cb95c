// Package svgout writes centre-line strokes as an SVG document: one group per pen
// colour with fill="none", round caps and joins, each stroke an open path with its own
// width, and filled areas as even-odd filled paths inside their colour's group.
package svgout

import (
	"bytes"
	"context"
	"image/color"

	"github.com/tracecraft/tracecraft/plugins/centerline/fit"
	"github.com/tracecraft/tracecraft/sdk/parallel"
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
		paths, segs := strokePaths(g.Strokes)
		for i, s := range g.Strokes {
			if len(s.Segments) == 0 {
				continue
			}
			segments += segs[i]
			b.WriteString(`<path` + svg.IDAttr(ids.Shape()))
			b.Write(paths[i])
		}
		b.WriteString("</g>\n")
	}
	svg.Footer(&b)
	return b.Bytes(), segments
}

// strokePaths returns each of the strokes' path elements after its id (its width and
// its d attribute, and the element's end; nothing for a stroke without segments) and
// its number of segments. The strokes are written in parallel, each into its worker's
// buffer: apart from their ids, which are numbered in order, they do not depend on one
// another. (On the openclipart owl writing the strokes was 2 % of the trace's
// instructions, all on one core.)
func strokePaths(ss []Stroke) ([][]byte, []int) {
	const grain = 64
	bufs := make([][]byte, parallel.Workers(len(ss), grain))
	out := make([][]byte, len(ss))
	segs := make([]int, len(ss))
	_ = parallel.For(context.Background(), len(ss), grain, func(worker, lo, hi int) {
		p := svg.NewPath(Precision)
		b := bufs[worker]
		for i := lo; i < hi; i++ {
			s := ss[i]
			if len(s.Segments) == 0 {
				continue
			}
			p.Reset()
			writeSegments(p, s.Segments, s.Closed)
			segs[i] = p.Segments()
			a := len(b)
			b = append(b, ` stroke-width="`...)
			b = svg.AppendNum(b, s.Width, 2)
			b = append(b, `" d="`...)
			b = append(b, p.Bytes()...)
			b = append(b, `"/>`...)
			// A later append that grows b copies it; this slice keeps the bytes.
			out[i] = b[a:len(b):len(b)]
		}
		bufs[worker] = b
	})
	return out, segs
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
