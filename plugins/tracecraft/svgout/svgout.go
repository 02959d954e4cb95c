// Package svgout writes a traced segmentation as an SVG document in one of tracecraft's
// draw styles: filled shapes, shape outlines or shared edges stroked once; shapes cut out
// of each other or stacked; merged per colour or grouped per colour.
package svgout

import (
	"bytes"
	"image/color"
	"sort"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/planar"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/refine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// DrawStyle says what is drawn.
type DrawStyle int

// The draw styles.
const (
	// Fill fills every shape.
	Fill DrawStyle = iota
	// StrokeShapes strokes every shape's outline; a shared boundary is stroked by
	// both shapes.
	StrokeShapes
	// StrokeEdges strokes every boundary exactly once.
	StrokeEdges
)

// Options control Write.
type Options struct {
	// Style is the draw style.
	Style DrawStyle
	// Stacked draws each shape solid, holes filled, bottom to top, so that shapes
	// drawn later cover the ones below; false cuts exact holes (nothing overlaps).
	// Holes that show transparency stay holes either way.
	Stacked bool
	// GroupByColor writes one <g> per colour holding one path per shape; false
	// merges all shapes of one colour into one path.
	GroupByColor bool
	// FixedSize adds width and height attributes.
	FixedSize bool
	// GapFiller strokes filled opaque shapes with their own paint, GapFillerWidth
	// wide, to hide the seams anti-aliasing leaves between abutting shapes.
	GapFiller      bool
	GapFillerWidth float64
	// StrokeWidth is the stroke width of the stroke styles.
	StrokeWidth float64
	// Override, when set, is the stroke colour of the stroke styles.
	Override *color.NRGBA
	// NonScalingStroke adds vector-effect="non-scaling-stroke" to stroked elements.
	NonScalingStroke bool
	// Precision is the number of decimals of coordinates.
	Precision int
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
	shapes []shape
	groups []group
	rank   []int
}

// NewPlan orders the regions of seg, painted in colors, for opt.
func NewPlan(seg *segment.Segmentation, colors []color.NRGBA, opt Options) *Plan {
	w := &writer{seg: seg, colors: colors, opt: opt}
	p := &Plan{shapes: w.shapes()}
	p.rank = make([]int, len(seg.Regions.Regions))
	for i := range p.rank {
		p.rank[i] = -1
	}
	if opt.Style != StrokeEdges {
		p.groups = w.groups(p.shapes)
		for k, g := range p.groups {
			for _, r := range g.items {
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
		if bottom.paint.A != 255 {
			continue
		}
		bottom.stroked = true
		topRegion := e.Left
		if r > l {
			topRegion = e.Right
		}
		if top := &p.groups[max(l, r)]; top.paint.A == 255 && thick[topRegion] {
			top.stroked = true
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

func (p *Plan) anyStroked() bool {
	for _, g := range p.groups {
		if g.stroked {
			return true
		}
	}
	return false
}

// Group is a run of shapes of one paint, as Write paints them.
type Group struct {
	// Paint is the colour the shapes are painted in.
	Paint color.NRGBA
	// Regions are the regions painted, in order.
	Regions []int
	// Stroked marks a group that gets the gap filler stroke.
	Stroked bool
}

// Groups returns the groups of the Fill and StrokeShapes styles in paint order, bottom
// to top, for writers of other output forms. It is nil for StrokeEdges.
func (p *Plan) Groups() []Group {
	out := make([]Group, len(p.groups))
	for i, g := range p.groups {
		out[i] = Group{Paint: g.paint, Regions: append([]int(nil), g.items...), Stroked: g.stroked}
	}
	return out
}

// stroked reports whether region r is painted with a gap filler stroke.
func (p *Plan) stroked(r int32) bool {
	k := p.Rank(r)
	return k >= 0 && p.groups != nil && p.groups[k].stroked
}

// EdgeShifts returns, per edge of seg, how far to move the edge (in pixels, along the
// normal from its left region to its right one) so that the gap filler stroke does not
// change what is seen: the stroke widens a shape by half its width all round, so every
// edge moves that far into the shape that is painted on top along it (or into the only
// painted one), whose stroke then ends where the boundary is. The shape underneath keeps
// its widening, hidden below the top shape: it fills the seam there. Without a gap
// filler all shifts are 0.
func (p *Plan) EdgeShifts(seg *segment.Segmentation, opt Options) []float64 {
	pm := seg.Planar
	shifts := make([]float64, len(pm.Edges))
	if opt.Style != Fill || !opt.GapFiller {
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
		case l >= r && p.stroked(e.Left):
			shifts[ei] = -half
		case r > l && p.stroked(e.Right):
			shifts[ei] = half
		}
	}
	return shifts
}

// Write renders res as an SVG document in the order of plan.
func Write(res *refine.Result, plan *Plan, opt Options) []byte {
	pm := res.Seg.Planar
	var b bytes.Buffer
	w := &writer{res: res, seg: res.Seg, colors: res.Colors, opt: opt, buf: &b, path: svg.NewPath(opt.Precision)}
	extra := ""
	switch {
	case opt.Style == Fill && opt.GapFiller && plan.anyStroked():
		extra = ` stroke-width="` + svg.Num(opt.GapFillerWidth, 3) + `" stroke-linejoin="round"`
	case opt.Style != Fill:
		extra = ` fill="none" stroke-width="` + svg.Num(opt.StrokeWidth, 3) + `" stroke-linejoin="round"`
		if opt.Override != nil {
			extra += ` stroke="` + svg.Hex(*opt.Override) + `"`
			if opt.Override.A < 255 {
				extra += ` stroke-opacity="` + svg.Opacity(opt.Override.A) + `"`
			}
		}
	}
	svg.Header(&b, pm.Width, pm.Height, opt.FixedSize, extra)
	if opt.Style == StrokeEdges {
		w.edges(plan)
	} else {
		w.regions(plan.groups)
	}
	svg.Footer(&b)
	return b.Bytes()
}

type writer struct {
	res    *refine.Result
	seg    *segment.Segmentation
	colors []color.NRGBA
	opt    Options
	buf    *bytes.Buffer
	path   *svg.Path
}

// shapes returns the opaque regions in drawing order: larger outer rings first, which
// puts every shape after the shapes whose holes hold it.
func (w *writer) shapes() []shape {
	rm := w.seg.Regions
	pm := w.seg.Planar
	var out []shape
	for r := range rm.Regions {
		if rm.Regions[r].Transparent() || len(pm.RegionRings[r]) == 0 {
			continue
		}
		c := w.colors[r]
		if c.A >= OpaqueAlpha {
			c.A = 255
		}
		if c.A == 0 {
			continue
		}
		if opt := w.opt; opt.Style != Fill && opt.Override != nil {
			c = *opt.Override
		}
		out = append(out, shape{region: r, area: -pm.Outer(r).Area2, paint: c})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].area > out[j].area })
	return out
}

// group is a run of shapes (or, for StrokeEdges, edges) of one paint written together.
type group struct {
	paint color.NRGBA
	items []int
	// stroked marks a group that gets the gap filler.
	stroked bool
}

// groups batches shapes by paint. Cut-out shapes never overlap, so all shapes of a paint
// form one group, in order of first appearance. Stacked shapes must follow every shape
// whose holes hold them, so a shape joins the first group of its paint that comes after
// the groups of all its ancestors.
func (w *writer) groups(shapes []shape) []group {
	var gs []group
	if !w.opt.Stacked {
		index := map[color.NRGBA]int{}
		for _, s := range shapes {
			k, ok := index[s.paint]
			if !ok {
				k = len(gs)
				index[s.paint] = k
				gs = append(gs, group{paint: s.paint})
			}
			gs[k].items = append(gs[k].items, s.region)
		}
		return gs
	}
	parent := w.seg.Planar.Parents()
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
			gs = append(gs, group{paint: s.paint})
			byPaint[s.paint] = append(byPaint[s.paint], k)
		}
		gs[k].items = append(gs[k].items, s.region)
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

// regions writes the Fill and StrokeShapes styles.
func (w *writer) regions(groups []group) {
	var holes [][]int32
	if w.opt.Stacked {
		holes = StackedHoles(w.seg)
	}
	w.writeGroups(groups, func(r int) { w.regionPath(r, holes) })
}

// writeGroups writes each group's items, added to the path data by add: one path
// element per group, or with GroupByColor one per item in a <g> holding the paint.
func (w *writer) writeGroups(groups []group, add func(item int)) {
	for _, g := range groups {
		if w.opt.GroupByColor {
			w.buf.WriteString("<g")
			w.paintAttrs(g)
			w.buf.WriteByte('>')
			for _, it := range g.items {
				w.path.Reset()
				add(it)
				w.element(g, false)
			}
			w.buf.WriteString("</g>")
			continue
		}
		w.path.Reset()
		for _, it := range g.items {
			add(it)
		}
		w.element(g, true)
	}
}

// element writes a path element holding the current path data, with the paint when
// withPaint (otherwise it comes from the enclosing group).
func (w *writer) element(g group, withPaint bool) {
	w.buf.WriteString("<path")
	if withPaint {
		w.paintAttrs(g)
	}
	if w.opt.NonScalingStroke && (w.opt.Style != Fill || g.stroked) {
		w.buf.WriteString(` vector-effect="non-scaling-stroke"`)
	}
	w.buf.WriteString(` d="`)
	w.buf.Write(w.path.Bytes())
	w.buf.WriteString(`"/>`)
}

// paintAttrs writes the paint of a group of shapes.
func (w *writer) paintAttrs(g group) {
	paint := g.paint
	switch {
	case w.opt.Style == Fill:
		w.buf.WriteString(svg.Paint("fill", paint))
		if paint.A == 255 && g.stroked {
			w.buf.WriteString(` stroke="` + svg.Hex(paint) + `"`)
		}
	case w.opt.Override == nil:
		w.buf.WriteString(svg.Paint("stroke", paint))
	}
}

// StackedHoles returns, per region of seg, the rings cut out of its shape when shapes
// are stacked: the outer rings of the transparent regions nested anywhere inside it.
func StackedHoles(seg *segment.Segmentation) [][]int32 {
	rm := seg.Regions
	pm := seg.Planar
	parent := pm.Parents()
	holes := make([][]int32, len(parent))
	for r := range rm.Regions {
		if !rm.Regions[r].Transparent() || len(pm.RegionRings[r]) == 0 {
			continue
		}
		outer := pm.RegionRings[r][0]
		for a := parent[r]; a >= 0; a = parent[a] {
			holes[a] = append(holes[a], outer)
		}
	}
	return holes
}

// regionPath adds region r's rings to the path: all of them for cut-outs; the outer ring
// and the transparent holes (walked backwards) when stacked.
func (w *writer) regionPath(r int, holes [][]int32) {
	rings := w.res.Seg.Planar.RegionRings[r]
	if !w.opt.Stacked {
		for _, ri := range rings {
			w.ring(w.res.Ring(int(ri)))
		}
		return
	}
	w.ring(w.res.Ring(int(rings[0])))
	for _, ri := range holes[r] {
		w.ring(w.res.Ring(int(ri)).Reverse())
	}
}

// ring adds one closed path to the current path data.
func (w *writer) ring(p fit.Path) { AddRing(w.path, p) }

// PathWriter writes path data: svg.Path, or a writer of the same commands that formats
// them its own way.
type PathWriter interface {
	MoveTo(x, y float64)
	LineTo(x, y float64)
	CubicTo(x1, y1, x2, y2, x, y float64)
	Close()
}

// AddRing adds p to d as one closed subpath; a final line back to the start is left to
// the close.
func AddRing(d PathWriter, p fit.Path) {
	d.MoveTo(p.From.X, p.From.Y)
	segs := p.Segs
	if n := len(segs); n > 0 && !segs[n-1].Cubic {
		segs = segs[:n-1]
	}
	addSegs(d, segs)
	d.Close()
}

func addSegs(p PathWriter, segs []fit.Segment) {
	for _, s := range segs {
		if s.Cubic {
			p.CubicTo(s.C1.X, s.C1.Y, s.C2.X, s.C2.Y, s.To.X, s.To.Y)
		} else {
			p.LineTo(s.To.X, s.To.Y)
		}
	}
}

// edges writes the StrokeEdges style: every edge with a drawn region on either side,
// once, in the paint of the region drawn later of the two (plan ranks StrokeEdges
// regions by shape, and the shape's paint already holds any Override).
func (w *writer) edges(plan *Plan) {
	pm := w.res.Seg.Planar
	var gs []group
	index := map[color.NRGBA]int{}
	for ei := range pm.Edges {
		e := &pm.Edges[ei]
		top := max(plan.Rank(e.Left), plan.Rank(e.Right))
		if top < 0 {
			continue
		}
		paint := plan.shapes[top].paint
		k, ok := index[paint]
		if !ok {
			k = len(gs)
			index[paint] = k
			gs = append(gs, group{paint: paint})
		}
		gs[k].items = append(gs[k].items, ei)
	}
	w.writeGroups(gs, w.edge)
}

// edge adds one edge as an open subpath, or a closed one for a loop.
func (w *writer) edge(ei int) {
	p := w.res.Edges[ei]
	if w.res.Seg.Planar.Edges[ei].Closed {
		w.ring(p)
		return
	}
	w.path.MoveTo(p.From.X, p.From.Y)
	addSegs(w.path, p.Segs)
}
