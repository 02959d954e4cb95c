// Package pathw writes SVG path data with as few characters as a tolerance allows.
//
// Like sdk/svg's Path, and through the same svg.Commands, every command is written in
// the shorter of its absolute and relative forms, with H and V for axis-parallel lines, S where the first control point
// is the reflection of the previous one, and implicit command repetition. Unlike it,
// each number is not rounded to a fixed number of decimals but written with the fewest
// decimals that keep the point within a tolerance of where it should be: end points
// within EndTolerance, control points (whose error moves the curve by at most three
// quarters of it) within CtrlTolerance. A relative number is rounded as an offset, so
// "l12 -3" can stand for an offset of (12.04, -2.97). The point written becomes the
// current point exactly (all values are kept in thousandths), so errors never add up
// along a path.
package pathw

import (
	"math"

	"github.com/tracecraft/tracecraft/sdk/svg"
)

// unit is the resolution of every written value: thousandths of a pixel.
const unit = 1000

// maxDecimals is the most decimals a number gets.
const maxDecimals = 3

// Path builds the d attribute of a path element. The zero value is not usable; call
// New.
type Path struct {
	endTol, ctrlTol float64
	cmds            svg.Commands
	cur, start      [2]int64
	ctrl            [2]int64
	hasCtrl         bool
}

// New returns an empty path whose end points may stray endTol pixels and control
// points ctrlTol pixels from where they are asked for.
func New(endTol, ctrlTol float64) *Path {
	return &Path{endTol: endTol, ctrlTol: ctrlTol, cmds: svg.Commands{Format: format}}
}

// format writes a value held in thousandths with at most maxDecimals decimals.
func format(dst []byte, n int64) []byte { return svg.AppendNum(dst, float64(n)/unit, maxDecimals) }

// Reset empties the path, keeping its buffers and tolerances.
func (p *Path) Reset() {
	p.cmds.Reset()
	p.cur, p.start, p.ctrl, p.hasCtrl = [2]int64{}, [2]int64{}, [2]int64{}, false
}

// Bytes returns the path data; valid until the next change to p.
func (p *Path) Bytes() []byte { return p.cmds.Bytes() }

// Len returns the length of the path data.
func (p *Path) Len() int { return p.cmds.Len() }

// Current returns the current point as written.
func (p *Path) Current() (x, y float64) {
	return float64(p.cur[0]) / unit, float64(p.cur[1]) / unit
}

// shortest returns the value with the fewest decimals within tol of v, in thousandths:
// the nearest whole number if it is close enough, else the nearest tenth, and so on.
func shortest(v, tol float64) int64 {
	step := int64(unit)
	for d := 0; d <= maxDecimals; d++ {
		c := int64(math.Round(v*unit/float64(step))) * step
		if d == maxDecimals || math.Abs(float64(c)/unit-v) <= tol {
			return c
		}
		step /= 10
	}
	return int64(math.Round(v * unit))
}

// place returns the written form of point (x, y) within tol, absolute and relative to
// the current point: the absolute numbers, the relative numbers and the point each
// stands for.
func (p *Path) place(x, y, tol float64) (abs, rel, absPt, relPt [2]int64) {
	abs = [2]int64{shortest(x, tol), shortest(y, tol)}
	rel = [2]int64{shortest(x-float64(p.cur[0])/unit, tol), shortest(y-float64(p.cur[1])/unit, tol)}
	return abs, rel, abs, [2]int64{p.cur[0] + rel[0], p.cur[1] + rel[1]}
}

// MoveTo starts a new subpath at (x, y).
func (p *Path) MoveTo(x, y float64) {
	abs, rel, ap, rp := p.place(x, y, p.endTol)
	if p.emit('M', abs[:], rel[:]) {
		p.cur = rp
	} else {
		p.cur = ap
	}
	p.start, p.hasCtrl = p.cur, false
}

// LineTo draws a straight line to (x, y).
func (p *Path) LineTo(x, y float64) {
	cx, cy := p.Current()
	abs, rel, ap, rp := p.place(x, y, p.endTol)
	switch {
	case math.Abs(y-cy) <= p.endTol && rel[0] != 0:
		a := shortest(x, p.endTol)
		if p.emit('H', []int64{a}, rel[:1]) {
			p.cur[0] = rp[0]
		} else {
			p.cur[0] = a
		}
	case math.Abs(x-cx) <= p.endTol && rel[1] != 0:
		a := shortest(y, p.endTol)
		if p.emit('V', []int64{a}, rel[1:]) {
			p.cur[1] = rp[1]
		} else {
			p.cur[1] = a
		}
	case rel == [2]int64{}:
		// Within the tolerance of the current point: nothing to draw.
	default:
		if p.emit('L', abs[:], rel[:]) {
			p.cur = rp
		} else {
			p.cur = ap
		}
	}
	p.hasCtrl = false
}

// CubicTo draws a cubic Bézier curve with control points (x1, y1) and (x2, y2) to
// (x, y).
func (p *Path) CubicTo(x1, y1, x2, y2, x, y float64) {
	implied := p.cur
	if p.hasCtrl {
		implied = [2]int64{2*p.cur[0] - p.ctrl[0], 2*p.cur[1] - p.ctrl[1]}
	}
	smooth := math.Hypot(float64(implied[0])/unit-x1, float64(implied[1])/unit-y1) <= p.ctrlTol
	a1, r1, _, _ := p.place(x1, y1, p.ctrlTol)
	a2, r2, ap2, rp2 := p.place(x2, y2, p.ctrlTol)
	a3, r3, ap3, rp3 := p.place(x, y, p.endTol)
	var rel bool
	if smooth {
		rel = p.emit('S', []int64{a2[0], a2[1], a3[0], a3[1]}, []int64{r2[0], r2[1], r3[0], r3[1]})
	} else {
		rel = p.emit('C', []int64{a1[0], a1[1], a2[0], a2[1], a3[0], a3[1]},
			[]int64{r1[0], r1[1], r2[0], r2[1], r3[0], r3[1]})
	}
	if rel {
		p.ctrl, p.cur = rp2, rp3
	} else {
		p.ctrl, p.cur = ap2, ap3
	}
	p.hasCtrl = true
}

// Close closes the current subpath; the current point returns to its start.
func (p *Path) Close() {
	p.cmds.Close()
	p.cur, p.hasCtrl = p.start, false
}

// emit writes one command in the shorter of its absolute and relative forms and
// reports whether it chose the relative one.
func (p *Path) emit(cmd byte, abs, rel []int64) bool { return p.cmds.Emit(cmd, abs, rel) }
