package vector

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
)

// DXF $INSUNITS codes.
const (
	UnitsNone   = 0
	UnitsInches = 1
	UnitsMM     = 4
	UnitsCM     = 5
)

// FlattenTolerance is the largest distance, in the DXF's units, between a curve and the
// polyline that stands for it.
const FlattenTolerance = 0.005

// DXFLayer names the layer of a colour: "C-" and its hex RGB.
func DXFLayer(c color.NRGBA) string { return fmt.Sprintf("C-%02X%02X%02X", c.R, c.G, c.B) }

// aci returns the AutoCAD Colour Index nearest to c among the 9 basic colours and the
// grays, for readers that show a layer's colour by index (DXF R12 has no true colour).
func aci(c color.NRGBA) int {
	basic := []struct {
		i       int
		r, g, b float64
	}{{1, 255, 0, 0}, {2, 255, 255, 0}, {3, 0, 255, 0}, {4, 0, 255, 255}, {5, 0, 0, 255}, {6, 255, 0, 255}, {7, 255, 255, 255},
		{8, 128, 128, 128}, {9, 192, 192, 192}, {250, 51, 51, 51}, {251, 80, 80, 80}, {252, 105, 105, 105}, {253, 130, 130, 130},
		{254, 190, 190, 190}, {255, 255, 255, 255}}
	best, bestD := 7, math.Inf(1)
	for _, b := range basic {
		d := math.Pow(float64(c.R)-b.r, 2) + math.Pow(float64(c.G)-b.g, 2) + math.Pow(float64(c.B)-b.b, 2)
		if d < bestD {
			best, bestD = b.i, d
		}
	}
	if c.R < 40 && c.G < 40 && c.B < 40 {
		return 250
	}
	return best
}

// Polyline is one DXF polyline: its layer's colour, its points and whether it is closed.
type Polyline struct {
	Color  color.NRGBA
	Points []Point
	Closed bool
}

// Polylines flattens the document into the polylines of a DXF whose drawing is w x h
// units, y up: each subpath of a fill becomes a closed polyline of the fill's colour; a
// stroke becomes polylines of its colour too, unless it is the fill's colour (a tracer's
// gap filler, whose outline is the fill's). Curves are flattened within
// FlattenTolerance units.
func (d *Document) Polylines(w, h float64) []Polyline {
	sx, sy := w/d.Width, h/d.Height
	t := func(p Point) Point { return Point{sx * (p.X - d.MinX), h - sy*(p.Y-d.MinY)} }
	var out []Polyline
	for _, s := range d.Shapes {
		var c color.NRGBA
		closedAll := false
		switch {
		case s.Fill != nil:
			c, closedAll = *s.Fill, true
		case s.Stroke != nil:
			c = *s.Stroke
		}
		emit := func(c color.NRGBA, closedAll bool) {
			var cur *Polyline
			var last Point
			flush := func(closed bool) {
				if cur != nil && len(cur.Points) > 1 {
					cur.Closed = closed || closedAll
					if cur.Closed && len(cur.Points) > 2 && cur.Points[0] == cur.Points[len(cur.Points)-1] {
						cur.Points = cur.Points[:len(cur.Points)-1]
					}
					out = append(out, *cur)
				}
				cur = nil
			}
			for _, seg := range s.Path {
				switch seg.Op {
				case MoveTo:
					flush(false)
					last = t(seg.P[0])
					cur = &Polyline{Color: c, Points: []Point{last}}
				case LineTo:
					last = t(seg.P[0])
					cur.Points = append(cur.Points, last)
				case CubicTo:
					p1, p2, p3 := t(seg.P[0]), t(seg.P[1]), t(seg.P[2])
					cur.Points = append(cur.Points, flatten(last, p1, p2, p3, FlattenTolerance)...)
					last = p3
				case Close:
					if cur != nil {
						start := cur.Points[0]
						flush(true)
						cur, last = &Polyline{Color: c, Points: []Point{start}}, start
					}
				}
			}
			flush(false)
		}
		emit(c, closedAll)
		if s.Fill != nil && s.Stroke != nil && rgb(*s.Fill) != rgb(*s.Stroke) {
			emit(*s.Stroke, false)
		}
	}
	return out
}

func rgb(c color.NRGBA) color.NRGBA { c.A = 255; return c }

// flatten returns the points after p0 of the cubic p0..p3 as a polyline within tol: n
// segments of equal parameter steps keep the error under M/(8n²), M the bound 6·max of
// the second differences of the control points on the second derivative.
func flatten(p0, p1, p2, p3 Point, tol float64) []Point {
	dd := math.Max(math.Hypot(p0.X-2*p1.X+p2.X, p0.Y-2*p1.Y+p2.Y), math.Hypot(p1.X-2*p2.X+p3.X, p1.Y-2*p2.Y+p3.Y))
	n := int(math.Ceil(math.Sqrt(6 * dd / (8 * tol))))
	n = max(1, min(n, 10000))
	out := make([]Point, 0, n)
	for i := 1; i <= n; i++ {
		u := float64(i) / float64(n)
		v := 1 - u
		out = append(out, Point{
			v*v*v*p0.X + 3*v*v*u*p1.X + 3*v*u*u*p2.X + u*u*u*p3.X,
			v*v*v*p0.Y + 3*v*v*u*p1.Y + 3*v*u*u*p2.Y + u*u*u*p3.Y,
		})
	}
	out[n-1] = p3
	return out
}

// WriteDXF writes the document as an ASCII DXF (R12, AC1009, with $INSUNITS, which
// R2000 introduced and readers take from R12 files too) whose drawing is w x h units
// (units a $INSUNITS code), y up, origin at the bottom left: one layer per colour
// (see DXFLayer), one POLYLINE per outline (see Polylines).
func WriteDXF(out io.Writer, d *Document, w, h float64, units int) error {
	lines := d.Polylines(w, h)
	bw := bufio.NewWriter(out)
	pair := func(code int, v any) {
		if f, ok := v.(float64); ok {
			v = num(f)
		}
		fmt.Fprintf(bw, "%d\n%v\n", code, v)
	}
	layers := map[string]color.NRGBA{}
	for _, l := range lines {
		layers[DXFLayer(l.Color)] = l.Color
	}
	names := make([]string, 0, len(layers))
	for n := range layers {
		names = append(names, n)
	}
	sort.Strings(names)

	pair(0, "SECTION")
	pair(2, "HEADER")
	pair(9, "$ACADVER")
	pair(1, "AC1009")
	pair(9, "$INSUNITS")
	pair(70, units)
	pair(9, "$EXTMIN")
	pair(10, 0.0)
	pair(20, 0.0)
	pair(9, "$EXTMAX")
	pair(10, w)
	pair(20, h)
	pair(0, "ENDSEC")

	pair(0, "SECTION")
	pair(2, "TABLES")
	pair(0, "TABLE")
	pair(2, "LTYPE")
	pair(70, 1)
	pair(0, "LTYPE")
	pair(2, "CONTINUOUS")
	pair(70, 0)
	pair(3, "Solid line")
	pair(72, 65)
	pair(73, 0)
	pair(40, 0.0)
	pair(0, "ENDTAB")
	pair(0, "TABLE")
	pair(2, "LAYER")
	pair(70, len(names)+1)
	for _, n := range append([]string{"0"}, names...) {
		pair(0, "LAYER")
		pair(2, n)
		pair(70, 0)
		c := 7
		if n != "0" {
			c = aci(layers[n])
		}
		pair(62, c)
		pair(6, "CONTINUOUS")
	}
	pair(0, "ENDTAB")
	pair(0, "ENDSEC")

	pair(0, "SECTION")
	pair(2, "ENTITIES")
	for _, l := range lines {
		layer := DXFLayer(l.Color)
		pair(0, "POLYLINE")
		pair(8, layer)
		pair(66, 1)
		pair(10, 0.0)
		pair(20, 0.0)
		pair(30, 0.0)
		flags := 0
		if l.Closed {
			flags = 1
		}
		pair(70, flags)
		for _, p := range l.Points {
			pair(0, "VERTEX")
			pair(8, layer)
			pair(10, p.X)
			pair(20, p.Y)
			pair(30, 0.0)
		}
		pair(0, "SEQEND")
		pair(8, layer)
	}
	pair(0, "ENDSEC")
	pair(0, "EOF")
	return bw.Flush()
}
