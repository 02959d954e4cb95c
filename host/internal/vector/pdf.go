package vector

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
)

// num formats a coordinate with at most 4 decimals, without trailing zeros.
func num(x float64) string {
	x = math.Round(x*1e4) / 1e4
	if x == 0 {
		return "0"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// channel formats a colour channel as a number in [0, 1] with 4 decimals at most.
func channel(c uint8) string { return num(float64(c) / 255) }

// pagePath writes the outline as PDF or PostScript path operators: the same m/l/c/h
// letters in PDF, moveto/lineto/curveto/closepath in PostScript.
func pagePath(b *bytes.Buffer, path []Segment, ops [4]string) {
	for _, s := range path {
		switch s.Op {
		case MoveTo:
			fmt.Fprintf(b, "%s %s %s\n", num(s.P[0].X), num(s.P[0].Y), ops[0])
		case LineTo:
			fmt.Fprintf(b, "%s %s %s\n", num(s.P[0].X), num(s.P[0].Y), ops[1])
		case CubicTo:
			fmt.Fprintf(b, "%s %s %s %s %s %s %s\n", num(s.P[0].X), num(s.P[0].Y), num(s.P[1].X), num(s.P[1].Y), num(s.P[2].X), num(s.P[2].Y), ops[2])
		case Close:
			b.WriteString(ops[3] + "\n")
		}
	}
}

// pageMatrix returns the transform from the document's user space (y down) to a page of
// w x h points (y up): a b c d e f as PDF's cm and PostScript's concat take them.
func (d *Document) pageMatrix(w, h float64) string {
	sx, sy := w/d.Width, h/d.Height
	return fmt.Sprintf("%s 0 0 %s %s %s", num(sx), num(-sy), num(-sx*d.MinX), num(h+sy*d.MinY))
}

// WritePDF writes the document as a one-page PDF 1.4 of w x h points, the viewBox
// stretched over the page. Translucent fills and strokes use ExtGState alpha (ca, CA).
// The output is deterministic: no date, no random ID.
func WritePDF(out io.Writer, d *Document, w, h float64) error {
	var content bytes.Buffer
	fmt.Fprintf(&content, "%s cm\n", d.pageMatrix(w, h))
	alphas := map[[2]uint8]int{}
	var alphaOrder [][2]uint8
	for _, s := range d.Shapes {
		var fa, sa uint8 = 255, 255
		if s.Fill != nil {
			fa = s.Fill.A
			fmt.Fprintf(&content, "%s %s %s rg\n", channel(s.Fill.R), channel(s.Fill.G), channel(s.Fill.B))
		}
		if s.Stroke != nil {
			sa = s.Stroke.A
			fmt.Fprintf(&content, "%s %s %s RG %s w %d J %d j %s M\n", channel(s.Stroke.R), channel(s.Stroke.G), channel(s.Stroke.B),
				num(s.StrokeWidth), s.Cap, s.Join, num(s.MiterLimit))
		}
		key := [2]uint8{fa, sa}
		i, ok := alphas[key]
		if !ok {
			i = len(alphaOrder)
			alphas[key] = i
			alphaOrder = append(alphaOrder, key)
		}
		fmt.Fprintf(&content, "/A%d gs\n", i)
		pagePath(&content, s.Path, [4]string{"m", "l", "c", "h"})
		op := "S"
		switch {
		case s.Fill != nil && s.Stroke != nil:
			op = "B"
		case s.Fill != nil:
			op = "f"
		}
		if s.Fill != nil && s.FillRule == EvenOdd {
			op += "*"
		}
		content.WriteString(op + "\n")
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	zw.Write(content.Bytes())
	zw.Close()

	var gs bytes.Buffer
	for i, a := range alphaOrder {
		fmt.Fprintf(&gs, "/A%d << /Type /ExtGState /ca %s /CA %s >> ", i, channel(a[0]), channel(a[1]))
	}
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Resources << /ExtGState << %s>> >> /Contents 4 0 R >>", num(w), num(h), gs.String()),
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()),
		"<< /Producer (Tracecraft) >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	_, err := out.Write(b.Bytes())
	return err
}

// overWhite mixes a translucent colour with white, which is what it shows over a white
// page, for formats without transparency (EPS).
func overWhite(c color.NRGBA) color.NRGBA {
	mix := func(v uint8) uint8 {
		return uint8(math.Round(float64(v)*float64(c.A)/255 + 255*(1-float64(c.A)/255)))
	}
	return color.NRGBA{mix(c.R), mix(c.G), mix(c.B), 255}
}

// WriteEPS writes the document as Encapsulated PostScript (EPSF-3.0, PostScript level
// 2) with a bounding box of w x h points. PostScript has no transparency, so a
// translucent fill or stroke (alpha a, colour c) is flattened: inside its outline (clip),
// the page's white and every earlier shape whose bounding box meets it are painted again
// with each colour x replaced by a·c + (1 − a)·x, which is what compositing gives over
// opaque shapes (compositing is affine in the colour below). An earlier translucent
// shape is painted again as it shows over white (its colour mixed with white), so a
// translucent shape over another translucent one is approximate.
func WriteEPS(out io.Writer, d *Document, w, h float64) error {
	n := len(d.Shapes)
	boxes := make([]bbox, n)
	for i := range d.Shapes {
		boxes[i] = shapeBox(&d.Shapes[i])
	}
	// below[k] lists the earlier shapes a translucent shape k is flattened over;
	// named marks the shapes whose path is defined once as a procedure (/S<i>).
	below := make([][]int, n)
	named := make([]bool, n)
	for k := range d.Shapes {
		if !translucent(&d.Shapes[k]) {
			continue
		}
		for j := 0; j < k; j++ {
			if boxes[j].meets(boxes[k]) {
				below[k] = append(below[k], j)
				named[j] = true
			}
		}
		if len(below[k]) > 0 {
			named[k] = true
		}
	}
	var b bytes.Buffer
	b.WriteString("%!PS-Adobe-3.0 EPSF-3.0\n%%Creator: Tracecraft\n")
	fmt.Fprintf(&b, "%%%%BoundingBox: 0 0 %d %d\n%%%%HiResBoundingBox: 0 0 %s %s\n", int(math.Ceil(w-1e-9)), int(math.Ceil(h-1e-9)), num(w), num(h))
	b.WriteString("%%LanguageLevel: 2\n%%Pages: 1\n%%EndComments\n%%Page: 1 1\ngsave\n")
	procs := slices.Contains(named, true) // procedures need a dictionary of their own
	if procs {
		b.WriteString("10 dict begin\n")
	}
	fmt.Fprintf(&b, "[%s] concat\n", d.pageMatrix(w, h))
	ops := [4]string{"moveto", "lineto", "curveto", "closepath"}
	// path starts shape i's path: by its procedure when it has one.
	path := func(i int) {
		if named[i] {
			fmt.Fprintf(&b, "S%d\n", i)
			return
		}
		b.WriteString("newpath\n")
		pagePath(&b, d.Shapes[i].Path, ops)
	}
	// paint paints shape i (its path already set), each colour mapped by mix.
	paint := func(i int, mix func(color.NRGBA) color.NRGBA) {
		s := &d.Shapes[i]
		if s.Fill != nil {
			c := mix(overWhite(*s.Fill))
			fill := "fill"
			if s.FillRule == EvenOdd {
				fill = "eofill"
			}
			if s.Stroke != nil {
				fmt.Fprintf(&b, "gsave %s %s %s setrgbcolor %s grestore\n", channel(c.R), channel(c.G), channel(c.B), fill)
			} else {
				fmt.Fprintf(&b, "%s %s %s setrgbcolor %s\n", channel(c.R), channel(c.G), channel(c.B), fill)
			}
		}
		if s.Stroke != nil {
			c := mix(overWhite(*s.Stroke))
			fmt.Fprintf(&b, "%s %s %s setrgbcolor %s setlinewidth %d setlinecap %d setlinejoin %s setmiterlimit stroke\n",
				channel(c.R), channel(c.G), channel(c.B), num(s.StrokeWidth), s.Cap, s.Join, num(s.MiterLimit))
		}
	}
	same := func(c color.NRGBA) color.NRGBA { return c }
	for i := range d.Shapes {
		s := &d.Shapes[i]
		if named[i] {
			fmt.Fprintf(&b, "/S%d {newpath\n", i)
			pagePath(&b, s.Path, ops)
			b.WriteString("} def\n")
		}
		if len(below[i]) == 0 {
			path(i)
			paint(i, same)
			continue
		}
		// Flattened: the fill, then the stroke, each clipped to what it covers.
		for _, part := range []struct {
			c    *color.NRGBA
			clip string
		}{
			{s.Fill, map[FillRule]string{NonZero: "clip", EvenOdd: "eoclip"}[s.FillRule]},
			{s.Stroke, fmt.Sprintf("%s setlinewidth %d setlinecap %d setlinejoin %s setmiterlimit strokepath clip", num(s.StrokeWidth), s.Cap, s.Join, num(s.MiterLimit))},
		} {
			if part.c == nil {
				continue
			}
			c := *part.c
			a := float64(c.A) / 255
			mix := func(x color.NRGBA) color.NRGBA {
				m := func(v, u uint8) uint8 { return uint8(math.Round(a*float64(v) + (1-a)*float64(u))) }
				return color.NRGBA{m(c.R, x.R), m(c.G, x.G), m(c.B, x.B), 255}
			}
			b.WriteString("gsave\n")
			path(i)
			b.WriteString(part.clip + "\n")
			white := mix(color.NRGBA{255, 255, 255, 255})
			fmt.Fprintf(&b, "%s %s %s setrgbcolor clippath fill\n", channel(white.R), channel(white.G), channel(white.B))
			for _, j := range below[i] {
				path(j)
				paint(j, mix)
			}
			b.WriteString("grestore\n")
		}
	}
	if procs {
		b.WriteString("end\n")
	}
	b.WriteString("grestore\nshowpage\n%%Trailer\n%%EOF\n")
	_, err := out.Write(b.Bytes())
	return err
}

// translucent reports whether a shape's fill or stroke is translucent.
func translucent(s *Shape) bool {
	return s.Fill != nil && s.Fill.A < 255 || s.Stroke != nil && s.Stroke.A < 255
}

// bbox is a bounding box in user space.
type bbox struct{ x0, y0, x1, y1 float64 }

// meets reports whether two boxes overlap.
func (a bbox) meets(b bbox) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

// shapeBox returns the box of a shape's path and control points, grown by its stroke's
// reach (half the width, times the miter limit for miter joins).
func shapeBox(s *Shape) bbox {
	box := bbox{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, seg := range s.Path {
		k := map[Op]int{MoveTo: 1, LineTo: 1, CubicTo: 3}[seg.Op]
		for _, p := range seg.P[:k] {
			box.x0, box.y0 = math.Min(box.x0, p.X), math.Min(box.y0, p.Y)
			box.x1, box.y1 = math.Max(box.x1, p.X), math.Max(box.y1, p.Y)
		}
	}
	if s.Stroke != nil {
		r := s.StrokeWidth / 2 * math.Max(1, s.MiterLimit)
		box.x0, box.y0, box.x1, box.y1 = box.x0-r, box.y0-r, box.x1+r, box.y1+r
	}
	return box
}
