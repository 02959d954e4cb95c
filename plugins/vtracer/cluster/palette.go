package cluster

import "image/color"

// Nearest returns the colour of pal nearest c in VTracer's colour difference, the sum of
// the absolute differences of the red, green and blue channels (the measure of
// Config.LayerDifference), with c's alpha. The first of equally near colours wins.
func Nearest(pal []color.NRGBA, c color.NRGBA) color.NRGBA {
	abs := func(a, b uint8) int {
		if a > b {
			return int(a - b)
		}
		return int(b - a)
	}
	best, bd := pal[0], -1
	for _, p := range pal {
		if d := abs(p.R, c.R) + abs(p.G, c.G) + abs(p.B, c.B); bd < 0 || d < bd {
			best, bd = p, d
		}
	}
	best.A = c.A
	return best
}

// Repaint paints every shape with its Nearest colour of pal (opaque colours; each
// shape keeps its own alpha) and folds each opaque shape whose colour is now its
// parent's into the parent: the parent then shows where the shape did, and the shape is
// Folded, not drawn. A shape and the parent it merged into are neighbours, so no two
// touching shapes of the hierarchy's lines of descent keep one colour. An empty pal
// changes nothing.
func (h *Hierarchy) Repaint(pal []color.NRGBA) {
	if len(pal) == 0 {
		return
	}
	rep := make([]int32, len(h.Shapes)) // the shape each shape is drawn as
	folded := false
	for i := range h.Shapes {
		s := &h.Shapes[i]
		s.Color = Nearest(pal, s.Color)
		rep[i] = int32(i)
		if s.Parent < 0 || s.Color.A != 255 {
			continue
		}
		// Parents come before their children, so the parent's rep is settled.
		if r := rep[s.Parent]; h.Shapes[r].Color == s.Color {
			rep[i], s.Folded, folded = r, true, true
		}
	}
	if !folded {
		return
	}
	for p, o := range h.owner {
		if o >= 0 {
			h.owner[p] = rep[o]
		}
	}
}
