// Package paint decides how a segmentation's regions are painted before their edges are
// fitted: which regions are drawn, grouped by paint in which order, which groups get the
// gap filler stroke that hides anti-aliasing seams, how far each edge moves to make up
// for that stroke, and when an image has too much fine detail for it. It stands between
// segment and refine: refine fits the edges where the plan wants them, svgout writes the
// shapes in the plan's order.
package paint

import (
	"image/color"
	"sort"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/planar"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
)

// Style says what is drawn.
type Style int

// The draw styles.
const (
	// Fill fills every shape.
	Fill Style = iota
	// StrokeShapes strokes every shape's outline; a shared boundary is stroked by
	// both shapes.
	StrokeShapes
	// StrokeEdges strokes every boundary exactly once.
	StrokeEdges
)

// Options are what the plan depends on.
type Options struct {
	// Style is the draw style.
	Style Style
	// Stacked draws each shape solid, holes filled, bottom to top, so that shapes
	// drawn later cover the ones below; false cuts exact holes (nothing overlaps).
	Stacked bool
	// GapFiller strokes filled opaque shapes with their own paint, GapFillerWidth
	// wide, to hide the seams anti-aliasing leaves between abutting shapes.
	GapFiller      bool
	GapFillerWidth float64
	// Underlap draws the gap filler as fill instead of a stroke: a shape's edges that
	// border an opaque shape painted above it move under that shape (see Underlap),
	// and no edge moves otherwise (EdgeShifts are all 0). One fill colour then paints
	// the shape and its gap filler, so an editor that recolours the fill leaves no
	// outline of the old colour.
	Underlap bool
	// Override, when set, is the paint of every shape of the stroke styles.
	Override *color.NRGBA
}

// OpaqueAlpha is the alpha from which a region is written as opaque: the last few
// levels are rounding, not intended translucency.
const OpaqueAlpha = 250

// shape is one drawable region.
type shape struct {
	region int
	area   int64 // twice the area its outer ring encloses
	paint  color.NRGBA
}

// Plan is the paint order of a segmentation's regions: which regions are drawn, in
// which groups of one paint, in which order. The order is known before the edges are
// fitted, so that fitting can allow for strokes that overlap the neighbours (see
// EdgeShifts).
type Plan struct {
	opt    Options
	shapes []shape
	groups []Group
	rank   []int
	// order, when set (WithOrder), is each region's position in the order the shapes
	// are really drawn, which Underlap then follows instead of the groups' order.
	order []int
}

// WithOrder returns the plan with the shapes drawn in another order than its groups':
// order[r] is region r's position (-1 for a region not drawn). Underlap follows it.
func (p *Plan) WithOrder(order []int) *Plan {
	q := *p
	q.order = order
	return &q
}

// NewPlan orders the regions of seg, painted in their colours, for opt.
func NewPlan(seg *segment.Segmentation, opt Options) *Plan {
	p := &Plan{opt: opt, shapes: shapes(seg, opt)}
	p.rank = make([]int, len(seg.Regions.Regions))
	for i := range p.rank {
		p.rank[i] = -1
	}
	if opt.Style != StrokeEdges {
		p.groups = groups(seg, p.shapes, opt.Stacked)
		for k, g := range p.groups {
			for _, r := range g.Regions {
				p.rank[r] = k
			}
		}
		if opt.Style == Fill && opt.GapFiller {
			p.markStroked(seg)
		}
	} else {
		for i, s := range p.shapes {
			p.rank[s.region] = i
		}
	}
	return p
}

// Rank returns the position of region r in the paint order (regions of one group share
// it), or -1 when r is not painted.
func (p *Plan) Rank(r int32) int {
	if r < 0 {
		return -1
	}
	return p.rank[r]
}

// markStroked gives the gap filler to the opaque groups that border another painted
// group: only along such a boundary can a seam show the background. The lower group's
// stroke reaches under the upper one and fills the seam; the upper group is stroked too,
// so that its edges can move into it by half the stroke width (see EdgeShifts) and its
// visible outline stays where the boundary is. A shape bordering only transparency or
// the image border needs no filler.
func (p *Plan) markStroked(seg *segment.Segmentation) {
	thick := thickRegions(seg)
	for _, e := range seg.Planar.Edges {
		l, r := p.Rank(e.Left), p.Rank(e.Right)
		if l < 0 || r < 0 || l == r {
			continue
		}
		bottom := &p.groups[min(l, r)]
		if bottom.Paint.A != 255 {
			continue
		}
		bottom.Stroked = true
		topRegion := e.Left
		if r > l {
			topRegion = e.Right
		}
		if top := &p.groups[max(l, r)]; top.Paint.A == 255 && thick[topRegion] {
			top.Stroked = true
		}
	}
}

// minStrokedThickness is the mean thickness (twice the area over the perimeter, in
// pixels) below which a shape that lies on top of its neighbours is not given the gap
// filler just to keep its outline exact: the outline of so small or thin a shape is too
// rough for its stroke and the edges moved into it to cancel out.
const minStrokedThickness = 2

// thickRegions reports, per region, whether its mean thickness reaches
// minStrokedThickness.
func thickRegions(seg *segment.Segmentation) []bool {
	perimeter := seg.Planar.Perimeters()
	thick := make([]bool, len(perimeter))
	for r, reg := range seg.Regions.Regions {
		thick[r] = perimeter[r] > 0 && 2*float64(reg.Pixels) >= minStrokedThickness*float64(perimeter[r])
	}
	return thick
}

// AnyStroked reports whether any group gets the gap filler stroke.
func (p *Plan) AnyStroked() bool {
	for _, g := range p.groups {
		if g.Stroked {
			return true
		}
	}
	return false
}

// Group is a run of shapes of one paint, painted together.
type Group struct {
	// Paint is the colour the shapes are painted in.
	Paint color.NRGBA
	// Regions are the regions painted, in order.
	Regions []int
	// Stroked marks a group that gets the gap filler stroke.
	Stroked bool
}

// Groups returns the groups of the Fill and StrokeShapes styles in paint order, bottom
// to top. It is nil for StrokeEdges. The slice is the plan's own: callers only read it.
func (p *Plan) Groups() []Group { return p.groups }

// Paint returns the paint of the shapes at rank k: of the k-th group, or for StrokeEdges
// of the k-th shape.
func (p *Plan) Paint(k int) color.NRGBA {
	if p.groups != nil {
		return p.groups[k].Paint
	}
	return p.shapes[k].paint
}

// Stroked reports whether region r is painted with a gap filler stroke.
func (p *Plan) Stroked(r int32) bool {
	k := p.Rank(r)
	return k >= 0 && p.groups != nil && p.groups[k].Stroked
}

// EdgeShifts returns, per edge of seg, how far to move the edge (in pixels, along the
// normal from its left region to its right one) so that the gap filler stroke does not
// change what is seen: the stroke widens a shape by half its width all round, so every
// edge moves that far into the shape that is painted on top along it (or into the only
// painted one), whose stroke then ends where the boundary is. The shape underneath keeps
// its widening, hidden below the top shape: it fills the seam there. Without a gap
// filler all shifts are 0.
func (p *Plan) EdgeShifts(seg *segment.Segmentation) []float64 {
	opt := p.opt
	pm := seg.Planar
	shifts := make([]float64, len(pm.Edges))
	if opt.Style != Fill || !opt.GapFiller {
		return shifts
	}
	if opt.Underlap {
		return shifts
	}
	half := opt.GapFillerWidth / 2
	for ei := range pm.Edges {
		e := &pm.Edges[ei]
		l, r := p.Rank(e.Left), p.Rank(e.Right)
		switch {
		case e.Left == planar.Outside || e.Right == planar.Outside:
			// The image border: a stroke beyond it is cut off by the view box.
		case l < 0 && r < 0:
		case l >= r && p.Stroked(e.Left):
			shifts[ei] = -half
		case r > l && p.Stroked(e.Right):
			shifts[ei] = half
		}
	}
	return shifts
}

// Underlap returns how far the filled shape of region r reaches, past its edge with
// region other, under other (in pixels, along the normal from r to other) when the gap
// filler is drawn as fill (Options.Underlap): the gap filler width when other is an
// opaque shape painted above r, and 0 otherwise: along the image border, transparency,
// translucent shapes and shapes painted below r, which reach under r themselves. Half
// the width under thin shapes, as the stroke filler had it, let seams show through on
// photographs (skimage-hubble's SSIM fell from 0.734 to 0.675).
func (p *Plan) Underlap(r, other int32) float64 {
	if !p.opt.Underlap || !p.opt.GapFiller || p.opt.Style != Fill || p.groups == nil || other < 0 {
		return 0
	}
	kr, ko := p.Rank(r), p.Rank(other)
	below := ko <= kr
	if p.order != nil {
		below = p.order[other] <= p.order[r]
	}
	if kr < 0 || ko < 0 || below || p.groups[kr].Paint.A != 255 || p.groups[ko].Paint.A != 255 {
		return 0
	}
	return p.opt.GapFillerWidth
}

// shapes returns the opaque regions in drawing order: larger outer rings first, which
// puts every shape after the shapes whose holes hold it.
func shapes(seg *segment.Segmentation, opt Options) []shape {
	rm := seg.Regions
	pm := seg.Planar
	var out []shape
	for r := range rm.Regions {
		if rm.Regions[r].Transparent() || len(pm.RegionRings[r]) == 0 {
			continue
		}
		c := rm.Regions[r].Color
		if c.A >= OpaqueAlpha {
			c.A = 255
		}
		if c.A == 0 {
			continue
		}
		if opt.Style != Fill && opt.Override != nil {
			c = *opt.Override
		}
		out = append(out, shape{region: r, area: -pm.Outer(r).Area2, paint: c})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].area > out[j].area })
	return out
}

// groups batches shapes by paint. Cut-out shapes never overlap, so all shapes of a paint
// form one group, in order of first appearance. Stacked shapes must follow every shape
// whose holes hold them, so a shape joins the first group of its paint that comes after
// the groups of all its ancestors.
func groups(seg *segment.Segmentation, shapes []shape, stacked bool) []Group {
	var gs []Group
	if !stacked {
		index := map[color.NRGBA]int{}
		for _, s := range shapes {
			k, ok := index[s.paint]
			if !ok {
				k = len(gs)
				index[s.paint] = k
				gs = append(gs, Group{Paint: s.paint})
			}
			gs[k].Regions = append(gs[k].Regions, s.region)
		}
		return gs
	}
	parent := seg.Planar.Parents()
	n := len(parent)
	groupOf := make([]int, n) // group index of a drawn region
	floor := make([]int, n)   // highest group index among a region's drawn ancestors
	done := make([]bool, n)
	for i := range groupOf {
		groupOf[i], floor[i] = -1, -1
	}
	byPaint := map[color.NRGBA][]int{}
	for _, s := range shapes {
		f := -1
		if p := parent[s.region]; p >= 0 {
			f = max(floorOf(p, parent, groupOf, floor, done), groupOf[p])
		}
		floor[s.region], done[s.region] = f, true
		k := -1
		for _, g := range byPaint[s.paint] {
			if g > f {
				k = g
				break
			}
		}
		if k < 0 {
			k = len(gs)
			gs = append(gs, Group{Paint: s.paint})
			byPaint[s.paint] = append(byPaint[s.paint], k)
		}
		gs[k].Regions = append(gs[k].Regions, s.region)
		groupOf[s.region] = k
	}
	return gs
}

// floorOf returns the highest group index among r's drawn ancestors. Shapes come in
// decreasing area, so a drawn ancestor is always placed before its descendants; regions
// that are not drawn (transparent ones) are resolved here.
func floorOf(r int32, parent []int32, groupOf, floor []int, done []bool) int {
	if done[r] {
		return floor[r]
	}
	f := -1
	if p := parent[r]; p >= 0 {
		f = max(floorOf(p, parent, groupOf, floor, done), groupOf[p])
	}
	floor[r], done[r] = f, true
	return f
}
