package svg

// Path builds the d attribute of a path element. Coordinates are quantised to a fixed
// number of decimals first, and every command is written in whichever of its absolute
// and relative forms is shorter, using H/V for axis-parallel lines, S for smooth cubics
// and implicit command repetition. Because relative offsets are computed between
// quantised points, the written path ends exactly where the absolute one would: there is
// no drift however long the path.
//
// The zero value is not usable; call NewPath.
type Path struct {
	prec     int
	cmds     Commands
	cur      [2]int64 // current point, quantised
	start    [2]int64 // start of the current subpath, quantised
	ctrl     [2]int64 // second control point of the previous cubic, quantised
	hasCtrl  bool     // the previous command was a cubic
	segments int
}

// NewPath returns an empty path whose coordinates keep prec decimals (0..MaxPrecision).
func NewPath(prec int) *Path {
	p := &Path{prec: clampPrec(prec)}
	p.cmds.Format = func(dst []byte, n int64) []byte { return appendFixed(dst, n, p.prec) }
	return p
}

// Reset empties the path, keeping its buffer and precision.
func (p *Path) Reset() {
	p.cmds.Reset()
	p.cur, p.start, p.ctrl, p.hasCtrl, p.segments = [2]int64{}, [2]int64{}, [2]int64{}, false, 0
}

// Len returns the length of the path data in bytes.
func (p *Path) Len() int { return p.cmds.Len() }

// Segments returns the number of commands added (MoveTo, LineTo, CubicTo, Close).
func (p *Path) Segments() int { return p.segments }

// Bytes returns the path data. The slice is valid until the next change to p.
func (p *Path) Bytes() []byte { return p.cmds.Bytes() }

// String returns the path data.
func (p *Path) String() string { return string(p.cmds.Bytes()) }

// Current returns the current point as written, after quantisation.
func (p *Path) Current() (x, y float64) {
	return float64(p.cur[0]) / pow10[p.prec], float64(p.cur[1]) / pow10[p.prec]
}

// MoveTo starts a new subpath at (x, y).
func (p *Path) MoveTo(x, y float64) {
	pt := p.q(x, y)
	p.emit('M', pt[:], p.rel(pt))
	p.cur, p.start, p.hasCtrl = pt, pt, false
}

// LineTo draws a straight line to (x, y).
func (p *Path) LineTo(x, y float64) {
	pt := p.q(x, y)
	r := p.rel(pt)
	switch {
	case pt[1] == p.cur[1] && pt[0] != p.cur[0]:
		p.emit('H', pt[:1], r[:1])
	case pt[0] == p.cur[0] && pt[1] != p.cur[1]:
		p.emit('V', pt[1:], r[1:])
	default:
		p.emit('L', pt[:], r)
	}
	p.cur, p.hasCtrl = pt, false
}

// CubicTo draws a cubic Bézier curve with control points (x1, y1) and (x2, y2) to
// (x, y).
func (p *Path) CubicTo(x1, y1, x2, y2, x, y float64) {
	c1, c2, pt := p.q(x1, y1), p.q(x2, y2), p.q(x, y)
	// The implied first control point of S is the reflection of the previous cubic's
	// second control point, or the current point after anything else.
	implied := p.cur
	if p.hasCtrl {
		implied = [2]int64{2*p.cur[0] - p.ctrl[0], 2*p.cur[1] - p.ctrl[1]}
	}
	rc2, rpt := p.rel(c2), p.rel(pt)
	if c1 == implied {
		p.emit('S', []int64{c2[0], c2[1], pt[0], pt[1]}, []int64{rc2[0], rc2[1], rpt[0], rpt[1]})
	} else {
		rc1 := p.rel(c1)
		p.emit('C', []int64{c1[0], c1[1], c2[0], c2[1], pt[0], pt[1]},
			[]int64{rc1[0], rc1[1], rc2[0], rc2[1], rpt[0], rpt[1]})
	}
	p.cur, p.ctrl, p.hasCtrl = pt, c2, true
}

// Close closes the current subpath; the current point returns to its start.
func (p *Path) Close() {
	p.cmds.Close()
	p.cur, p.hasCtrl = p.start, false
	p.segments++
}

func (p *Path) q(x, y float64) [2]int64 { return [2]int64{Quantize(x, p.prec), Quantize(y, p.prec)} }

func (p *Path) rel(pt [2]int64) []int64 { return []int64{pt[0] - p.cur[0], pt[1] - p.cur[1]} }

// emit writes one command in the shorter of its absolute and relative forms.
func (p *Path) emit(cmd byte, abs, rel []int64) {
	p.cmds.Emit(cmd, abs, rel)
	p.segments++
}
