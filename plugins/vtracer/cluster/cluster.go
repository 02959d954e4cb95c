// Package cluster builds VTracer's hierarchy of colour clusters: connected areas of
// similar colour (compared on a number of significant bits) merged bottom-up, smallest
// first, each into the neighbour closest in colour. A merge whose colour step is larger
// than the layer difference keeps the merged area as a shape of its own, drawn on top of
// the area it merged into; smaller steps and speckles are absorbed silently.
//
// The result is a tree of shapes that can be drawn stacked (each shape covers its whole
// area, children painted over parents) or cut out (each shape only where it shows).
package cluster

import (
	"context"
	"image"
	"image/color"
)

// Config controls clustering. The zero value compares full 8-bit colours, 4-connected,
// without speckle filtering, and keeps every colour step as a layer.
type Config struct {
	// Shift is the number of low bits dropped from each channel before two pixels are
	// compared (VTracer's 8 - color_precision), 0..7.
	Shift int
	// Tolerance is how many quantised steps each channel of two neighbouring pixels may
	// differ by, with at most twice as many over the four channels together, for the
	// pixels to be the same colour; 0 asks for equal quantised colours.
	Tolerance int
	// Diagonal connects pixels that touch at a corner as well as along an edge.
	Diagonal bool
	// SpeckleArea is the area in pixels below which a cluster is never a shape of its own
	// (VTracer's filter_speckle squared).
	SpeckleArea int
	// LayerDifference is the colour difference (sum of absolute channel differences of
	// the mean colours) a merge must exceed to keep the merged cluster as a shape
	// (VTracer's layer_difference).
	LayerDifference int
}

// Mode says which pixels a shape covers when it is drawn.
type Mode int

const (
	// Stacked shapes cover their whole area, descendants included; children are drawn
	// over their parents. A translucent descendant is still cut out of its ancestors, so
	// that what shows through it is the background, as in the image.
	Stacked Mode = iota
	// Cutout shapes cover only the pixels where they show: shapes do not overlap.
	Cutout
)

// Shape is one drawn layer of the hierarchy.
type Shape struct {
	// Color is the mean colour of the pixels where the shape shows, alpha included
	// (straight, not premultiplied).
	Color color.NRGBA
	// Parent is the index in Hierarchy.Shapes of the shape this one was merged into, or
	// -1 for a root.
	Parent int
	// Area is the number of pixels the shape covers when stacked.
	Area int
	// Folded says Repaint folded the shape into an ancestor of the same colour, which
	// shows in its place: the shape is not drawn.
	Folded bool

	first       int32 // first pixel of the shape's segment of the pixel chain
	pre, post   int32 // the shape's subtree is the shapes whose pre lies in [pre, post)
	depth       int32
	translucent int32 // the nearest translucent shape at or above this one, or -1
}

// Hierarchy is the result of Build: the shapes in drawing order (every shape after its
// parent) and, per pixel, the deepest shape holding it.
type Hierarchy struct {
	// Width and Height are the image's size.
	Width, Height int
	// Shapes lists the shapes in drawing order, larger and earlier-merged first: every
	// shape comes after its parent.
	Shapes []Shape

	owner []int32 // per pixel: index of the deepest shape holding it, or -1
	next  []int32 // pixel chain; each shape's pixels are Area links from first
}

// Pixels appends to dst the indices (y*Width + x) of every pixel the shape covers when
// stacked, its descendants' included, and returns the extended slice.
func (h *Hierarchy) Pixels(dst []int32, i int) []int32 {
	s := &h.Shapes[i]
	p := s.first
	for n := 0; n < s.Area; n++ {
		dst = append(dst, p)
		p = h.next[p]
	}
	return dst
}

// TopEdges appends to dst the indices of the pixels shape i covers when drawn in mode m
// and whose upper neighbour it does not cover (the pixels below the top edges of its
// outlines, where contour.Walker starts), and returns the extended slice. They are far
// fewer than the pixels of a large shape.
func (h *Hierarchy) TopEdges(dst []int32, i int, m Mode) []int32 {
	s := &h.Shapes[i]
	p := s.first
	w := int32(h.Width)
	for n := 0; n < s.Area; n++ {
		if h.Covers(i, m, int(p)) && (p < w || !h.Covers(i, m, int(p-w))) {
			dst = append(dst, p)
		}
		p = h.next[p]
	}
	return dst
}

// Owner returns the index of the deepest shape holding pixel p (y*Width + x), or -1
// when no shape does (a transparent pixel or a dropped speckle).
func (h *Hierarchy) Owner(p int) int { return int(h.owner[p]) }

// Covers reports whether shape i paints pixel p (y*Width + x) when drawn in mode m.
func (h *Hierarchy) Covers(i int, m Mode, p int) bool {
	o := h.owner[p]
	if o < 0 {
		return false
	}
	if m == Cutout {
		return int(o) == i
	}
	s, t := &h.Shapes[i], &h.Shapes[o]
	if t.pre < s.pre || t.pre >= s.post {
		return false // not a descendant
	}
	// A translucent shape between the pixel's owner and shape i (i excluded) cuts the
	// pixel out of i.
	if c := t.translucent; c >= 0 && h.Shapes[c].depth > s.depth {
		return false
	}
	return true
}

// Build clusters img. Fully transparent pixels (alpha 0) belong to no cluster and are
// never merged into one. It returns ctx.Err() when ctx is cancelled.
func Build(ctx context.Context, img *image.NRGBA, cfg Config) (*Hierarchy, error) {
	b := newBuilder(img, cfg)
	if err := b.label(ctx); err != nil {
		return nil, err
	}
	if err := b.merge(ctx); err != nil {
		return nil, err
	}
	return b.hierarchy(ctx)
}
