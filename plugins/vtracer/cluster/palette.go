package cluster

import (
	"image/color"

	"github.com/tracecraft/tracecraft/sdk/label"
)

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
	if folded {
		for p, o := range h.owner {
			if o >= 0 {
				h.owner[p] = rep[o]
			}
		}
	}
	h.joinSiblings(rep)
}

// joinSiblings joins opaque drawn shapes of one colour that touch and have the same
// drawn parent (rep maps each shape to the shape drawn in its place): the first of them
// is drawn with the others' outlines, in its place, and the others are Folded. Sibling
// subtrees hold disjoint pixels, so drawing a later sibling's area earlier, at the first
// one's place, covers nothing drawn in between.
func (h *Hierarchy) joinSiblings(rep []int32) {
	n := len(h.Shapes)
	up, dep, group := make([]int32, n), make([]int32, n), make([]int32, n)
	for i := range h.Shapes {
		group[i] = int32(i)
		up[i] = -1
		if p := h.Shapes[i].Parent; p >= 0 {
			up[i] = rep[p]
			dep[i] = dep[up[i]] + 1
		}
	}
	joinable := func(a, b int32) bool {
		sa, sb := &h.Shapes[a], &h.Shapes[b]
		return !sa.Folded && !sb.Folded && sa.Color.A == 255 && sa.Color == sb.Color
	}
	touch := func(a, b int32) {
		if a < 0 || b < 0 || a == b {
			return
		}
		// Climb to the two siblings whose subtrees hold the pixels.
		for dep[a] > dep[b] {
			a = up[a]
		}
		for dep[b] > dep[a] {
			b = up[b]
		}
		for a != b && up[a] != up[b] {
			a, b = up[a], up[b]
		}
		if a == b || !joinable(a, b) {
			return
		}
		label.Union(group, a, b) // the first shape in drawing order leads its group
	}
	w := h.Width
	for p, o := range h.owner {
		if (p+1)%w != 0 {
			touch(o, h.owner[p+1])
		}
		if p+w < len(h.owner) {
			touch(o, h.owner[p+w])
		}
	}
	joined := map[int32][]int32{}
	for i := range group {
		if g := label.Find(group, int32(i)); g != int32(i) {
			joined[g] = append(joined[g], int32(i))
			h.Shapes[i].Folded = true
		}
	}
	if len(joined) > 0 {
		h.up, h.dep, h.group, h.joined = up, dep, group, joined
	}
}

// Joined returns the shapes Repaint joined to shape i, drawn with it in its place, in
// drawing order; nil when none were.
func (h *Hierarchy) Joined(i int) []int32 { return h.joined[int32(i)] }

// CoversJoined reports whether shape i or a shape joined to it (see Joined) paints pixel
// p when drawn in mode m.
func (h *Hierarchy) CoversJoined(i int, m Mode, p int) bool {
	if h.joined[int32(i)] == nil {
		return h.Covers(i, m, p)
	}
	s := h.owner[p]
	if s < 0 {
		return false
	}
	if m == Cutout {
		return h.group[s] == int32(i)
	}
	for s >= 0 && h.dep[s] > h.dep[i] {
		s = h.up[s]
	}
	return s >= 0 && h.group[s] == int32(i) && h.Covers(int(s), m, p)
}
