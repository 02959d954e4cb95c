package primitive

import (
	"math"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Precision is the number of decimals of positions and sizes written; angles get one
// more on shapes large enough for a hundredth of a degree to matter.
const Precision = 1

// arcShrink is how much shorter (pixels) than the ellipse's radius along the chord the
// radii of a subpath's half-ellipses are written: more than the rounding of the chord
// and of the radius together can make up.
const arcShrink = 0.25

// angleDecimals returns the decimals an angle of the shape needs: its far end may move
// by at most about 0.05 px.
func (s Shape) angleDecimals() int {
	ext := math.Max(math.Max(s.W, s.H), 2*math.Max(s.RX, s.RY))
	if ext*math.Pi/180*0.05 > 0.1 {
		return 2
	}
	return 1
}

// num appends v to dst with the given decimals, preceded by a space unless dst ends with
// a separator or v is negative.
func num(dst []byte, v float64, prec int) []byte {
	if n := len(dst); n > 0 {
		c := dst[n-1]
		if c != ' ' && c != '"' && c != '(' && !(v < 0 && svg.Quantize(v, prec) != 0) {
			dst = append(dst, ' ')
		}
	}
	return svg.AppendNum(dst, v, prec)
}

// attr appends ` name="v"` unless v rounds to 0 and zeroOK.
func attr(dst []byte, name string, v float64, zeroOK bool) []byte {
	if zeroOK && svg.Quantize(v, Precision) == 0 {
		return dst
	}
	dst = append(dst, ' ')
	dst = append(dst, name...)
	dst = append(dst, `="`...)
	dst = svg.AppendNum(dst, v, Precision)
	return append(dst, '"')
}

// rotated reports whether the shape is written with a rotation.
func (s Shape) rotated() bool {
	return svg.Quantize(s.Angle, s.angleDecimals()) != 0
}

// transform appends a transform moving the origin to the centre and rotating.
func (s Shape) transform(dst []byte) []byte {
	dst = append(dst, ` transform="translate(`...)
	dst = svg.AppendNum(dst, s.Center.X, Precision)
	dst = num(dst, s.Center.Y, Precision)
	dst = append(dst, ")rotate("...)
	dst = svg.AppendNum(dst, s.Angle, s.angleDecimals())
	return append(dst, `)"`...)
}

// AppendElement appends the shape as an SVG element whose other attributes (paint) are
// attrs, verbatim (empty, or starting with a space).
func (s Shape) AppendElement(dst []byte, attrs string) []byte {
	switch s.Kind {
	case Circle:
		dst = append(dst, "<circle"...)
		dst = attr(dst, "cx", s.Center.X, true)
		dst = attr(dst, "cy", s.Center.Y, true)
		dst = attr(dst, "r", s.R, false)
	case Ellipse:
		e := s.axisAligned()
		dst = append(dst, "<ellipse"...)
		if e.rotated() {
			dst = e.transform(dst)
		} else {
			dst = attr(dst, "cx", e.Center.X, true)
			dst = attr(dst, "cy", e.Center.Y, true)
		}
		dst = attr(dst, "rx", e.RX, false)
		dst = attr(dst, "ry", e.RY, false)
	case Rect:
		dst = append(dst, "<rect"...)
		if s.rotated() {
			dst = s.transform(dst)
			dst = attr(dst, "x", -s.W/2, true)
			dst = attr(dst, "y", -s.H/2, true)
		} else {
			dst = attr(dst, "x", s.Center.X-s.W/2, true)
			dst = attr(dst, "y", s.Center.Y-s.H/2, true)
		}
		dst = attr(dst, "width", s.W, false)
		dst = attr(dst, "height", s.H, false)
		dst = attr(dst, "rx", s.R, true)
	default:
		return dst
	}
	dst = append(dst, attrs...)
	return append(dst, "/>"...)
}

// axisAligned returns an ellipse turned by a quarter turn when that makes its angle
// smaller, so that an ellipse near 90 degrees is written without a rotation.
func (s Shape) axisAligned() Shape {
	if s.Kind == Ellipse && math.Abs(s.Angle) > 45 {
		s.RX, s.RY = s.RY, s.RX
		if s.Angle > 0 {
			s.Angle -= 90
		} else {
			s.Angle += 90
		}
	}
	return s
}

// AppendSubpath appends the shape's outline as a closed subpath of absolute commands,
// clockwise on screen when clockwise is set, for path data that holds other subpaths
// too (a shape with holes). dst may hold earlier subpaths; the subpath starts with M.
func (s Shape) AppendSubpath(dst []byte, clockwise bool) []byte {
	sweep := 0.0
	if clockwise {
		sweep = 1
	}
	switch s.Kind {
	case Circle, Ellipse:
		rx, ry := s.R, s.R
		angle := 0.0
		if s.Kind == Ellipse {
			rx, ry, angle = s.RX, s.RY, s.Angle
		}
		sin, cos := math.Sincos(angle * math.Pi / 180)
		a := fit.Point{X: s.Center.X + rx*cos, Y: s.Center.Y + rx*sin}
		b := fit.Point{X: s.Center.X - rx*cos, Y: s.Center.Y - rx*sin}
		// The two half-ellipses run between opposite ends of the major axis. Once
		// rounded, those ends may lie closer than the diameter, and a half-ellipse
		// over a chord a little short of it is far off: its centre moves by about
		// √(r·shortfall). The radii are written a little short instead, and
		// renderers scale radii that cannot span the chord up until they do
		// (SVG 2, "out-of-range radii"), which puts both halves exactly through the
		// written ends.
		k := math.Max(rx-arcShrink, rx/2) / rx
		wrx, wry := rx*k, ry*k
		dst = append(dst, 'M')
		dst = svg.AppendNum(dst, a.X, Precision)
		dst = num(dst, a.Y, Precision)
		for _, to := range []fit.Point{b, a} {
			dst = append(dst, 'A')
			dst = svg.AppendNum(dst, wrx, Precision)
			dst = num(dst, wry, Precision)
			dst = num(dst, angle, s.angleDecimals())
			dst = append(dst, " 0"...)
			dst = num(dst, sweep, 0)
			dst = num(dst, to.X, Precision)
			dst = num(dst, to.Y, Precision)
		}
		return append(dst, 'Z')
	case Rect:
		hw, hh, r := s.W/2, s.H/2, s.R
		if svg.Quantize(r, Precision) == 0 {
			r = 0
		}
		// Clockwise on screen: the top side left to right, the corner arc, the right
		// side down, and so on; segment i runs from pts[i] to pts[i+1], a side when i
		// is even, a corner arc when i is odd.
		local := [8]fit.Point{
			{X: -hw + r, Y: -hh}, {X: hw - r, Y: -hh}, {X: hw, Y: -hh + r}, {X: hw, Y: hh - r},
			{X: hw - r, Y: hh}, {X: -hw + r, Y: hh}, {X: -hw, Y: hh - r}, {X: -hw, Y: -hh + r},
		}
		sin, cos := math.Sincos(s.Angle * math.Pi / 180)
		var pts [8]fit.Point
		for i, p := range local {
			pts[i] = fit.Point{X: s.Center.X + p.X*cos - p.Y*sin, Y: s.Center.Y + p.X*sin + p.Y*cos}
		}
		dst = append(dst, 'M')
		dst = svg.AppendNum(dst, pts[0].X, Precision)
		dst = num(dst, pts[0].Y, Precision)
		for k := 1; k <= 8; k++ {
			// The k-th point visited and the segment that reaches it.
			to, seg := k%8, k-1
			if !clockwise {
				to, seg = (8-k)%8, 8-k
			}
			if seg%2 == 1 {
				if r == 0 {
					continue
				}
				dst = append(dst, 'A')
				dst = svg.AppendNum(dst, r, Precision)
				dst = num(dst, r, Precision)
				dst = append(dst, " 0 0"...)
				dst = num(dst, sweep, 0)
			} else {
				if k == 8 {
					break // the close draws the last side
				}
				dst = append(dst, 'L')
				dst = svg.AppendNum(dst, pts[to].X, Precision)
				dst = num(dst, pts[to].Y, Precision)
				continue
			}
			dst = num(dst, pts[to].X, Precision)
			dst = num(dst, pts[to].Y, Precision)
		}
		return append(dst, 'Z')
	}
	return dst
}
