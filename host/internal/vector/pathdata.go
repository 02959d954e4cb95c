package vector

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// scanner reads the numbers and letters of path data and transform lists.
type scanner struct {
	s string
	i int
}

func (sc *scanner) done() bool { return sc.i >= len(sc.s) }

func (sc *scanner) skipSpace() {
	for sc.i < len(sc.s) && strings.IndexByte(" \t\r\n\f", sc.s[sc.i]) >= 0 {
		sc.i++
	}
}

// skipSep skips white space and at most one comma.
func (sc *scanner) skipSep() {
	sc.skipSpace()
	if sc.i < len(sc.s) && sc.s[sc.i] == ',' {
		sc.i++
		sc.skipSpace()
	}
}

// number reads a number: sign, digits, fraction, exponent (".5.5" is two numbers).
func (sc *scanner) number() (float64, error) {
	start := sc.i
	j := sc.i
	if j < len(sc.s) && (sc.s[j] == '+' || sc.s[j] == '-') {
		j++
	}
	digits := false
	for j < len(sc.s) && sc.s[j] >= '0' && sc.s[j] <= '9' {
		j, digits = j+1, true
	}
	if j < len(sc.s) && sc.s[j] == '.' {
		j++
		for j < len(sc.s) && sc.s[j] >= '0' && sc.s[j] <= '9' {
			j, digits = j+1, true
		}
	}
	if !digits {
		return 0, fmt.Errorf("a number is expected at %q", clip(sc.s[start:]))
	}
	if j < len(sc.s) && (sc.s[j] == 'e' || sc.s[j] == 'E') {
		k := j + 1
		if k < len(sc.s) && (sc.s[k] == '+' || sc.s[k] == '-') {
			k++
		}
		if k < len(sc.s) && sc.s[k] >= '0' && sc.s[k] <= '9' {
			for k < len(sc.s) && sc.s[k] >= '0' && sc.s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	x, err := strconv.ParseFloat(sc.s[start:j], 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a finite number", sc.s[start:j])
	}
	sc.i = j
	return x, nil
}

// flag reads an arc flag: 0 or 1, which need no separator after them.
func (sc *scanner) flag() (bool, error) {
	sc.skipSep()
	if sc.i < len(sc.s) && (sc.s[sc.i] == '0' || sc.s[sc.i] == '1') {
		sc.i++
		return sc.s[sc.i-1] == '1', nil
	}
	return false, fmt.Errorf("an arc flag (0 or 1) is expected at %q", clip(sc.s[sc.i:]))
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}

// parsePathData reads SVG path data into absolute MoveTo, LineTo, CubicTo and Close
// segments: quadratic curves are raised to cubics and elliptical arcs are drawn with a
// cubic per quarter turn at most.
func parsePathData(d string) ([]Segment, error) {
	sc := scanner{s: d}
	var out []Segment
	var cur, start, lastCtrl Point
	var cmd, prev byte
	nums := func(n int) ([]float64, error) {
		v := make([]float64, n)
		for i := range v {
			sc.skipSep()
			x, err := sc.number()
			if err != nil {
				return nil, err
			}
			v[i] = x
		}
		return v, nil
	}
	for {
		sc.skipSpace()
		if sc.done() {
			return out, nil
		}
		c := sc.s[sc.i]
		if strings.IndexByte("MmLlHhVvCcSsQqTtAaZz", c) >= 0 {
			cmd = c
			sc.i++
		} else if cmd == 0 {
			return nil, fmt.Errorf("path data must start with a command, not %q", clip(sc.s[sc.i:]))
		} else if cmd == 'Z' || cmd == 'z' {
			return nil, fmt.Errorf("numbers after Z at %q", clip(sc.s[sc.i:]))
		}
		rel := cmd >= 'a'
		abs := func(x, y float64) Point {
			if rel {
				return Point{cur.X + x, cur.Y + y}
			}
			return Point{x, y}
		}
		upper := cmd &^ 0x20
		var ctrl Point
		switch upper {
		case 'Z':
			out = append(out, Segment{Op: Close})
			cur = start
		case 'M', 'L', 'T':
			v, err := nums(2)
			if err != nil {
				return nil, err
			}
			p := abs(v[0], v[1])
			switch upper {
			case 'M':
				out = append(out, Segment{Op: MoveTo, P: [3]Point{p}})
				start = p
				// Further pairs are implicit line-tos.
				if rel {
					cmd = 'l'
				} else {
					cmd = 'L'
				}
			case 'L':
				out = append(out, Segment{Op: LineTo, P: [3]Point{p}})
			case 'T':
				q := cur
				if pu := prev &^ 0x20; pu == 'Q' || pu == 'T' {
					q = Point{2*cur.X - lastCtrl.X, 2*cur.Y - lastCtrl.Y}
				}
				out = append(out, quad(cur, q, p))
				ctrl = q
			}
			cur = p
		case 'H', 'V':
			v, err := nums(1)
			if err != nil {
				return nil, err
			}
			p := cur
			switch {
			case upper == 'H' && rel:
				p.X += v[0]
			case upper == 'H':
				p.X = v[0]
			case rel:
				p.Y += v[0]
			default:
				p.Y = v[0]
			}
			out = append(out, Segment{Op: LineTo, P: [3]Point{p}})
			cur = p
		case 'C', 'S':
			n := 6
			if upper == 'S' {
				n = 4
			}
			v, err := nums(n)
			if err != nil {
				return nil, err
			}
			var c1 Point
			if upper == 'C' {
				c1, v = abs(v[0], v[1]), v[2:]
			} else {
				c1 = cur
				if pu := prev &^ 0x20; pu == 'C' || pu == 'S' {
					c1 = Point{2*cur.X - lastCtrl.X, 2*cur.Y - lastCtrl.Y}
				}
			}
			c2, p := abs(v[0], v[1]), abs(v[2], v[3])
			out = append(out, Segment{Op: CubicTo, P: [3]Point{c1, c2, p}})
			ctrl, cur = c2, p
		case 'Q':
			v, err := nums(4)
			if err != nil {
				return nil, err
			}
			q, p := abs(v[0], v[1]), abs(v[2], v[3])
			out = append(out, quad(cur, q, p))
			ctrl, cur = q, p
		case 'A':
			v, err := nums(3)
			if err != nil {
				return nil, err
			}
			large, err := sc.flag()
			if err != nil {
				return nil, err
			}
			sweep, err := sc.flag()
			if err != nil {
				return nil, err
			}
			e, err := nums(2)
			if err != nil {
				return nil, err
			}
			p := abs(e[0], e[1])
			out = append(out, arc(cur, v[0], v[1], v[2], large, sweep, p)...)
			cur = p
		}
		if len(out) > 0 && out[0].Op != MoveTo {
			return nil, fmt.Errorf("path data must start with M or m")
		}
		lastCtrl, prev = ctrl, cmd
		sc.skipSep()
	}
}

// quad raises the quadratic Bézier p0, q, p to a cubic.
func quad(p0, q, p Point) Segment {
	return Segment{Op: CubicTo, P: [3]Point{
		{p0.X + 2.0/3*(q.X-p0.X), p0.Y + 2.0/3*(q.Y-p0.Y)},
		{p.X + 2.0/3*(q.X-p.X), p.Y + 2.0/3*(q.Y-p.Y)},
		p,
	}}
}

// arc draws the SVG elliptical arc from p0 to p (SVG 1.1 appendix F.6: endpoint to
// centre parameterisation, radii scaled up when too small) as cubics of at most a
// quarter turn each.
func arc(p0 Point, rx, ry, phiDeg float64, large, sweep bool, p Point) []Segment {
	if p0 == p {
		return nil
	}
	rx, ry = math.Abs(rx), math.Abs(ry)
	if rx == 0 || ry == 0 {
		return []Segment{{Op: LineTo, P: [3]Point{p}}}
	}
	phi := phiDeg * math.Pi / 180
	sin, cos := math.Sincos(phi)
	dx, dy := (p0.X-p.X)/2, (p0.Y-p.Y)/2
	x1 := cos*dx + sin*dy
	y1 := -sin*dx + cos*dy
	if l := x1*x1/(rx*rx) + y1*y1/(ry*ry); l > 1 {
		s := math.Sqrt(l)
		rx, ry = rx*s, ry*s
	}
	num := rx*rx*ry*ry - rx*rx*y1*y1 - ry*ry*x1*x1
	den := rx*rx*y1*y1 + ry*ry*x1*x1
	co := math.Sqrt(math.Max(0, num/den))
	if large == sweep {
		co = -co
	}
	cx1, cy1 := co*rx*y1/ry, -co*ry*x1/rx
	cx := cos*cx1 - sin*cy1 + (p0.X+p.X)/2
	cy := sin*cx1 + cos*cy1 + (p0.Y+p.Y)/2
	angle := func(ux, uy, vx, vy float64) float64 {
		return math.Atan2(ux*vy-uy*vx, ux*vx+uy*vy)
	}
	t1 := angle(1, 0, (x1-cx1)/rx, (y1-cy1)/ry)
	dt := angle((x1-cx1)/rx, (y1-cy1)/ry, (-x1-cx1)/rx, (-y1-cy1)/ry)
	if !sweep && dt > 0 {
		dt -= 2 * math.Pi
	} else if sweep && dt < 0 {
		dt += 2 * math.Pi
	}
	n := int(math.Ceil(math.Abs(dt)/(math.Pi/2) - 1e-9))
	if n < 1 {
		n = 1
	}
	step := dt / float64(n)
	k := 4.0 / 3 * math.Tan(step/4)
	pt := func(t float64) (Point, Point) { // the point and the derivative direction
		st, ct := math.Sincos(t)
		x, y := rx*ct, ry*st
		tx, ty := -rx*st, ry*ct
		return Point{cos*x - sin*y + cx, sin*x + cos*y + cy}, Point{cos*tx - sin*ty, sin*tx + cos*ty}
	}
	out := make([]Segment, 0, n)
	a, da := pt(t1)
	for i := 1; i <= n; i++ {
		t := t1 + step*float64(i)
		b, db := pt(t)
		if i == n {
			b = p
		}
		out = append(out, Segment{Op: CubicTo, P: [3]Point{
			{a.X + k*da.X, a.Y + k*da.Y}, {b.X - k*db.X, b.Y - k*db.Y}, b}})
		a, da = b, db
	}
	return out
}

// matrix is an affine transform [a c e; b d f].
type matrix struct{ a, b, c, d, e, f float64 }

var identity = matrix{a: 1, d: 1}

// mul returns m·n: n applied first.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m matrix) apply(p Point) Point {
	return Point{m.a*p.X + m.c*p.Y + m.e, m.b*p.X + m.d*p.Y + m.f}
}

// parseTransform reads an SVG transform list.
func parseTransform(s string) (matrix, error) {
	m := identity
	rest := strings.TrimSpace(s)
	for rest != "" {
		name, args, ok := strings.Cut(rest, "(")
		if !ok {
			return m, fmt.Errorf("%q is not a transform list", clip(s))
		}
		inner, after, ok := strings.Cut(args, ")")
		if !ok {
			return m, fmt.Errorf("%q is not a transform list", clip(s))
		}
		v, err := numbers(inner)
		if err != nil {
			return m, err
		}
		name = strings.TrimSpace(name)
		var t matrix
		bad := fmt.Errorf("%s takes other arguments than %q", name, inner)
		switch {
		case name == "matrix" && len(v) == 6:
			t = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}
		case name == "translate" && (len(v) == 1 || len(v) == 2):
			v = append(v, 0)
			t = matrix{a: 1, d: 1, e: v[0], f: v[1]}
		case name == "scale" && (len(v) == 1 || len(v) == 2):
			if len(v) == 1 {
				v = append(v, v[0])
			}
			t = matrix{a: v[0], d: v[1]}
		case name == "rotate" && (len(v) == 1 || len(v) == 3):
			sin, cos := math.Sincos(v[0] * math.Pi / 180)
			t = matrix{a: cos, b: sin, c: -sin, d: cos}
			if len(v) == 3 {
				t = matrix{a: 1, d: 1, e: v[1], f: v[2]}.mul(t).mul(matrix{a: 1, d: 1, e: -v[1], f: -v[2]})
			}
		case name == "skewX" && len(v) == 1:
			t = matrix{a: 1, d: 1, c: math.Tan(v[0] * math.Pi / 180)}
		case name == "skewY" && len(v) == 1:
			t = matrix{a: 1, d: 1, b: math.Tan(v[0] * math.Pi / 180)}
		default:
			return m, bad
		}
		m = m.mul(t)
		rest = strings.TrimLeft(after, " \t\r\n,")
	}
	return m, nil
}
