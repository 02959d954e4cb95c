// Package refine places the shared edges of a segmentation with sub-pixel accuracy and
// fits them with curves, then renders the result and corrects it where it differs from
// the input (render and refine).
//
// Every crack of an edge (the unit step between two pixels of different regions) gives a
// sample point. Its position across the crack comes from anti-aliasing: along a line
// across the edge, the sum of each pixel's coverage by the left region (its colour
// projected onto the line between the two regions' colours) says how far the left region
// reaches. Fitting curves through those samples puts edges where the original drawing
// had them, not on the pixel staircase. Refinement then renders the fitted shapes (see
// package render), measures the same sums on the render and moves each sample by the
// difference, which corrects what the first estimate cannot know: thin features whose
// pixels are covered by two edges at once, and the fit's own deviations.
package refine

import (
	"context"
	"image"
	"image/color"
	"math"
	"slices"
	"sync"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/paint"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/planar"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/render"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// Options control Run.
type Options struct {
	// Tolerance is the curve fit tolerance in pixels.
	Tolerance float64
	// Passes is the number of render-and-refine passes (0: fit once).
	Passes int
	// EdgeShift, when not nil, moves each edge's final fit by that many pixels
	// along the normal from its left region to its right one (see
	// paint.Plan.EdgeShifts). Refinement measures the unshifted edges.
	EdgeShift []float64
}

// Result is a traced segmentation: a fitted path for every edge of the planar map.
type Result struct {
	// Seg is the segmentation traced.
	Seg *segment.Segmentation
	// Edges holds each planar edge's path, walked forward.
	Edges []fit.Path
	// Colors holds each region's paint (alpha 0 for transparent regions).
	Colors []color.NRGBA

	states []edgeState
}

// Half returns the path of half-edge h.
func (r *Result) Half(h planar.HalfEdge) fit.Path {
	p := r.Edges[h.Edge()]
	if h.Reversed() {
		return p.Reverse()
	}
	return p
}

// Ring returns ring i of the planar map as one closed path.
func (r *Result) Ring(i int) fit.Path {
	p, _ := r.AppendRing(i, nil)
	return p
}

// appendRing returns ring i as one closed path whose segments are appended to segs, and
// segs with them: a caller drawing many rings reuses one buffer. The path shares segs'
// array, so it is valid until the buffer is reused.
func (r *Result) AppendRing(i int, segs []fit.Segment) (fit.Path, []fit.Segment) {
	ring := &r.Seg.Planar.Rings[i]
	var out fit.Path
	start := len(segs)
	for k, h := range ring.Half {
		var from fit.Point
		segs, from = r.appendHalf(segs, h)
		if k == 0 {
			out.From = from
		}
	}
	if len(segs) > start {
		out.Segs = segs[start:len(segs):len(segs)]
	}
	return out, segs
}

// appendHalf appends the segments of half-edge h to dst, as Half(h) has them, and
// returns them with the half-edge's start point.
func (r *Result) appendHalf(dst []fit.Segment, h planar.HalfEdge) ([]fit.Segment, fit.Point) {
	p := &r.Edges[h.Edge()]
	if !h.Reversed() {
		return append(dst, p.Segs...), p.From
	}
	n := len(p.Segs)
	for i := range n {
		s := p.Segs[n-1-i]
		prev := p.From
		if j := n - 2 - i; j >= 0 {
			prev = p.Segs[j].To
		}
		dst = append(dst, fit.Segment{Cubic: s.Cubic, C1: s.C2, C2: s.C1, To: prev})
	}
	return dst, p.End()
}

// RegionPaths appends the closed paths of region reg (outer ring, then holes) to dst,
// their segments to segs, and returns both; the paths share segs' array, so that
// rendering region after region reuses one buffer (pass segs[:0]).
func (r *Result) RegionPaths(reg int, dst []fit.Path, segs []fit.Segment) ([]fit.Path, []fit.Segment) {
	for _, ri := range r.Seg.Planar.RegionRings[reg] {
		var p fit.Path
		p, segs = r.AppendRing(int(ri), segs)
		dst = append(dst, p)
	}
	return dst, segs
}

// crack is one unit step of an edge and the pixels across it that measure it. An image
// has about as many cracks as pixels on its boundaries, up to several per pixel in a
// photograph, so a crack keeps its point and direction (36 bytes) rather than its
// midpoint and normal (64 bytes with them): they follow exactly.
type crack struct {
	at     planar.Point // where the step starts
	win    [4]int32     // pixel indices: two left (nearest first), two right; -1 unused
	target float32      // left coverage summed over win in the input
	offset float32      // current displacement along normal
	dir    planar.Dir   // the step's direction
	nLeft  int8         // left pixels in win
	// oblique marks a crack across which the boundary runs nearly parallel to the
	// normal (a single step of a steep staircase): its window cuts the boundary at a
	// grazing angle and the coverage does not say where the boundary is.
	oblique bool
}

// mid returns the crack's midpoint.
func (c *crack) mid() fit.Point {
	dx, dy := c.dir.Delta()
	return fit.Point{X: float64(c.at.X) + float64(dx)/2, Y: float64(c.at.Y) + float64(dy)/2}
}

// normal returns the crack's unit normal, from the left region to the right one.
func (c *crack) normal() fit.Point {
	dx, dy := c.dir.Delta()
	return fit.Point{X: float64(-dy), Y: float64(dx)}
}

// sample returns where the crack's current offset places the boundary.
func (c *crack) sample() fit.Point { return c.mid().Add(c.normal().Mul(float64(c.offset))) }

// edgeState is what refine keeps per edge.
type edgeState struct {
	cracks []crack
	// pm holds the premultiplied left and right colours; measurable is false when
	// they are too alike for coverage to mean anything, or one side is outside.
	left, right [4]float32
	measurable  bool
	// diff is left - right, diff2 its squared length and minAlpha the alpha below
	// which a pixel is read as a seam: what coverage needs, worked out once per edge.
	diff     [4]float32
	diff2    float32
	minAlpha float32
	// tolScale multiplies the fit tolerance: a boundary between similar colours
	// may stray further for the same visible error.
	tolScale float64
}

// Contrast-scaled tolerance: an edge displaced by d pixels costs about d times the
// colour difference across it in every pixel along it, so boundaries of low contrast
// (the bands of a quantised gradient) are fitted more loosely, up to maxTolScale times
// the tolerance, from refContrast (0..255 premultiplied RGBA units) down.
const (
	refContrast = 100
	maxTolScale = 4
)

func tolScale(contrast float64) float64 {
	if contrast <= 0 {
		return maxTolScale
	}
	return math.Max(1, math.Min(maxTolScale, refContrast/contrast))
}

// minContrast is the smallest distance (0..255 premultiplied RGBA units) between two
// regions' colours for which anti-aliasing is measured.
const minContrast = 24

// Fit fits the edges of seg, a segmentation of img, where plan wants them: at the fit
// tolerance, with the render-and-refine passes the image size allows, and each edge
// moved by the plan's shift for its gap filler.
func Fit(ctx context.Context, img *image.NRGBA, seg *segment.Segmentation, plan *paint.Plan, tolerance float64) (*Result, error) {
	return Run(ctx, img, seg, Options{Tolerance: tolerance, Passes: passes(img.Rect.Dx() * img.Rect.Dy()),
		EdgeShift: plan.EdgeShifts(seg)})
}

// passes is the render-and-refine budget: passes for an image of n pixels. One
// pass corrects the edges that the anti-aliasing alone placed badly (thin features,
// fit deviations); more passes gained little on the bench corpus (+0.002 SSIM) for many
// more path segments (+15 % bytes). Above 4 megapixels the pass is skipped to bound the
// time and the memory of its canvas.
func passes(n int) int {
	if n <= 4_000_000 {
		return 1
	}
	return 0
}

// Run fits every edge of seg, placing it by the anti-aliasing of img, then refines.
func Run(ctx context.Context, img *image.NRGBA, seg *segment.Segmentation, opt Options) (*Result, error) {
	res := &Result{Seg: seg, Edges: make([]fit.Path, len(seg.Planar.Edges)), Colors: make([]color.NRGBA, len(seg.Regions.Regions))}
	for i, r := range seg.Regions.Regions {
		if !r.Transparent() {
			res.Colors[i] = r.Color
		}
	}
	states, err := measureEdges(ctx, img, seg, res)
	if err != nil {
		return nil, err
	}
	res.states = states
	f := &fitter{pm: seg.Planar, states: states, res: res, opt: fit.Options{Tolerance: opt.Tolerance}}
	if err := f.fitAll(ctx); err != nil {
		return nil, err
	}
	if err := f.renderPasses(ctx, opt.Passes); err != nil {
		return nil, err
	}
	if opt.EdgeShift != nil {
		shiftEdges(seg.Planar, res, opt.EdgeShift)
	}
	return res, nil
}

// premul is region reg's colour premultiplied by its alpha; outside (reg < 0) is
// transparent.
func (res *Result) premul(reg int32) [4]float32 {
	if reg < 0 {
		return [4]float32{}
	}
	c := res.Colors[reg]
	a := float32(c.A)
	return [4]float32{float32(c.R) * a / 255, float32(c.G) * a / 255, float32(c.B) * a / 255, a}
}

// measureEdges sets up each edge's state: its side colours, tolerance scale and, for
// every crack along a measurable edge, the anti-aliasing target read from img.
func measureEdges(ctx context.Context, img *image.NRGBA, seg *segment.Segmentation, res *Result) ([]edgeState, error) {
	pm, rm := seg.Planar, seg.Regions
	w := rm.Width
	states := make([]edgeState, len(pm.Edges))
	imagePremul := func(x, y int) [4]float32 {
		o := x*4 + y*img.Stride
		a := float32(img.Pix[o+3])
		return [4]float32{float32(img.Pix[o]) * a / 255, float32(img.Pix[o+1]) * a / 255, float32(img.Pix[o+2]) * a / 255, a}
	}
	ptss := make([][]planar.Point, parallel.Workers(len(pm.Edges), edgeGrain))
	err := parallel.For(ctx, len(pm.Edges), edgeGrain, func(worker, lo, hi int) {
		pts := ptss[worker]
		for ei := lo; ei < hi; ei++ {
			e := &pm.Edges[ei]
			st := &states[ei]
			st.left, st.right = res.premul(e.Left), res.premul(e.Right)
			st.prepare()
			contrast := dist(st.left, st.right)
			st.measurable = e.Left >= 0 && e.Right >= 0 && contrast >= minContrast
			st.tolScale = 1
			if e.Left >= 0 && e.Right >= 0 {
				st.tolScale = tolScale(contrast)
			}
			pts = e.Points(pts[:0])
			st.cracks = make([]crack, len(e.Steps))
			for i, d := range e.Steps {
				p := pts[i]
				c := &st.cracks[i]
				dx, dy := d.Delta()
				c.at, c.dir = p, d
				lx, ly, rx, ry := crackPixels(p, d)
				c.win = [4]int32{-1, -1, -1, -1}
				if !st.measurable {
					continue
				}
				nx, ny := int(-dy), int(dx)
				// The target sums the window's coverages in the order of win.
				c.win[0] = int32(ly*w + lx)
				c.nLeft = 1
				target := st.coverage(imagePremul(lx, ly))
				if x2, y2 := lx-nx, ly-ny; rm.At(x2, y2) == e.Left {
					c.win[1] = int32(y2*w + x2)
					c.nLeft = 2
					target += st.coverage(imagePremul(x2, y2))
				}
				c.win[2] = int32(ry*w + rx)
				target += st.coverage(imagePremul(rx, ry))
				if x2, y2 := rx+nx, ry+ny; rm.At(x2, y2) == e.Right {
					c.win[3] = int32(y2*w + x2)
					target += st.coverage(imagePremul(x2, y2))
				}
				c.target = target
				c.offset = c.target - float32(c.nLeft)
			}
			if st.measurable {
				markOblique(st.cracks, e.Steps, e.Closed)
			}
		}
		ptss[worker] = pts
	})
	if err != nil {
		return nil, err
	}
	return states, nil
}

// renderPasses runs up to passes rounds of: render every region with the current fits,
// compare each measurable edge's rendered coverage with its target, and refit the
// edges that moved; it stops early when no edge changes.
func (f *fitter) renderPasses(ctx context.Context, passes int) error {
	res := f.res
	rm := res.Seg.Regions
	var canvas *render.Canvas
	var diffs [][]float32 // per worker
	defer func() {
		if canvas != nil {
			canvas.Release()
		}
	}()
	for pass := 0; pass < passes; pass++ {
		if canvas == nil {
			canvas = render.NewCanvas(rm.Width, rm.Height)
		} else {
			canvas.Clear()
		}
		if err := f.render(ctx, canvas); err != nil {
			return err
		}
		if len(diffs) < parallel.Workers(len(f.states), edgeGrain) {
			diffs = make([][]float32, parallel.Workers(len(f.states), edgeGrain))
		}
		err := parallel.For(ctx, len(f.states), edgeGrain, func(worker, lo, hi int) {
			for ei := lo; ei < hi; ei++ {
				if f.states[ei].measurable && f.states[ei].correct(canvas.Pix, &diffs[worker]) {
					f.dirty[ei] = true
				}
			}
		})
		if err != nil {
			return err
		}
		if !slices.Contains(f.dirty, true) {
			return nil
		}
		if err := f.fitAll(ctx); err != nil {
			return err
		}
	}
	return nil
}

// maskArea bounds the pixels of the region masks render holds at once: it rasterises
// the regions of one batch in parallel, then adds them to the canvas in order. A batch
// takes some milliseconds, and the context is checked between batches and between the
// ranges of regions a batch hands out.
const maskArea = 1 << 22

// regionGrain is the fewest regions worth handing to a goroutine of their own.
const regionGrain = 8

// render draws every region with the current fits onto canvas, transparent regions left
// out. Regions are rasterised in parallel, in batches of at most maskArea pixels of
// masks, and added in region order (rows of the canvas in parallel), so every pixel sums
// the same floats in the same order whatever the number of cores.
func (f *fitter) render(ctx context.Context, canvas *render.Canvas) error {
	res := f.res
	rm := res.Seg.Regions
	full := image.Rect(0, 0, rm.Width, rm.Height)
	bounds := func(reg int) image.Rectangle { return rm.Regions[reg].Bounds.Inset(-2).Intersect(full) }
	workers := parallel.Workers(len(rm.Regions), regionGrain)
	// The workers' rasterisers come from a pool: each holds a buffer of 4 bytes a pixel
	// of its largest mask, which a new rasteriser per trace would allocate and clear again.
	if len(f.rasts) < workers {
		for len(f.rasts) < workers {
			sc, _ := renderScratches.Get().(*renderScratch)
			if sc == nil {
				sc = new(renderScratch)
			}
			f.rasts = append(f.rasts, sc)
		}
		defer func() {
			for _, sc := range f.rasts {
				renderScratches.Put(sc)
			}
			f.rasts = nil
		}()
	}
	var masks []render.Mask
	// The masks' buffer is kept between traces, as the canvas is: allocating and
	// clearing megabytes each pass costs more than a small image's rendering.
	bp, _ := maskBufs.Get().(*[]uint8)
	if bp == nil {
		bp = new([]uint8)
	}
	defer maskBufs.Put(bp)
	buf := *bp
	defer func() { *bp = buf }()
	for lo := 0; lo < len(rm.Regions); {
		// The batch: regions lo..hi-1, their masks at offsets in buf.
		hi, area := lo, 0
		var offsets []int
		for hi < len(rm.Regions) && (hi == lo || area+bounds(hi).Dx()*bounds(hi).Dy() <= maskArea) {
			offsets = append(offsets, area)
			if !rm.Regions[hi].Transparent() {
				area += bounds(hi).Dx() * bounds(hi).Dy()
			}
			hi++
		}
		if cap(buf) < area {
			buf = make([]uint8, area)
		}
		buf = buf[:area]
		masks = slices.Grow(masks[:0], hi-lo)[:hi-lo]
		err := parallel.For(ctx, hi-lo, regionGrain, func(worker, a, b int) {
			sc := f.rasts[worker]
			for k := a; k < b; k++ {
				reg := lo + k
				masks[k] = render.Mask{}
				if rm.Regions[reg].Transparent() {
					continue
				}
				sc.paths, sc.segs = res.RegionPaths(reg, sc.paths[:0], sc.segs[:0])
				end := area
				if k+1 < hi-lo {
					end = offsets[k+1]
				}
				_, masks[k] = sc.rast.Mask(sc.paths, bounds(reg), buf[offsets[k]:end:end])
			}
		})
		if err != nil {
			return err
		}
		// Rows of the canvas are shared out; each adds the batch's masks in region order.
		err = parallel.For(ctx, rm.Height, max(1, 16384/max(1, rm.Width)), func(_, y0, y1 int) {
			for k, m := range masks {
				if len(m.Alpha) > 0 && m.Bounds.Min.Y < y1 && m.Bounds.Max.Y > y0 {
					canvas.AddMaskRows(m, res.premul(int32(lo+k)), y0, y1)
				}
			}
		})
		if err != nil {
			return err
		}
		lo = hi
	}
	return ctx.Err()
}

// maskBufs keeps released mask buffers of render (*[]uint8).
var maskBufs sync.Pool

// renderScratches keeps released render workers' scratch (*renderScratch).
var renderScratches sync.Pool

// renderScratch is one render worker's rasteriser and path buffers.
type renderScratch struct {
	rast  render.Rasterizer
	paths []fit.Path
	segs  []fit.Segment
}

// normalSums is the least-squares system for moving a junction so that every edge
// meeting there moves by its own distance along its unit normal.
type normalSums struct{ xx, xy, yy, bx, by float64 }

// add asks for a move by d along the unit normal n.
func (a *normalSums) add(n fit.Point, d float64) {
	a.xx += n.X * n.X
	a.xy += n.X * n.Y
	a.yy += n.Y * n.Y
	a.bx += n.X * d
	a.by += n.Y * d
}

// solve returns the move of junction j that best meets the requests, damped by lambda
// toward no move where they do not fix it; a junction on the image border of pm stays
// on it.
func (a *normalSums) solve(lambda float64, j planar.Point, pm *planar.Map) fit.Point {
	xx, yy := a.xx+lambda, a.yy+lambda
	det := xx*yy - a.xy*a.xy
	m := fit.Point{X: (a.bx*yy - a.by*a.xy) / det, Y: (xx*a.by - a.xy*a.bx) / det}
	if j.X == 0 || int(j.X) == pm.Width {
		m.X = 0
	}
	if j.Y == 0 || int(j.Y) == pm.Height {
		m.Y = 0
	}
	return m
}

// shiftEdges moves every fitted edge by its shift along its right-hand normal. The ends of
// open edges go to their junction moved so that every edge meeting there keeps its own
// shift, in the least-squares sense, so the edges still meet.
func shiftEdges(pm *planar.Map, res *Result, shift []float64) {
	sums := make(map[planar.Point]*normalSums, len(pm.Junctions))
	add := func(j planar.Point, n fit.Point, d float64) {
		a := sums[j]
		if a == nil {
			a = &normalSums{}
			sums[j] = a
		}
		a.add(n, d)
	}
	for ei := range pm.Edges {
		e := &pm.Edges[ei]
		if e.Closed {
			continue
		}
		p := res.Edges[ei]
		add(e.Start, p.StartNormal(), shift[ei])
		add(e.End(), p.EndNormal(), shift[ei])
	}
	moved := make(map[planar.Point]fit.Point, len(sums))
	for j, a := range sums {
		moved[j] = a.solve(0.05, j, pm)
	}
	for ei := range pm.Edges {
		d := shift[ei]
		e := &pm.Edges[ei]
		p := res.Edges[ei]
		if e.Closed {
			if d != 0 {
				res.Edges[ei] = p.Offset(d)
			}
			continue
		}
		ms, me := moved[e.Start], moved[e.End()]
		if d == 0 && ms == (fit.Point{}) && me == (fit.Point{}) {
			continue
		}
		res.Edges[ei] = p.Offset(d).WithEnds(p.From.Add(ms), p.End().Add(me))
	}
}

// Refinement: an edge whose render differs from the input by more than badMismatch pixels
// on average (the left region's coverage summed across the edge, smoothed along it over
// 2·smoothReach+1 cracks to average out the input renderer's coarse anti-aliasing) has its
// samples moved by damping times the smoothed difference and is refitted with half its
// tolerance, down to minTolScale of the tolerance.
const (
	smoothReach = 2
	damping     = 0.7
	minTolScale = 0.25
)

// badMismatch is the mean smoothed mismatch (in pixels of coverage) that marks an edge
// for correction; a corrected edge's tolerance is multiplied by tightening.
const (
	badMismatch = 0.3
	tightening  = 0.5
)

// correct compares the edge's cracks in the render (premultiplied RGBA, 4 floats a
// pixel) with the input and, when the edge is off, moves its samples and tightens its
// fit. It reports whether it changed anything.
func (st *edgeState) correct(render []float32, diff *[]float32) bool {
	n := len(st.cracks)
	d := (*diff)[:0]
	for i := range st.cracks {
		c := &st.cracks[i]
		d = append(d, c.target-st.mass(c, render))
	}
	*diff = d
	var total float32
	smooth := make([]float32, n)
	for i := range d {
		lo, hi := max(0, i-smoothReach), min(n-1, i+smoothReach)
		var s float32
		m := 0
		for k := lo; k <= hi; k++ {
			if !st.cracks[k].oblique {
				s += d[k]
				m++
			}
		}
		if m > 0 {
			smooth[i] = s / float32(m)
		}
		total += abs32(smooth[i])
	}
	if total/float32(n) < badMismatch {
		return false
	}
	for i := range st.cracks {
		c := &st.cracks[i]
		c.offset += damping * smooth[i]
		lim := float32(c.nLeft)
		c.offset = max(-lim, min(lim, c.offset))
	}
	st.tolScale = math.Max(minTolScale, st.tolScale*tightening)
	return true
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// prepare works out what coverage needs from the edge's side colours.
func (st *edgeState) prepare() {
	st.diff2 = 0
	for k := range st.diff {
		st.diff[k] = st.left[k] - st.right[k]
		st.diff2 += st.diff[k] * st.diff[k]
	}
	st.minAlpha = min(st.left[3], st.right[3]) - seamAlpha
}

// mass sums the left region's coverage over the crack's window in render, premultiplied
// RGBA with 4 floats a pixel.
func (st *edgeState) mass(c *crack, render []float32) float32 {
	var sum float32
	for _, i := range c.win {
		if i < 0 {
			continue
		}
		p := render[4*i : 4*i+4 : 4*i+4]
		sum += st.coverage([4]float32{p[0], p[1], p[2], p[3]})
	}
	return sum
}

// coverage returns the left region's coverage of a pixel of premultiplied colour p: its
// projection onto the line from the right colour to the left one, or its seam share.
func (st *edgeState) coverage(p [4]float32) float32 {
	if p[3] < st.minAlpha {
		if t, ok := seamCoverage(p, st.left, st.right); ok {
			return t
		}
	}
	var t float32
	for k := range p {
		t += (p[k] - st.right[k]) * st.diff[k]
	}
	return max(0, min(1, t/st.diff2))
}

// seamAlpha is how much more transparent than both regions a pixel must be to count as
// a conflation seam: the input was itself drawn by painting abutting anti-aliased shapes,
// and the background shows through along their shared edge.
const seamAlpha = 8

// seamCoverage reads a seam pixel p as t·left + u·right over transparency (all
// premultiplied) and returns the left region's share t/(t+u) of what covers it: where
// the boundary lies, whatever shows through. ok is false when the two colours cannot be
// told apart that way.
func seamCoverage(p, left, right [4]float32) (float32, bool) {
	var aa, ab, bb, pa, pb float32
	for k := range p {
		aa += left[k] * left[k]
		ab += left[k] * right[k]
		bb += right[k] * right[k]
		pa += p[k] * left[k]
		pb += p[k] * right[k]
	}
	det := aa*bb - ab*ab
	if det <= 1e-3*aa*bb {
		return 0, false
	}
	t := max(0, (pa*bb-pb*ab)/det)
	u := max(0, (pb*aa-pa*ab)/det)
	if t+u < 0.1 {
		return 0, false
	}
	return t / (t + u), true
}

func dist(a, b [4]float32) float64 {
	var s float64
	for k := range a {
		d := float64(a[k] - b[k])
		s += d * d
	}
	return math.Sqrt(s)
}

// obliqueReach is how many cracks on either side give the local direction of the
// boundary, and obliqueCos the cosine of the angle between a crack and that direction
// above which the crack's measurement is used; minSamples is the number of cracks an
// edge keeps at least (no crack is dropped from shorter edges).
const (
	obliqueReach = 3
	obliqueCos   = 0.5
	minSamples   = 8
)

// markOblique marks the cracks that run across the boundary's local direction (see
// crack.oblique). The first and last crack of an open edge are kept: they place its
// junctions.
func markOblique(cracks []crack, steps []planar.Dir, closed bool) {
	n := len(steps)
	if n < minSamples {
		return
	}
	// step returns the step k of the walk along the edge (around it when closed), zero
	// beyond the ends of an open edge.
	step := func(k int) (int32, int32) {
		if closed {
			k = ((k % n) + n) % n
		} else if k < 0 || k >= n {
			return 0, 0
		}
		return steps[k].Delta()
	}
	// tx, ty sum the steps within obliqueReach of crack i, kept up to date as i moves.
	var tx, ty int32
	for k := -obliqueReach; k <= obliqueReach; k++ {
		dx, dy := step(k)
		tx += dx
		ty += dy
	}
	for i := range cracks {
		if i > 0 {
			ax, ay := step(i + obliqueReach)
			rx, ry := step(i - obliqueReach - 1)
			tx += ax - rx
			ty += ay - ry
		}
		if !closed && (i == 0 || i == n-1) {
			continue
		}
		dx, dy := steps[i].Delta()
		l := math.Hypot(float64(tx), float64(ty))
		cracks[i].oblique = l > 0 && float64(dx*tx+dy*ty) < obliqueCos*l
	}
}

// crackPixels returns the pixels left and right of the crack leaving p in direction d.
func crackPixels(p planar.Point, d planar.Dir) (lx, ly, rx, ry int) {
	x, y := int(p.X), int(p.Y)
	switch d {
	case planar.East:
		return x, y - 1, x, y
	case planar.South:
		return x, y, x - 1, y
	case planar.West:
		return x - 1, y, x - 1, y - 1
	}
	return x - 1, y - 1, x, y - 1
}

// fitter fits edges, refitting only what changed.
type fitter struct {
	pm        *planar.Map
	states    []edgeState
	res       *Result
	opt       fit.Options
	junctions map[planar.Point]fit.Point
	dirty     []bool        // edges to refit; nil: all
	samples   [][]fit.Point // per worker
	rasts     []*renderScratch
}

// edgeGrain is the fewest edges worth handing to a goroutine of their own.
const edgeGrain = 64

// fitAll places the junctions and fits the edges that are dirty or end at a junction
// that moved.
func (f *fitter) fitAll(ctx context.Context) error {
	pm := f.pm
	junctions := placeJunctions(pm, f.states)
	all := f.dirty == nil
	if all {
		f.dirty = make([]bool, len(pm.Edges))
	}
	// Each edge's fit reads only its own samples and the junctions, so edges are
	// fitted in parallel with the same result.
	if len(f.samples) < parallel.Workers(len(pm.Edges), edgeGrain) {
		f.samples = make([][]fit.Point, parallel.Workers(len(pm.Edges), edgeGrain))
	}
	err := parallel.For(ctx, len(pm.Edges), edgeGrain, func(worker, lo, hi int) {
		samples := f.samples[worker]
		for ei := lo; ei < hi; ei++ {
			e := &pm.Edges[ei]
			if !all && !f.dirty[ei] {
				if e.Closed || junctions[e.Start] == f.junctions[e.Start] && junctions[e.End()] == f.junctions[e.End()] {
					continue
				}
			}
			f.dirty[ei] = false
			st := &f.states[ei]
			samples = samples[:0]
			for i := range st.cracks {
				c := &st.cracks[i]
				if c.oblique {
					continue
				}
				samples = append(samples, c.sample())
			}
			o := f.opt
			o.Tolerance *= st.tolScale
			if e.Closed {
				f.res.Edges[ei] = fit.Closed(samples, o)
				continue
			}
			f.res.Edges[ei] = fit.Open(junctions[e.Start], junctions[e.End()], samples, o)
		}
		f.samples[worker] = samples
	})
	if err != nil {
		return err
	}
	f.junctions = junctions
	return nil
}

// placeJunctions moves each junction to the point that best agrees with the offsets of
// the cracks that meet there, in the least-squares sense; a junction on the image
// border stays on it.
func placeJunctions(pm *planar.Map, states []edgeState) map[planar.Point]fit.Point {
	sums := make(map[planar.Point]*normalSums, len(pm.Junctions))
	for _, j := range pm.Junctions {
		sums[j] = &normalSums{}
	}
	add := func(j planar.Point, c *crack) {
		sums[j].add(c.normal(), float64(c.offset))
	}
	for ei := range pm.Edges {
		e := &pm.Edges[ei]
		if e.Closed {
			continue
		}
		st := &states[ei]
		add(e.Start, &st.cracks[0])
		add(e.End(), &st.cracks[len(st.cracks)-1])
	}
	out := make(map[planar.Point]fit.Point, len(sums))
	for _, j := range pm.Junctions {
		// lambda 0.1 keeps a junction put where the cracks do not fix it.
		d := sums[j].solve(0.1, j, pm)
		out[j] = fit.Point{X: float64(j.X) + d.X, Y: float64(j.Y) + d.Y}
	}
	return out
}

// Samples returns, for every crack of edge ei, the point where the anti-aliasing (and
// refinement) places the boundary across it, oblique cracks included (they are left out
// of the fit): for tools that inspect the tracing.
func (r *Result) Samples(ei int) []fit.Point {
	st := &r.states[ei]
	out := make([]fit.Point, len(st.cracks))
	for i := range st.cracks {
		c := &st.cracks[i]
		out[i] = c.sample()
	}
	return out
}
