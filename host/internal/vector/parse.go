package vector

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/colornames"
)

// style is the inherited presentation state of an element.
type style struct {
	fill, stroke               paint
	fillOpacity, strokeOpacity float64
	fillRule                   FillRule
	strokeWidth                float64
	cap                        Cap
	join                       Join
	miterLimit                 float64
	color                      color.NRGBA
	visible                    bool
}

// paint is a fill or stroke value: none, a colour or currentColor.
type paint struct {
	none, current bool
	c             color.NRGBA
}

var initialStyle = style{
	fill: paint{c: color.NRGBA{0, 0, 0, 255}}, stroke: paint{none: true},
	fillOpacity: 1, strokeOpacity: 1, strokeWidth: 1, miterLimit: 4,
	color: color.NRGBA{0, 0, 0, 255}, visible: true,
}

// frame is an open element: its style, its transform, its group opacity and whether it
// draws (display:none hides it and its children).
type frame struct {
	st      style
	m       matrix
	opacity float64
	hidden  bool
}

// Parse reads an SVG document (one that passed sdk/svg.Check) into a Document. Elements
// other than the drawing ones (title, desc) are skipped. An element's group opacity is
// folded into its fill's and stroke's alpha, and so are its groups': exact where fill
// and stroke of one element and the shapes of one group do not overlap, which is how
// tracers draw.
func Parse(data []byte) (*Document, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	doc := &Document{}
	var stack []frame
	rootSeen := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("the SVG cannot be parsed: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			parent := frame{st: initialStyle, m: identity, opacity: 1}
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			attrs := attributes(t)
			f := frame{st: parent.st, m: parent.m, opacity: parent.opacity, hidden: parent.hidden}
			if err := f.apply(attrs); err != nil {
				return nil, fmt.Errorf("<%s>: %w", t.Name.Local, err)
			}
			name := t.Name.Local
			if name == "svg" && !rootSeen {
				rootSeen = true
				if err := doc.root(attrs); err != nil {
					return nil, err
				}
			}
			stack = append(stack, f)
			if f.hidden {
				continue
			}
			if tr, ok := attrs["transform"]; ok && name != "svg" {
				m, err := parseTransform(tr)
				if err != nil {
					return nil, fmt.Errorf("<%s transform>: %w", name, err)
				}
				stack[len(stack)-1].m = f.m.mul(m)
				f.m = stack[len(stack)-1].m
			}
			path, err := outline(name, attrs)
			if err != nil {
				return nil, fmt.Errorf("<%s>: %w", name, err)
			}
			if path == nil || !f.st.visible {
				continue
			}
			if name == "line" || name == "polyline" {
				f.st.fill = paint{none: true}
			}
			if s, ok := f.shape(path); ok {
				doc.Shapes = append(doc.Shapes, s)
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if !rootSeen {
		return nil, errors.New("the document has no <svg> element")
	}
	return doc, nil
}

func attributes(t xml.StartElement) map[string]string {
	m := make(map[string]string, len(t.Attr))
	for _, a := range t.Attr {
		if a.Name.Space == "" || a.Name.Space == "http://www.w3.org/2000/svg" {
			m[a.Name.Local] = a.Value
		}
	}
	// Declarations in style override the presentation attributes.
	if s, ok := m["style"]; ok {
		for _, decl := range strings.Split(s, ";") {
			k, v, ok := strings.Cut(decl, ":")
			if !ok {
				continue
			}
			m[strings.TrimSpace(k)] = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
		}
	}
	return m
}

// root reads the svg element's viewBox, or its width and height.
func (d *Document) root(attrs map[string]string) error {
	if vb, ok := attrs["viewBox"]; ok {
		n, err := numbers(vb)
		if err != nil || len(n) != 4 || n[2] <= 0 || n[3] <= 0 {
			return fmt.Errorf("the viewBox %q is not four numbers with a positive size", vb)
		}
		d.MinX, d.MinY, d.Width, d.Height = n[0], n[1], n[2], n[3]
		return nil
	}
	w, errW := strconv.ParseFloat(strings.TrimSuffix(attrs["width"], "px"), 64)
	h, errH := strconv.ParseFloat(strings.TrimSuffix(attrs["height"], "px"), 64)
	if errW != nil || errH != nil || w <= 0 || h <= 0 {
		return errors.New("the root has neither a viewBox nor a width and height in pixels")
	}
	d.Width, d.Height = w, h
	return nil
}

// apply sets the element's own presentation attributes on the inherited state.
func (f *frame) apply(a map[string]string) error {
	st := &f.st
	if v, ok := a["color"]; ok && v != "inherit" {
		c, err := parseColor(v, st.color)
		if err != nil {
			return err
		}
		st.color = c
	}
	for _, k := range []string{"fill", "stroke"} {
		v, ok := a[k]
		if !ok || v == "inherit" {
			continue
		}
		p, err := parsePaint(v, st.color)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		if k == "fill" {
			st.fill = p
		} else {
			st.stroke = p
		}
	}
	num := func(k string, dst *float64, lo, hi float64) error {
		v, ok := a[k]
		if !ok || v == "inherit" {
			return nil
		}
		pct := strings.HasSuffix(v, "%")
		x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(v), "%"), "px"), 64)
		if err != nil {
			return fmt.Errorf("%s=%q is not a number", k, v)
		}
		if pct {
			x /= 100
		}
		*dst = math.Max(lo, math.Min(hi, x))
		return nil
	}
	for _, n := range []struct {
		k      string
		dst    *float64
		lo, hi float64
	}{
		{"fill-opacity", &st.fillOpacity, 0, 1}, {"stroke-opacity", &st.strokeOpacity, 0, 1},
		{"stroke-width", &st.strokeWidth, 0, math.Inf(1)}, {"stroke-miterlimit", &st.miterLimit, 1, math.Inf(1)},
	} {
		if err := num(n.k, n.dst, n.lo, n.hi); err != nil {
			return err
		}
	}
	op := 1.0
	if err := num("opacity", &op, 0, 1); err != nil {
		return err
	}
	f.opacity *= op
	switch a["fill-rule"] {
	case "evenodd":
		st.fillRule = EvenOdd
	case "nonzero":
		st.fillRule = NonZero
	}
	switch a["stroke-linecap"] {
	case "butt":
		st.cap = ButtCap
	case "round":
		st.cap = RoundCap
	case "square":
		st.cap = SquareCap
	}
	switch a["stroke-linejoin"] {
	case "miter", "miter-clip", "arcs":
		st.join = MiterJoin
	case "round":
		st.join = RoundJoin
	case "bevel":
		st.join = BevelJoin
	}
	switch a["visibility"] {
	case "hidden", "collapse":
		st.visible = false
	case "visible":
		st.visible = true
	}
	if a["display"] == "none" {
		f.hidden = true
	}
	return nil
}

// shape makes the element's Shape from its outline in its own coordinates.
func (f frame) shape(path []Segment) (Shape, bool) {
	s := Shape{FillRule: f.st.fillRule, Cap: f.st.cap, Join: f.st.join, MiterLimit: f.st.miterLimit}
	for i := range path {
		for j := range path[i].P {
			path[i].P[j] = f.m.apply(path[i].P[j])
		}
	}
	s.Path = path
	resolve := func(p paint, opacity float64) *color.NRGBA {
		if p.none {
			return nil
		}
		c := p.c
		if p.current {
			c = f.st.color
		}
		c.A = uint8(math.Round(float64(c.A) * opacity * f.opacity))
		if c.A == 0 {
			return nil
		}
		return &c
	}
	s.Fill = resolve(f.st.fill, f.st.fillOpacity)
	s.Stroke = resolve(f.st.stroke, f.st.strokeOpacity)
	s.StrokeWidth = f.st.strokeWidth * math.Sqrt(math.Abs(f.m.a*f.m.d-f.m.b*f.m.c))
	if s.StrokeWidth <= 0 {
		s.Stroke = nil
	}
	return s, s.Fill != nil || s.Stroke != nil
}

func parsePaint(v string, current color.NRGBA) (paint, error) {
	v = strings.TrimSpace(v)
	switch v {
	case "none", "transparent":
		return paint{none: true}, nil
	case "currentColor", "currentcolor":
		return paint{current: true}, nil
	}
	if strings.HasPrefix(v, "url(") {
		// A reference to a paint server: no element Check allows is one, so nothing is
		// painted, as a renderer does with a missing reference and no fallback.
		if _, fb, ok := strings.Cut(v, ")"); ok && strings.TrimSpace(fb) != "" {
			return parsePaint(fb, current)
		}
		return paint{none: true}, nil
	}
	c, err := parseColor(v, current)
	return paint{c: c}, err
}

// parseColor reads a CSS colour: #rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/rgba() with
// numbers or percentages, or a CSS colour name.
func parseColor(v string, current color.NRGBA) (color.NRGBA, error) {
	v = strings.TrimSpace(v)
	bad := fmt.Errorf("%q is not a colour", v)
	if strings.HasPrefix(v, "#") {
		h := v[1:]
		if len(h) == 3 || len(h) == 4 {
			var b strings.Builder
			for _, r := range h {
				b.WriteRune(r)
				b.WriteRune(r)
			}
			h = b.String()
		}
		if len(h) != 6 && len(h) != 8 {
			return color.NRGBA{}, bad
		}
		n, err := strconv.ParseUint(h, 16, 32)
		if err != nil {
			return color.NRGBA{}, bad
		}
		if len(h) == 6 {
			n = n<<8 | 0xff
		}
		return color.NRGBA{uint8(n >> 24), uint8(n >> 16), uint8(n >> 8), uint8(n)}, nil
	}
	lower := strings.ToLower(v)
	if strings.HasPrefix(lower, "rgb(") || strings.HasPrefix(lower, "rgba(") {
		inner := v[strings.IndexByte(v, '(')+1:]
		if !strings.HasSuffix(inner, ")") {
			return color.NRGBA{}, bad
		}
		parts := strings.FieldsFunc(strings.TrimSuffix(inner, ")"), func(r rune) bool { return r == ',' || r == ' ' || r == '/' })
		if len(parts) != 3 && len(parts) != 4 {
			return color.NRGBA{}, bad
		}
		var ch [4]uint8
		ch[3] = 255
		for i, p := range parts {
			scale := 255.0
			if i == 3 {
				scale = 1
			}
			if strings.HasSuffix(p, "%") {
				p, scale = strings.TrimSuffix(p, "%"), 255.0/100
				if i == 3 {
					scale = 1.0 / 100
				}
			} else if i < 3 {
				scale = 1
			}
			x, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return color.NRGBA{}, bad
			}
			x *= scale
			if i == 3 {
				x *= 255
			}
			ch[i] = uint8(math.Round(math.Max(0, math.Min(255, x))))
		}
		return color.NRGBA{ch[0], ch[1], ch[2], ch[3]}, nil
	}
	if lower == "currentcolor" {
		return current, nil
	}
	if c, ok := colornames.Map[lower]; ok {
		return color.NRGBA(c), nil
	}
	return color.NRGBA{}, bad
}

// length reads a length attribute in user units (px or no unit); absent is def.
func length(a map[string]string, k string, def float64) (float64, error) {
	v, ok := a[k]
	if !ok {
		return def, nil
	}
	x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "px"), 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a length in user units", k, v)
	}
	return x, nil
}

// kappa is the distance of a cubic Bézier's control points from its ends that draws a
// quarter circle of radius 1 closely (4/3·(√2−1)).
const kappa = 0.5522847498307936

// outline returns the outline of a drawing element in its own coordinates, nil for an
// element that draws nothing (a group, a zero-size shape).
func outline(name string, a map[string]string) ([]Segment, error) {
	var errs []error
	get := func(k string, def float64) float64 {
		v, err := length(a, k, def)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	var p []Segment
	switch name {
	case "path":
		d, err := parsePathData(a["d"])
		if err != nil {
			return nil, err
		}
		p = d
	case "rect":
		x, y, w, h := get("x", 0), get("y", 0), get("width", 0), get("height", 0)
		_, hasRx := a["rx"]
		_, hasRy := a["ry"]
		rx, ry := get("rx", 0), get("ry", 0)
		if !hasRx {
			rx = ry
		}
		if !hasRy {
			ry = rx
		}
		rx, ry = math.Min(math.Max(rx, 0), w/2), math.Min(math.Max(ry, 0), h/2)
		if w <= 0 || h <= 0 {
			break
		}
		if rx == 0 || ry == 0 {
			p = polygon([]Point{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}}, true)
			break
		}
		kx, ky := rx*kappa, ry*kappa
		p = []Segment{
			{Op: MoveTo, P: [3]Point{{x + rx, y}}},
			{Op: LineTo, P: [3]Point{{x + w - rx, y}}},
			{Op: CubicTo, P: [3]Point{{x + w - rx + kx, y}, {x + w, y + ry - ky}, {x + w, y + ry}}},
			{Op: LineTo, P: [3]Point{{x + w, y + h - ry}}},
			{Op: CubicTo, P: [3]Point{{x + w, y + h - ry + ky}, {x + w - rx + kx, y + h}, {x + w - rx, y + h}}},
			{Op: LineTo, P: [3]Point{{x + rx, y + h}}},
			{Op: CubicTo, P: [3]Point{{x + rx - kx, y + h}, {x, y + h - ry + ky}, {x, y + h - ry}}},
			{Op: LineTo, P: [3]Point{{x, y + ry}}},
			{Op: CubicTo, P: [3]Point{{x, y + ry - ky}, {x + rx - kx, y}, {x + rx, y}}},
			{Op: Close},
		}
	case "circle", "ellipse":
		cx, cy := get("cx", 0), get("cy", 0)
		var rx, ry float64
		if name == "circle" {
			rx = get("r", 0)
			ry = rx
		} else {
			rx, ry = get("rx", 0), get("ry", 0)
			if _, ok := a["rx"]; !ok {
				rx = ry
			}
			if _, ok := a["ry"]; !ok {
				ry = rx
			}
		}
		if rx <= 0 || ry <= 0 {
			break
		}
		p = ellipse(cx, cy, rx, ry)
	case "line":
		p = []Segment{{Op: MoveTo, P: [3]Point{{get("x1", 0), get("y1", 0)}}}, {Op: LineTo, P: [3]Point{{get("x2", 0), get("y2", 0)}}}}
	case "polyline", "polygon":
		n, err := numbers(a["points"])
		if err != nil {
			return nil, fmt.Errorf("points: %w", err)
		}
		var pts []Point
		for i := 0; i+1 < len(n); i += 2 {
			pts = append(pts, Point{n[i], n[i+1]})
		}
		if len(pts) > 0 {
			p = polygon(pts, name == "polygon")
		}
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return p, nil
}

func polygon(pts []Point, closed bool) []Segment {
	p := make([]Segment, 0, len(pts)+1)
	p = append(p, Segment{Op: MoveTo, P: [3]Point{pts[0]}})
	for _, q := range pts[1:] {
		p = append(p, Segment{Op: LineTo, P: [3]Point{q}})
	}
	if closed {
		p = append(p, Segment{Op: Close})
	}
	return p
}

// ellipse draws an ellipse clockwise (in SVG's y-down space) from its rightmost point,
// as four cubic quarter arcs.
func ellipse(cx, cy, rx, ry float64) []Segment {
	kx, ky := rx*kappa, ry*kappa
	return []Segment{
		{Op: MoveTo, P: [3]Point{{cx + rx, cy}}},
		{Op: CubicTo, P: [3]Point{{cx + rx, cy + ky}, {cx + kx, cy + ry}, {cx, cy + ry}}},
		{Op: CubicTo, P: [3]Point{{cx - kx, cy + ry}, {cx - rx, cy + ky}, {cx - rx, cy}}},
		{Op: CubicTo, P: [3]Point{{cx - rx, cy - ky}, {cx - kx, cy - ry}, {cx, cy - ry}}},
		{Op: CubicTo, P: [3]Point{{cx + kx, cy - ry}, {cx + rx, cy - ky}, {cx + rx, cy}}},
		{Op: Close},
	}
}

// numbers reads a list of numbers separated by white space and/or commas.
func numbers(s string) ([]float64, error) {
	var out []float64
	sc := scanner{s: s}
	for {
		sc.skipSep()
		if sc.done() {
			return out, nil
		}
		x, err := sc.number()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
}
