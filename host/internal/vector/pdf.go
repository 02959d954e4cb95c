package vector

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image/color"
	"io"
	"math"
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
// 2) with a bounding box of w x h points. PostScript has no transparency: a translucent
// colour is written mixed with white, as it shows on a white page.
func WriteEPS(out io.Writer, d *Document, w, h float64) error {
	var b bytes.Buffer
	b.WriteString("%!PS-Adobe-3.0 EPSF-3.0\n%%Creator: Tracecraft\n")
	fmt.Fprintf(&b, "%%%%BoundingBox: 0 0 %d %d\n%%%%HiResBoundingBox: 0 0 %s %s\n", int(math.Ceil(w-1e-9)), int(math.Ceil(h-1e-9)), num(w), num(h))
	b.WriteString("%%LanguageLevel: 2\n%%Pages: 1\n%%EndComments\n%%Page: 1 1\ngsave\n")
	fmt.Fprintf(&b, "[%s] concat\n", d.pageMatrix(w, h))
	for _, s := range d.Shapes {
		b.WriteString("newpath\n")
		pagePath(&b, s.Path, [4]string{"moveto", "lineto", "curveto", "closepath"})
		if s.Fill != nil {
			c := overWhite(*s.Fill)
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
			c := overWhite(*s.Stroke)
			fmt.Fprintf(&b, "%s %s %s setrgbcolor %s setlinewidth %d setlinecap %d setlinejoin %s setmiterlimit stroke\n",
				channel(c.R), channel(c.G), channel(c.B), num(s.StrokeWidth), s.Cap, s.Join, num(s.MiterLimit))
		}
	}
	b.WriteString("grestore\nshowpage\n%%Trailer\n%%EOF\n")
	_, err := out.Write(b.Bytes())
	return err
}
