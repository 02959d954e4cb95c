// Package svgraster renders the SVG documents tracecraft writes (paths with fill, stroke
// and opacity, in groups) with package render, so that tests can look at the pixels of an
// output without a browser or Node. It handles the subset tracecraft emits, not SVG in
// general: path data with M L H V C S Z (absolute and relative), fill, fill-opacity,
// stroke, stroke-opacity and stroke-width (inherited from <svg> and <g>), strokes with
// round joins and caps.
package svgraster

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/render"
	"github.com/tracecraft/tracecraft/sdk"
)

// Mode says how shapes are combined.
type Mode int

const (
	// Over paints each fill and stroke over what is below, as SVG renderers do; shapes
	// that abut show the background through anti-aliased seams.
	Over Mode = iota
	// Add sums the fills' coverage (strokes are ignored): cut-out shapes that share
	// edges then render exactly, without seams.
	Add
)

// style is the inherited presentation state.
type style struct {
	fill, stroke         string
	fillOp, strokeOp, sw float64
}

// Render draws doc on a w x h canvas in mode.
func Render(doc []byte, w, h int, mode Mode) (*render.Canvas, error) {
	c := render.NewCanvas(w, h)
	dec := xml.NewDecoder(bytes.NewReader(doc))
	stack := []style{{fill: "#000", stroke: "none", fillOp: 1, strokeOp: 1, sw: 1}}
	bounds := image.Rect(0, 0, w, h)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			st := stack[len(stack)-1]
			var d string
			for _, a := range t.Attr {
				switch a.Name.Local {
				case "fill":
					st.fill = a.Value
				case "stroke":
					st.stroke = a.Value
				case "fill-opacity":
					st.fillOp, _ = strconv.ParseFloat(a.Value, 64)
				case "stroke-opacity":
					st.strokeOp, _ = strconv.ParseFloat(a.Value, 64)
				case "stroke-width":
					st.sw, _ = strconv.ParseFloat(a.Value, 64)
				case "d":
					d = a.Value
				}
			}
			stack = append(stack, st)
			if t.Name.Local != "path" {
				continue
			}
			paths, closed, err := ParsePath(d)
			if err != nil {
				return nil, err
			}
			if pm, ok := paint(st.fill, st.fillOp); ok {
				if mode == Add {
					c.Add(paths, bounds, pm)
				} else {
					c.Over(paths, bounds, pm)
				}
			}
			if pm, ok := paint(st.stroke, st.strokeOp); ok && mode == Over {
				c.Over(Stroke(paths, closed, st.sw), bounds, pm)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	return c, nil
}

// paint returns a colour as premultiplied channels, false for "none".
func paint(s string, opacity float64) ([4]float32, bool) {
	if s == "" || s == "none" {
		return [4]float32{}, false
	}
	c, err := sdk.ParseColor(s)
	if err != nil {
		return [4]float32{}, false
	}
	a := float32(c.A) / 255 * float32(opacity)
	return [4]float32{float32(c.R) * a, float32(c.G) * a, float32(c.B) * a, 255 * a}, true
}

// ParsePath parses path data into subpaths, reporting for each whether it was closed.
func ParsePath(d string) ([]fit.Path, []bool, error) {
	nums := tokenize(d)
	var paths []fit.Path
	var closed []bool
	var cur, start, ctrl fit.Point
	var cmd byte
	hasCtrl := false
	i := 0
	next := func() (float64, error) {
		if i >= len(nums) || nums[i].cmd != 0 {
			return 0, fmt.Errorf("path data %q: number expected at token %d", d, i)
		}
		i++
		return nums[i-1].num, nil
	}
	for i < len(nums) {
		if nums[i].cmd != 0 {
			cmd = nums[i].cmd
			i++
			if cmd == 'Z' || cmd == 'z' {
				if len(paths) > 0 {
					closed[len(closed)-1] = true
				}
				cur, hasCtrl = start, false
				continue
			}
		} else if cmd == 'M' {
			cmd = 'L'
		} else if cmd == 'm' {
			cmd = 'l'
		}
		rel := cmd >= 'a'
		base := fit.Point{}
		if rel {
			base = cur
		}
		pt := func() (fit.Point, error) {
			x, err := next()
			if err != nil {
				return fit.Point{}, err
			}
			y, err := next()
			return fit.Point{X: base.X + x, Y: base.Y + y}, err
		}
		var err error
		switch cmd | 0x20 {
		case 'm':
			if cur, err = pt(); err != nil {
				return nil, nil, err
			}
			start = cur
			paths = append(paths, fit.Path{From: cur})
			closed = append(closed, false)
			hasCtrl = false
		case 'l':
			if cur, err = pt(); err != nil {
				return nil, nil, err
			}
			add(paths, fit.Segment{To: cur})
			hasCtrl = false
		case 'h', 'v':
			v, err := next()
			if err != nil {
				return nil, nil, err
			}
			if cmd|0x20 == 'h' {
				if rel {
					cur.X += v
				} else {
					cur.X = v
				}
			} else if rel {
				cur.Y += v
			} else {
				cur.Y = v
			}
			add(paths, fit.Segment{To: cur})
			hasCtrl = false
		case 'c', 's':
			c1 := cur
			if cmd|0x20 == 'c' {
				if c1, err = pt(); err != nil {
					return nil, nil, err
				}
			} else if hasCtrl {
				c1 = cur.Mul(2).Sub(ctrl)
			}
			c2, err := pt()
			if err != nil {
				return nil, nil, err
			}
			to, err := pt()
			if err != nil {
				return nil, nil, err
			}
			add(paths, fit.Segment{Cubic: true, C1: c1, C2: c2, To: to})
			cur, ctrl, hasCtrl = to, c2, true
		default:
			return nil, nil, fmt.Errorf("path data %q: unsupported command %c", d, cmd)
		}
	}
	return paths, closed, nil
}

func add(paths []fit.Path, s fit.Segment) {
	p := &paths[len(paths)-1]
	p.Segs = append(p.Segs, s)
}

type token struct {
	cmd byte
	num float64
}

// tokenize splits path data into command letters and numbers ("1.5.5-2" is 1.5 .5 -2).
func tokenize(d string) []token {
	var out []token
	i := 0
	for i < len(d) {
		c := d[i]
		switch {
		case c == ' ' || c == ',' || c == '\n' || c == '\t':
			i++
		case strings.IndexByte("MmLlHhVvCcSsZz", c) >= 0:
			out = append(out, token{cmd: c})
			i++
		default:
			j := i
			if d[j] == '-' || d[j] == '+' {
				j++
			}
			dot := false
			for j < len(d) && (d[j] >= '0' && d[j] <= '9' || d[j] == '.' && !dot) {
				if d[j] == '.' {
					dot = true
				}
				j++
			}
			v, _ := strconv.ParseFloat(d[i:j], 64)
			out = append(out, token{num: v})
			if j == i {
				j++
			}
			i = j
		}
	}
	return out
}

// Stroke returns closed polygons whose union is the stroke of paths, width wide, with
// round joins and caps: a rectangle along every flattened segment and a disc at every
// vertex, all wound the same way so that their union fills.
func Stroke(paths []fit.Path, closed []bool, width float64) []fit.Path {
	r := width / 2
	var out []fit.Path
	disc := func(c fit.Point) {
		const n = 16
		p := fit.Path{From: fit.Point{X: c.X + r, Y: c.Y}}
		for k := 1; k <= n; k++ {
			a := 2 * math.Pi * float64(k) / n
			p.Segs = append(p.Segs, fit.Segment{To: fit.Point{X: c.X + r*math.Cos(a), Y: c.Y + r*math.Sin(a)}})
		}
		out = append(out, p)
	}
	for pi, p := range paths {
		pts := flatten(p)
		if closed[pi] && len(pts) > 0 {
			pts = append(pts, p.From)
		}
		for k, a := range pts {
			disc(a)
			if k == 0 {
				continue
			}
			b := pts[k-1]
			d := a.Sub(b)
			if d.Len() == 0 {
				continue
			}
			n := fit.Normal(d).Mul(r)
			q := [4]fit.Point{b.Sub(n), a.Sub(n), a.Add(n), b.Add(n)}
			area := 0.0
			for k := range q {
				area += q[k].Cross(q[(k+1)%4])
			}
			if area < 0 { // wind like the discs, whose area is positive
				q[1], q[3] = q[3], q[1]
			}
			out = append(out, fit.Path{From: q[0], Segs: []fit.Segment{{To: q[1]}, {To: q[2]}, {To: q[3]}}})
		}
	}
	return out
}

// flatten returns the points of p with cubics cut into short lines.
func flatten(p fit.Path) []fit.Point {
	pts := []fit.Point{p.From}
	cur := p.From
	for _, s := range p.Segs {
		if s.Cubic {
			n := int(math.Ceil((s.C1.Sub(cur).Len() + s.C2.Sub(s.C1).Len() + s.To.Sub(s.C2).Len()) / 2))
			n = max(2, min(64, n))
			for k := 1; k <= n; k++ {
				pts = append(pts, s.Eval(cur, float64(k)/float64(n)))
			}
		} else {
			pts = append(pts, s.To)
		}
		cur = s.To
	}
	return pts
}

// OverBackground composites the canvas over an opaque background and returns 8-bit RGB pixels.
func OverBackground(c *render.Canvas, bg color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, c.Width, c.Height))
	for i := 0; i < c.Width*c.Height; i++ {
		p := c.Pix[4*i : 4*i+4]
		k := 1 - min(1, p[3]/255)
		u := func(v float32, b uint8) uint8 {
			f := v + k*float32(b)
			return uint8(max(0, min(255, f+0.5)))
		}
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = u(p[0], bg.R), u(p[1], bg.G), u(p[2], bg.B), 255
	}
	return img
}
