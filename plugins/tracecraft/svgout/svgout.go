// Package svgout writes a traced segmentation as an SVG document in one of tracecraft's
// draw styles: filled shapes, shape outlines or shared edges stroked once; shapes cut out
// of each other or stacked; merged per colour or grouped per colour.
package svgout

import (
	"bytes"
	"image/color"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/paint"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/refine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Options control Write.
type Options struct {
	// Paint holds the options the paint plan was made with: draw style, stacking,
	// gap filler and override colour.
	Paint paint.Options
	// GroupByColor writes one <g> per colour holding one path per shape; false
	// merges all shapes of one colour into one path.
	GroupByColor bool
	// GroupByParent writes one path per shape, each shape that encloses others in a <g>
	// with them, nested as the shapes are (it wins over GroupByColor).
	GroupByParent bool
	// FixedSize adds width and height attributes.
	FixedSize bool
	// StrokeWidth is the stroke width of the stroke styles.
	StrokeWidth float64
	// NonScalingStroke adds vector-effect="non-scaling-stroke" to stroked elements.
	NonScalingStroke bool
	// Precision is the number of decimals of coordinates.
	Precision int
}

// Write renders res as an SVG document in the order of plan.
func Write(res *refine.Result, plan *paint.Plan, opt Options) []byte {
	pm := res.Seg.Planar
	po := opt.Paint
	var b bytes.Buffer
	w := &writer{res: res, plan: plan, opt: opt, buf: &b, path: svg.NewPath(opt.Precision)}
	extra := ""
	switch {
	case po.Style == paint.Fill && po.GapFiller && !po.Underlap && plan.AnyStroked():
		extra = ` stroke-width="` + svg.Num(po.GapFillerWidth, 3) + `" stroke-linejoin="round"`
	case po.Style != paint.Fill:
		extra = ` fill="none" stroke-width="` + svg.Num(opt.StrokeWidth, 3) + `" stroke-linejoin="round"`
		if po.Override != nil {
			extra += ` stroke="` + svg.Hex(*po.Override) + `"`
			if po.Override.A < 255 {
				extra += ` stroke-opacity="` + svg.Opacity(po.Override.A) + `"`
			}
		}
	}
	svg.Header(&b, pm.Width, pm.Height, opt.FixedSize, extra)
	switch {
	case po.Style == paint.StrokeEdges:
		w.edges(plan)
	case opt.GroupByParent:
		w.nested(plan)
	default:
		w.regions(plan.Groups())
	}
	svg.Footer(&b)
	return b.Bytes()
}

type writer struct {
	res  *refine.Result
	plan *paint.Plan
	opt  Options
	buf  *bytes.Buffer
	path *svg.Path
	segs []fit.Segment // reused for each ring written
	ids  svg.IDs
}

// nested writes the Fill and StrokeShapes styles with GroupByParent: every shape, then
// the shapes it encloses, each of them nested the same way, in a <g> ("g-N" for the
// shape "p-N"). Siblings come in the plan's order; a shape comes after every shape
// enclosing it, which stacked shapes need, and the gap filler follows this order.
func (w *writer) nested(plan *paint.Plan) {
	seg := w.res.Seg
	parent := seg.Planar.Parents()
	var roots []int
	kids := make([][]int, len(parent))
	for _, g := range plan.Groups() {
		for _, r := range g.Regions {
			a := parent[r]
			for a >= 0 && plan.Rank(a) < 0 {
				a = parent[a]
			}
			if a < 0 {
				roots = append(roots, r)
			} else {
				kids[a] = append(kids[a], r)
			}
		}
	}
	order := make([]int, len(parent))
	for i := range order {
		order[i] = -1
	}
	n := 0
	var number func(r int)
	number = func(r int) {
		order[r] = n
		n++
		for _, k := range kids[r] {
			number(k)
		}
	}
	for _, r := range roots {
		number(r)
	}
	w.plan = plan.WithOrder(order)
	var holes [][]int32
	if w.opt.Paint.Stacked {
		holes = StackedHoles(seg)
	}
	var write func(r int)
	write = func(r int) {
		k := plan.Rank(int32(r))
		g := plan.Groups()[k]
		b := batch{paint: g.Paint, stroked: g.Stroked && !w.opt.Paint.Underlap}
		id := w.ids.Shape()
		if len(kids[r]) > 0 {
			w.buf.WriteString(`<g` + svg.IDAttr("g"+id[1:]) + `>`)
		}
		w.path.Reset()
		w.regionPath(r, holes)
		w.element(b, id, true)
		for _, c := range kids[r] {
			write(c)
		}
		if len(kids[r]) > 0 {
			w.buf.WriteString(`</g>`)
		}
	}
	for _, r := range roots {
		write(r)
	}
}

// regions writes the Fill and StrokeShapes styles.
func (w *writer) regions(groups []paint.Group) {
	var holes [][]int32
	if w.opt.Paint.Stacked {
		holes = StackedHoles(w.res.Seg)
	}
	bs := make([]batch, len(groups))
	for i, g := range groups {
		bs[i] = batch{paint: g.Paint, items: g.Regions, stroked: g.Stroked && !w.opt.Paint.Underlap}
	}
	w.writeGroups(bs, func(r int) { w.regionPath(r, holes) })
}

// batch is a run of shapes (or, for StrokeEdges, edges) of one paint written together.
type batch struct {
	paint color.NRGBA
	items []int
	// stroked marks a batch that gets the gap filler.
	stroked bool
}

// writeGroups writes each group's items, added to the path data by add: one path
// element per group, or with GroupByColor one per item in a <g> holding the paint. A
// group (the <g>, or the one path) has its colour's id (svg.IDs), a path in a <g> a
// shape id.
func (w *writer) writeGroups(groups []batch, add func(item int)) {
	for _, g := range groups {
		if w.opt.GroupByColor {
			w.buf.WriteString("<g" + svg.IDAttr(w.ids.Colour(g.paint)))
			w.paintAttrs(g)
			w.buf.WriteByte('>')
			for _, it := range g.items {
				w.path.Reset()
				add(it)
				w.element(g, w.ids.Shape(), false)
			}
			w.buf.WriteString("</g>")
			continue
		}
		w.path.Reset()
		for _, it := range g.items {
			add(it)
		}
		w.element(g, w.ids.Colour(g.paint), true)
	}
}

// element writes a path element with id holding the current path data, with the paint
// when withPaint (otherwise it comes from the enclosing group).
func (w *writer) element(g batch, id string, withPaint bool) {
	w.buf.WriteString("<path" + svg.IDAttr(id))
	if withPaint {
		w.paintAttrs(g)
	}
	if w.opt.NonScalingStroke && (w.opt.Paint.Style != paint.Fill || g.stroked) {
		w.buf.WriteString(` vector-effect="non-scaling-stroke"`)
	}
	w.buf.WriteString(` d="`)
	w.buf.Write(w.path.Bytes())
	w.buf.WriteString(`"/>`)
}

// paintAttrs writes the paint of a group of shapes.
func (w *writer) paintAttrs(g batch) {
	c := g.paint
	switch {
	case w.opt.Paint.Style == paint.Fill:
		w.buf.WriteString(svg.Paint("fill", c))
		if c.A == 255 && g.stroked {
			w.buf.WriteString(` stroke="` + svg.Hex(c) + `"`)
		}
	case w.opt.Paint.Override == nil:
		w.buf.WriteString(svg.Paint("stroke", c))
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
	if !w.opt.Paint.Stacked {
		for _, ri := range rings {
			w.ring(w.regionRing(r, int(ri)))
		}
		return
	}
	w.ring(w.regionRing(r, int(rings[0])))
	for _, ri := range holes[r] {
		w.ring(w.res.Ring(int(ri)).Reverse())
	}
}

// regionRing returns ring ri of region r as one closed path, with the gap filler drawn as
// r's own fill (see UnderlapRing).
func (w *writer) regionRing(r, ri int) fit.Path {
	var p fit.Path
	p, w.segs = UnderlapRing(w.res, w.plan, r, ri, w.segs[:0])
	return p
}

// UnderlapRing returns ring ri of region r as one closed path, with the half-edges that
// border a shape painted above r moved under it by plan.Underlap (the gap filler drawn
// as r's own fill); a moved half-edge is joined to its neighbours by straight lines,
// which run under the shape above. Its segments are appended to segs, which it returns
// with them: the path shares segs' array, so it is valid until the buffer is reused.
func UnderlapRing(res *refine.Result, plan *paint.Plan, r, ri int, segs []fit.Segment) (fit.Path, []fit.Segment) {
	pm := res.Seg.Planar
	ring := &pm.Rings[ri]
	var out fit.Path
	start := len(segs)
	end := func() fit.Point {
		if len(segs) == start {
			return out.From
		}
		return segs[len(segs)-1].To
	}
	for k, h := range ring.Half {
		e := &pm.Edges[h.Edge()]
		other := e.Right
		if h.Reversed() {
			other = e.Left
		}
		p := res.Half(h)
		if d := plan.Underlap(int32(r), other); d != 0 {
			p = p.Parallel(d)
		}
		switch {
		case k == 0:
			out.From = p.From
		case p.From != end():
			segs = append(segs, fit.Segment{To: p.From})
		}
		segs = append(segs, p.Segs...)
	}
	if len(segs) > start && end() != out.From {
		segs = append(segs, fit.Segment{To: out.From})
	}
	if len(segs) > start {
		out.Segs = segs[start:len(segs):len(segs)]
	}
	return out, segs
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
func (w *writer) edges(plan *paint.Plan) {
	pm := w.res.Seg.Planar
	var gs []batch
	index := map[color.NRGBA]int{}
	for ei := range pm.Edges {
		e := &pm.Edges[ei]
		top := max(plan.Rank(e.Left), plan.Rank(e.Right))
		if top < 0 {
			continue
		}
		c := plan.Paint(top)
		k, ok := index[c]
		if !ok {
			k = len(gs)
			index[c] = k
			gs = append(gs, batch{paint: c})
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
