// Package trace is the centre-line tracer: it binarises an image (package ink), finds
// the medial axis (distance, skeleton), builds strokes (graph), centres and measures
// them on the grey levels (width), fits lines and curves (fit), sets filled areas apart
// (fill), orders the strokes for a pen (order) and writes the SVG (svgout).
package trace

import (
	"context"
	"image"
	"image/color"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
	"github.com/tracecraft/tracecraft/plugins/centerline/fill"
	"github.com/tracecraft/tracecraft/plugins/centerline/fit"
	"github.com/tracecraft/tracecraft/plugins/centerline/graph"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
	"github.com/tracecraft/tracecraft/plugins/centerline/internal/grain"
	"github.com/tracecraft/tracecraft/plugins/centerline/order"
	"github.com/tracecraft/tracecraft/plugins/centerline/skeleton"
	"github.com/tracecraft/tracecraft/plugins/centerline/svgout"
	"github.com/tracecraft/tracecraft/plugins/centerline/width"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// WidthMode says how a stroke's width is chosen.
type WidthMode int

const (
	// WidthAuto gives each stroke its own median width.
	WidthAuto WidthMode = iota
	// WidthVariable splits a stroke where its width changes a lot, each part with its
	// own median width.
	WidthVariable
	// WidthFixed gives every stroke Options.Width.
	WidthFixed
)

// FillMode says how solid areas wider than lines are drawn.
type FillMode int

const (
	// FillOutline draws them as filled outlines.
	FillOutline FillMode = iota
	// FillHatch draws them as parallel strokes, for a pen.
	FillHatch
)

// Options are the tracer's settings.
type Options struct {
	// Threshold and Level binarise the image (Level is the luma threshold of Fixed and
	// Auto).
	Threshold ink.Mode
	Level     float64
	// MinLength drops strokes whose drawn extent (length plus width) is shorter.
	MinLength float64
	// Tolerance is the fit's largest distance from the measured centre line.
	Tolerance float64
	// Width chooses stroke widths; FixedWidth is used with WidthFixed.
	Width      WidthMode
	FixedWidth float64
	// JoinGaps bridges gaps between aligned free ends up to this many pixels.
	JoinGaps float64
	// Fill chooses how solid areas are drawn.
	Fill FillMode
	// CloseLoops closes strokes whose ends meet.
	CloseLoops bool
	// Colors is the number of pen colours (1: every ink pixel is one black pen).
	Colors int
}

// DefaultOptions returns the engine's defaults.
func DefaultOptions() Options {
	return Options{Threshold: ink.Auto, Level: 128, MinLength: 4, Tolerance: 0.5, CloseLoops: true, Colors: 1}
}

// Result is a traced image.
type Result struct {
	SVG []byte
	// Travel is the pen-up travel between strokes, in pixels.
	Travel float64
	// Strokes and Segments count what was written.
	Strokes, Segments int
	// Groups holds the strokes before writing, for measurements.
	Groups []svgout.Group
}

// The filled outlines' fit: its tolerance in pixels, the smallest turn in degrees that
// makes a corner (blunter turns are fitted as curves, with fewer segments), and the
// smoothing passes before it. An outline is traced along its pixels' edges, whose
// staircase the smoothing takes out; few corners and a looser tolerance than the
// strokes' give longer curves, and a pixel off an edge shows less than a pixel off a
// stroke's centre line, which moves both its sides. (On the lineart images of the
// bench corpus, all traced as outlines: tolerance 0.75 with 80 degree corners and 5
// passes gave 0.58 of the potrace engine's segments at 0.990 of its SSIM; tolerance 1
// with 140 degrees and 10 passes gives fewer at 0.98. With the fit's later changes,
// 0.9 rather than 1 costs 3 % more segments for SSIM 0.971 -> 0.976 on the corpus
// and 0.961 -> 0.962 on 30 generated drawings, synth.Art.)
const (
	outlineTolerance = 0.9
	outlineCorner    = 140
	outlineSmoothing = 10
)

// outlineSample: a filled outline is fitted at every third point (fit.Options.Sample:
// its pieces end there and are measured there). Its points, one per crack of the
// pixels' edge, are smoothed over ten passes, far more than a stroke's centre line, so
// that they lie on a curve smoother still at that spacing. (Lineart corpus against the
// potrace engine, medians: when pieces could end at any point and were measured at
// every point, SSIM ratio 0.983 at segments ratio 0.416, at every third 0.981 at 0.405;
// ending at every third point too, 0.984 at 0.421, and with the fit's later changes
// 0.984 at 0.427. Every fourth: 0.983 at 0.430, for 4.5 % fewer instructions on the
// owl, left out as too near half of the potrace engine's segments.)
const outlineSample = 3

// strokeCorner is the smallest turn, in degrees, that makes a corner of a stroke:
// only a hairpin is kept sharp; a blunter turn is fitted as the curves' ends meeting
// within the tolerance, which the centre line measured around a corner already is.
// (Against 55 degrees: on the synthetic strokes, mean distance to the true line 0.126
// -> 0.118 px clean, p99 0.69 -> 0.69 px with noise; on the lineart images fewer
// segments at the same SSIM.)
const strokeCorner = 120

// absorbShare: a connected part of the ink of which filled areas cover at least this
// share is outlined whole (fill.Parts.Absorb), its thin parts too.
const absorbShare = 0.3

// minFillArea is the least area, in square pixels, of a filled outline or a hole in
// one that is written: smaller ones (specks and pinholes left where the strokes'
// discs and the blobs meet) cost segments and show little.
const minFillArea = 8

// blobFactor: an area is a filled blob, not a line, where a disc this many times the
// typical line radius fits (and at least minBlobRadius pixels).
const (
	blobFactor    = 2
	minBlobRadius = 6
)

// Trace traces img with o.
func Trace(ctx context.Context, img *image.NRGBA, o Options) (Result, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var groups []svgout.Group
	if o.Colors <= 1 {
		g, m := ink.Binarise(ink.Darkness(img), o.Threshold, o.Level)
		grp, err := traceMask(ctx, g, m.Pix, w, h, o)
		if err != nil {
			return Result{}, err
		}
		// Nothing of the trace refers to the ink's image or mask: the next trace
		// reuses their buffers.
		ink.Release(g, m)
		grp.Color = color.NRGBA{A: 255}
		groups = append(groups, grp)
	} else {
		g, m := ink.Binarise(ink.Strength(img), o.Threshold, o.Level)
		cols, labels := ink.Palette(img, m, o.Colors)
		for c, col := range cols {
			mc := make([]bool, len(labels))
			gc := &ink.Image{W: w, H: h, Pix: slices.Clone(g.Pix)}
			for i, l := range labels {
				mc[i] = l == c
				if l >= 0 && l != c {
					gc.Pix[i] = 0
				}
			}
			grp, err := traceMask(ctx, gc, mc, w, h, o)
			if err != nil {
				return Result{}, err
			}
			grp.Color = col
			groups = append(groups, grp)
		}
	}
	travel := 0.0
	strokes := 0
	for gi := range groups {
		strokes += len(groups[gi].Strokes)
		var t float64
		groups[gi].Strokes, t = ordered(groups[gi].Strokes)
		travel += t
	}
	doc, segs := svgout.Document(w, h, groups, travel)
	return Result{SVG: doc, Travel: travel, Strokes: strokes, Segments: segs, Groups: groups}, nil
}

func traceMask(ctx context.Context, g *ink.Image, m []bool, w, h int, o Options) (svgout.Group, error) {
	var grp svgout.Group
	if err := ctx.Err(); err != nil {
		return grp, err
	}
	// The ink's runs, found once: the stages below read them rather than the mask.
	rs := distance.FindRuns(m, w, h)
	d := distance.TransformRuns(rs, w, h)
	if err := ctx.Err(); err != nil {
		return grp, err
	}
	typical, blobs, blobRuns := areas(rs, d, w, h)
	// On a small image the ink level is measured on this goroutine, not on one more:
	// starting one and handing it the data costs more there than it saves (see package
	// grain).
	small := w*h < grain.MinPixels
	// The ink level, measured on one more goroutine while the skeleton and the graph
	// are found on this one: they take one core, and the level needs only the ink and
	// its depth.
	var level float64
	levelDone := make(chan struct{})
	measureLevel := func() {
		level = width.InkLevelRuns(g, rs, d)
		close(levelDone)
	}
	if small {
		measureLevel()
	} else {
		go measureLevel()
	}
	// The ink's connected parts, numbered when first needed (on whichever goroutine).
	parts := sync.OnceValue(func() *fill.Parts { return fill.PartsOf(rs, w) })
	sk, blobs, whole, err := strokeSkeleton(ctx, rs, d, w, h, blobs, blobRuns, o, parts)
	if err != nil {
		<-levelDone
		return grp, err
	}
	// The outlines of the parts that a redrawPlan is likely to weigh are found ahead,
	// on one more goroutine: the plan needs them fitted, and those parts' strokes and
	// fills only to weigh them against. Those of the parts that hold some of the
	// filled areas, and of the large parts (see largeParts), are found while the graph
	// is built on this one, on one core; those of the parts with uneven strokes (which
	// join the areas) once the strokes are prepared. Those the plan is likely to weigh
	// are fitted once the strokes are, while the areas are found (below). (On a
	// 640 x 480 brush drawing redrawn whole, they had waited for the areas: found from
	// 5.8 ms into a trace of 8.6 ms and fitted by 7.4 ms; now fitted by 6.1 ms of 7.3.)
	// On a small image they are found with the others, once the plan knows which (see
	// package grain).
	var ahead []*wholeOutlines
	var likely []bool // the parts likely weighed (by number), known once the strokes are prepared
	findAhead := func(sel func(*fill.Parts) []bool) {
		wo := &wholeOutlines{ready: make(chan struct{})}
		ahead = append(ahead, wo)
		go func() {
			ps := parts()
			wo.sel = sel(ps)
			<-levelDone
			wo.find(ps, g, level)
		}()
	}
	// aheadDone waits for the outlines found ahead: they read the ink, its parts and
	// the areas' runs.
	aheadDone := func() {
		for _, wo := range ahead {
			<-wo.ready
		}
	}
	defer aheadDone()
	// The parts that hold some of the filled areas (by number), where there are areas:
	// the parts are numbered then (some may have been absorbed whole).
	var held []bool
	if whole != nil {
		held = parts().Holding(blobRuns)
	}
	if o.Fill == FillOutline && o.Width != WidthFixed && !small {
		choose := func(ps *fill.Parts) []bool {
			sel := largeParts(ps)
			for k := range held {
				sel[k] = (sel[k] || held[k]) && !whole[k]
			}
			return sel
		}
		if whole == nil {
			findAhead(choose) // the parts are numbered on that goroutine
		} else if sel := choose(parts()); slices.Contains(sel, true) {
			// The parts are numbered (some were absorbed whole): none is left to find
			// ahead in a drawing all silhouettes.
			findAhead(func(*fill.Parts) []bool { return sel })
		}
	}
	gopt := graph.DefaultOptions()
	gopt.JoinGaps, gopt.CloseLoops = o.JoinGaps, o.CloseLoops
	ss := graph.BuildPixels(sk.Pixels(), d, w, h, gopt)
	<-levelDone
	// The distance map's last readers are done (the graph and the ink level): the next
	// trace reuses it.
	distance.Release(d)
	if err := ctx.Err(); err != nil {
		return grp, err
	}
	fopt := fit.Options{Tolerance: o.Tolerance, CornerAngle: strokeCorner}
	// Strokes are measured, prepared and fitted each on its own, in parallel, and
	// written in their order.
	all := make([]width.Measured, len(ss))
	if err := parallel.For(ctx, len(ss), 32, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			all[i] = width.Measure(ss[i], g, level)
		}
	}); err != nil {
		return grp, err
	}
	width.Snap(all, g, level)
	prepared := make([][]strokePart, len(ss))
	discs := make([][]fill.Disc, len(ss))
	if err := parallel.For(ctx, len(ss), 32, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			prepared[i], discs[i] = prepareStroke(ss[i], all[i], g, level, o)
		}
	}); err != nil {
		return grp, err
	}
	// The filled areas need the strokes' discs, not their fits: they are found on one
	// more goroutine while the strokes are fitted, which keeps both cores busy through
	// what was a serial stretch (covering, growing and outlining the areas, and
	// planning which parts are redrawn whole); where there are no strokes, on this
	// goroutine. Nothing else touches the parts, blobs,
	// polys, firsts or plan until it is done, but for the fills' fits: once the plan
	// knows which parts may be redrawn (ready), the fills are fitted while the
	// outlines of those parts not found ahead (above) are found (plan.selectWhole, up
	// to areasDone), which only the parts' own fits wait for. (On the openclipart owl, the strokes' fits
	// end about 4 ms before the areas are done, 1.2 ms of which went to those
	// outlines.)
	var polys [][]fill.Pt
	var firsts []fill.Pt
	var plan *redrawPlan
	var sp *strokeParts // the strokes' parts: found here where outlines are found ahead
	if ahead != nil {
		uneven := unevenParts(parts(), ss, discs)
		if first := ahead[0]; uneven != nil {
			findAhead(func(*fill.Parts) []bool {
				<-first.ready
				sel := slices.Clone(uneven)
				for k := range sel {
					sel[k] = sel[k] && !first.sel[k]
				}
				return sel
			})
		}
		// The parts likely weighed: those that hold some of the areas or have uneven
		// strokes, stroked and not bridged.
		sp = partsOfStrokes(parts(), ss, drawn(prepared))
		likely = make([]bool, parts().Len())
		for k := range likely {
			likely[k] = held != nil && held[k] || uneven != nil && uneven[k]
		}
		likely = sp.weighed(likely)
	}
	areasDone, ready := make(chan struct{}), make(chan struct{})
	findAreas := func() {
		defer close(areasDone)
		readied := false
		defer func() {
			if !readied {
				close(ready)
			}
		}()
		// The ink of strokes too uneven for one width joins the filled areas.
		if ds := slices.Concat(discs...); len(ds) > 0 {
			blobs = fill.Cover(blobs, m, w, h, ds)
			parts().Grow(blobs, m, taperGrow)
		}
		if o.Fill != FillOutline || blobs == nil {
			return
		}
		// The outlines moved to the ink's edge, and the first point of each before it
		// was moved (which tells the part it is beside).
		polys, firsts = parts().EdgeOutlines(blobs, g, level/2)
		if o.Width == WidthFixed {
			return
		}
		// The outlines that fitOutlines keeps (each fits to one segment or more).
		k := 0
		for i, poly := range polys {
			if math.Abs(fill.Area(poly)) >= minFillArea {
				polys[k], firsts[k] = poly, firsts[i]
				k++
			}
		}
		polys, firsts = polys[:k], firsts[:k]
		if sp == nil {
			sp = partsOfStrokes(parts(), ss, drawn(prepared))
		}
		plan = planRedraw(parts(), sp, firsts, ahead)
		plan.selected = areasDone
		readied = true
		close(ready)
		plan.selectWhole(g, level)
	}
	if len(ss) == 0 {
		findAreas() // no strokes to fit beside them (a silhouette)
	} else {
		go findAreas()
	}
	fitted := make([][]svgout.Stroke, len(ss))
	err = parallel.For(ctx, len(ss), 16, func(_, lo, hi int) {
		var buf strokeBuffers
		for i := lo; i < hi; i++ {
			fitted[i] = fitParts(prepared[i], fopt, &buf)
		}
	})
	for _, wo := range ahead {
		if err != nil {
			break
		}
		<-wo.ready
		err = wo.fit(ctx, likely)
	}
	if o.Fill == FillOutline && o.Width != WidthFixed {
		<-ready // finish waits for the rest
	} else {
		<-areasDone
	}
	if err != nil {
		<-areasDone
		return grp, err
	}
	if o.Fill == FillHatch {
		for _, f := range fitted {
			grp.Strokes = append(grp.Strokes, f...)
		}
		if blobs != nil {
			spacing := math.Max(1, 2*typical)
			for _, l := range fill.Hatch(blobs, w, h, spacing) {
				a, b := fit.Vec{X: l[0].X, Y: l[0].Y}, fit.Vec{X: l[1].X, Y: l[1].Y}
				grp.Strokes = append(grp.Strokes, svgout.Stroke{Segments: []fit.Segment{{Line: true, P0: a, P3: b}}, Width: spacing})
			}
		}
		distance.ReleaseOpening(blobs)
		return grp, nil
	}
	var fills []loop
	if blobs != nil {
		if o.Width != WidthFixed {
			fitFills := func(limit func(int) int, done func(int, []fit.Segment)) ([]loop, error) {
				return fitOutlines(ctx, polys, firsts, limit, done, plan.later)
			}
			fitted, fills, err = plan.finish(ctx, fitted, fitFills)
		} else {
			fills, err = fitOutlines(ctx, polys, firsts, nil, nil, nil)
		}
		if err != nil {
			<-areasDone
			return grp, err
		}
	}
	<-areasDone // (done already where there are fills)
	for _, f := range fitted {
		grp.Strokes = append(grp.Strokes, f...)
	}
	for _, f := range fills {
		grp.Fills = append(grp.Fills, f.segs)
	}
	// Nothing refers to the filled areas' mask any more (the areas are done, and
	// their outlines fitted): the next trace's opening reuses it.
	aheadDone()
	distance.ReleaseOpening(blobs)
	return grp, nil
}

// areas returns the typical line radius of the ink whose runs are rs and distance map
// d (w x h), and the filled areas (fill.BlobsAndRuns) where a disc blobFactor times as
// wide fits, with their runs (nil: none).
//
// The typical radius is the square root of distance.MedianRunDepth: each line counts
// about in proportion to its length, as along its centre line, and it is known before
// the skeleton, so that the parts of the ink outlined whole need not be thinned. The
// skeleton's median depth, used before, was the same on most line drawings, or a
// little more (the owl's 37 squared pixels against 25: blob radius 12.2 rather than
// 10), and more in silhouettes, whose skeleton runs down their widest parts (the
// horse's 225 against 185), whose filled areas are now found with a smaller disc. Of
// the 32 corpus images' SVGs only the owl's and two photos' changed; none of the 30
// generated drawings'.
func areas(rs distance.Runs, d []int32, w, h int) (typical float64, blobs []bool, blobRuns distance.Runs) {
	typical = 1
	if md, ok := distance.MedianRunDepth(rs, d, w); ok {
		typical = math.Sqrt(float64(md))
	}
	blobs, blobRuns = fill.BlobsAndRuns(rs, d, w, h, math.Max(minBlobRadius, blobFactor*typical))
	return typical, blobs, blobRuns
}

// strokeSkeleton returns the skeleton of the ink whose runs are rs and distance map d
// (w x h) that lies outside the filled areas blobs (of runs blobRuns) and is traced as
// strokes, and the areas. With o's outline fill and measured widths, the connected
// parts of the ink (parts) that the areas cover at least absorbShare of join them
// whole (blobs grows); those parts are not thinned at all, since their skeleton would
// all be taken off, and whole marks them (by number; nil: none).
// Thinning a part does not depend on the others (a pixel's turn looks at its eight
// neighbours alone), so the skeleton left is the same either way.
func strokeSkeleton(ctx context.Context, rs distance.Runs, d []int32, w, h int, blobs []bool, blobRuns distance.Runs, o Options, parts func() *fill.Parts) (sk *skeleton.Skeleton, areas []bool, whole []bool, err error) {
	thin := rs
	if o.Fill == FillOutline && o.Width != WidthFixed && blobs != nil {
		blobs, whole = parts().AbsorbRuns(blobs, blobRuns, absorbShare)
		thin = parts().Except(whole)
	}
	sk, err = skeleton.ThinRuns(ctx, thin, d, w, h)
	if err != nil {
		return nil, blobs, whole, err
	}
	if blobs != nil {
		sk.Remove(blobs)
	}
	return sk, blobs, whole, nil
}

// loop is a fitted outline and the first point of its pixels' outline (Outlines',
// before Subpixel), which tells the part of the ink it is in.
type loop struct {
	segs  []fit.Segment
	first fill.Pt
}

// fitOutlines fits polys (firsts: their loops' firsts) in parallel, leaving out those
// enclosing less than minFillArea. limit, when not nil, gives for poly i, just before
// it is fitted, the most segments its caller needs to know of: 0 fits it whole; below
// 0 leaves it out; above 0 stops its fit once it has more segments than that
// (fit.Options.MaxSegments); it may wait. done, when not nil, is given each poly's
// segments once fitted. Both are called from several goroutines at once. later, when
// not nil, says which polys to fit after all the others (those whose limit waits).
func fitOutlines(ctx context.Context, polys [][]fill.Pt, firsts []fill.Pt, limit func(i int) int, done func(i int, segs []fit.Segment), later func(i int) bool) ([]loop, error) {
	fitted := make([][]fit.Segment, len(polys))
	order := make([]int, 0, len(polys))
	for i := range polys {
		if later == nil || !later(i) {
			order = append(order, i)
		}
	}
	if later != nil {
		for i := range polys {
			if later(i) {
				order = append(order, i)
			}
		}
	}
	err := parallel.For(ctx, len(order), 8, func(_, lo, hi int) {
		for _, i := range order[lo:hi] {
			poly := polys[i]
			if math.Abs(fill.Area(poly)) < minFillArea {
				continue
			}
			most := 0
			if limit != nil {
				if most = limit(i); most < 0 {
					continue
				}
			}
			fitted[i] = fit.Fit(poly, nil, true, fit.Options{Tolerance: outlineTolerance, CornerAngle: outlineCorner, SmoothPasses: outlineSmoothing, MaxSegments: most, Sample: outlineSample})
			if done != nil {
				done(i, fitted[i])
			}
		}
	})
	if err != nil {
		return nil, err
	}
	var out []loop
	for i, segs := range fitted {
		if len(segs) > 0 {
			out = append(out, loop{segs, firsts[i]})
		}
	}
	return out, nil
}

// unevenParts returns the parts (by number) of the strokes ss with discs (of strokes
// too uneven for one width), or nil where there are none.
func unevenParts(parts *fill.Parts, ss []graph.Stroke, discs [][]fill.Disc) []bool {
	var sel []bool
	for i, ds := range discs {
		if len(ds) == 0 {
			continue
		}
		for _, p := range ss[i].Points {
			if k := parts.At(int(p.X), int(p.Y)); k >= 0 {
				if sel == nil {
					sel = make([]bool, parts.Len())
				}
				sel[k] = true
				break
			}
		}
	}
	return sel
}

// largeShare is the least share of the ink's pixels in a part that largeParts
// selects.
const largeShare = 0.25

// largeParts returns the parts (by number) that hold largeShare of the ink's
// pixels or more: at most four, whose outlines, found while the graph is built,
// cost at most one outline of the ink on a core otherwise idle.
func largeParts(parts *fill.Parts) []bool {
	sizes := parts.Sizes()
	total := 0
	for _, n := range sizes {
		total += n
	}
	sel := make([]bool, len(sizes))
	for k, n := range sizes {
		sel[k] = float64(n) >= largeShare*float64(total)
	}
	return sel
}

// drawn says which strokes are drawn, of those prepared: a part prepared is a stroke
// fitted (fitParts).
func drawn(prepared [][]strokePart) []bool {
	out := make([]bool, len(prepared))
	for i, p := range prepared {
		out[i] = len(p) > 0
	}
	return out
}

// pathCost is the number of segments a path of segs costs as the bench counts them: a
// move, the segments, and a close, which draws a closing line itself.
func pathCost(segs []fit.Segment, closed bool) int {
	n := 1 + len(segs)
	if closed {
		n++
		if segs[len(segs)-1].Line {
			n--
		}
	}
	return n
}

// redrawPlan decides which connected parts of the ink (parts) are drawn as their
// filled outlines: each that is partly filled (has some of the fills) and whose
// outline costs fewer segments than its strokes and fills together. Strokes running into a filled area of a
// woodcut or a brush drawing are often short and uneven: drawn whole, such a part
// renders as its ink does with fewer segments, while a part that is all lines (text,
// a pen drawing) is left as strokes. A stroke whose points lie in more than one part
// (a bridged gap) keeps its parts as they are.
//
// It is made (planRedraw) knowing only which strokes are drawn, and which parts of
// the ink may be redrawn whole, with their outlines (selectWhole), found while the
// strokes are fitted; finish then fits the outlines and decides.
type redrawPlan struct {
	parts      *fill.Parts
	strokePart []int  // each stroke's part, or -1 (not drawn, or on no part)
	polyPart   []int  // each fill's part, or -1
	redraw     []bool // parts that may be redrawn (stroked, filled and not bridged)
	some       bool   // a part may be redrawn
	// The outlines of parts found ahead, and those of the parts that may be redrawn but
	// for them, found by selectWhole (nil: none); selected, when not nil, is closed
	// once they are.
	ahead    []*wholeOutlines
	rest     *wholeOutlines
	selected <-chan struct{}
}

// strokeParts are the parts of the ink the drawn strokes lie in.
type strokeParts struct {
	of      []int  // each stroke's part, or -1 (not drawn, or on no part)
	stroked []bool // parts with strokes
	bridged []bool // parts a stroke leaves
}

// partsOfStrokes returns the parts of the strokes ss of which drawn says which are
// drawn (have fitted strokes).
func partsOfStrokes(parts *fill.Parts, ss []graph.Stroke, drawn []bool) *strokeParts {
	n := parts.Len()
	sp := &strokeParts{of: make([]int, len(ss)), stroked: make([]bool, n), bridged: make([]bool, n)}
	for i, s := range ss {
		sp.of[i] = -1
		if !drawn[i] {
			continue
		}
		k := -1
		for _, p := range s.Points {
			q := parts.At(int(p.X), int(p.Y))
			if q < 0 {
				continue
			}
			if k >= 0 && q != k {
				sp.bridged[k], sp.bridged[q] = true, true
			}
			k = q
		}
		if k < 0 {
			continue
		}
		sp.of[i], sp.stroked[k] = k, true
	}
	return sp
}

// weighed returns which of the parts sel are stroked and not bridged: those a plan
// weighs where they are filled.
func (sp *strokeParts) weighed(sel []bool) []bool {
	out := make([]bool, len(sel))
	for k := range sel {
		out[k] = sel[k] && sp.stroked[k] && !sp.bridged[k]
	}
	return out
}

// planRedraw returns the plan for the strokes whose parts are sp, and the fills whose
// loops' firsts are firsts, with the outlines found ahead. The outlines
// of the other parts that may be redrawn are found apart, by selectWhole.
func planRedraw(parts *fill.Parts, sp *strokeParts, firsts []fill.Pt, ahead []*wholeOutlines) *redrawPlan {
	n := parts.Len()
	filled := make([]bool, n) // parts with fills
	stroked, bridged := sp.stroked, sp.bridged
	pl := &redrawPlan{parts: parts, strokePart: sp.of, polyPart: make([]int, len(firsts)), ahead: ahead}
	for i, first := range firsts {
		pl.polyPart[i] = parts.Beside(first)
		if k := pl.polyPart[i]; k >= 0 {
			filled[k] = true
		}
	}
	pl.redraw = make([]bool, n)
	for k := range n {
		pl.redraw[k] = stroked[k] && filled[k] && !bridged[k]
	}
	pl.some = slices.Contains(pl.redraw, true)
	return pl
}

// selectWhole finds the outlines, moved to the ink's edge at level/2 of g, of the
// parts that may be redrawn but those found ahead.
func (pl *redrawPlan) selectWhole(g *ink.Image, level float64) {
	if !pl.some {
		return
	}
	sel := pl.redraw
	if pl.ahead != nil {
		sel = slices.Clone(sel)
		for _, wo := range pl.ahead {
			<-wo.ready
			for k, a := range wo.sel {
				sel[k] = sel[k] && !a
			}
		}
	}
	if slices.Contains(sel, true) {
		pl.rest = &wholeOutlines{sel: sel, ready: make(chan struct{})}
		pl.rest.find(pl.parts, g, level)
	}
}

// wholeOutlines are the outlines of some parts of the ink (sel, by number), moved to
// its edge, listed by key (fill.Parts.SelectEdgeOutlinesKeyed), with each one's part
// and, once fitted, its segments. ready, when not nil, is closed once they are found.
type wholeOutlines struct {
	sel    []bool
	ready  chan struct{}
	polys  [][]fill.Pt
	firsts []fill.Pt
	keys   []int
	part   []int           // each outline's part (Beside its first), or -1
	segs   [][]fit.Segment // each outline's fit
	fitted []bool          // whether each outline is fitted (or left out)
}

// find finds the outlines, moved to the ink's edge at level/2 of g, of the parts
// selected, and closes ready.
func (wo *wholeOutlines) find(parts *fill.Parts, g *ink.Image, level float64) {
	wo.polys, wo.firsts, wo.keys = parts.SelectEdgeOutlinesKeyed(wo.sel, g, level/2)
	wo.part = make([]int, len(wo.polys))
	for i, f := range wo.firsts {
		wo.part[i] = parts.Beside(f)
	}
	wo.segs, wo.fitted = make([][]fit.Segment, len(wo.polys)), make([]bool, len(wo.polys))
	if wo.ready != nil {
		close(wo.ready)
	}
}

// fit fits, in parallel, the outlines of the parts of (by number) not fitted yet;
// outlines beside no part are left out, as fitOutlines leaves out those enclosing
// little.
func (wo *wholeOutlines) fit(ctx context.Context, of []bool) error {
	var todo []int
	for i, k := range wo.part {
		if !wo.fitted[i] && (k < 0 || of[k]) {
			todo = append(todo, i)
			wo.fitted[i] = true
		}
	}
	if len(todo) == 0 {
		return nil
	}
	polys, firsts := make([][]fill.Pt, len(todo)), make([]fill.Pt, len(todo))
	for j, i := range todo {
		polys[j], firsts[j] = wo.polys[i], wo.firsts[i]
	}
	_, err := fitOutlines(ctx, polys, firsts, func(j int) int { return min(0, wo.part[todo[j]]) }, func(j int, segs []fit.Segment) { wo.segs[todo[j]] = segs }, nil)
	return err
}

// mergeLoops returns the fitted outlines of the parts of in sets (of disjoint
// parts), in key order: the loops that fitOutlines returns for the outlines of the
// sets together.
func mergeLoops(of []bool, sets []*wholeOutlines) (out []loop) {
	at := make([]int, len(sets))
	for {
		best := -1
		for j, s := range sets {
			if at[j] < len(s.keys) && (best < 0 || s.keys[at[j]] < sets[best].keys[at[best]]) {
				best = j
			}
		}
		if best < 0 {
			return out
		}
		s, i := sets[best], at[best]
		at[best]++
		if k := s.part[i]; k >= 0 && of[k] && len(s.segs[i]) > 0 {
			out = append(out, loop{s.segs[i], s.firsts[i]})
		}
	}
}

// later says whether fill i is of a part that may be redrawn: its fit waits for the
// parts' outlines to be fitted (see finish), and is best left till last.
func (pl *redrawPlan) later(i int) bool {
	k := pl.polyPart[i]
	return k >= 0 && pl.redraw[k]
}

// finish fits the outlines of the filled areas (fitFills, given limit and done as
// fitOutlines takes them), once the strokes are fitted (fitted, from the graph's
// strokes), and returns the strokes and fitted outlines left with the outlines of the
// parts redrawn added.
//
// The parts' outlines are fitted on one more goroutine while the fills are, and a
// fill of a part that would be redrawn waits for them (limit blocks): it is then
// fitted only as far as it takes to tell (its fit stops once the part's strokes and it
// alone cost more than the part's outline), since it is left out anyway. The fills
// of the other parts need not wait, and the two sets of fits share the cores rather
// than each waiting for its last fit to end.
func (pl *redrawPlan) finish(ctx context.Context, fitted [][]svgout.Stroke, fitFills func(limit func(int) int, done func(int, []fit.Segment)) ([]loop, error)) ([][]svgout.Stroke, []loop, error) {
	parts, redraw, polyPart := pl.parts, pl.redraw, pl.polyPart
	n := parts.Len()
	mix := make([]int, n) // each part's segments as strokes
	for i, k := range pl.strokePart {
		if k < 0 {
			continue
		}
		for _, st := range fitted[i] {
			mix[k] += pathCost(st.Segments, st.Closed)
		}
	}
	var whole []loop
	var wholePart []int
	var wholeErr error
	wholeDone := make(chan struct{})
	left := make([]atomic.Int64, n)
	fitWhole := func() {
		defer close(wholeDone)
		if pl.selected != nil {
			<-pl.selected
		}
		sets := pl.ahead
		if pl.rest != nil {
			sets = append(slices.Clip(sets), pl.rest)
		}
		for _, wo := range sets {
			<-wo.ready
			if wholeErr = wo.fit(ctx, redraw); wholeErr != nil {
				return
			}
		}
		whole = mergeLoops(redraw, sets)
		cost := make([]int, n)
		wholePart = make([]int, len(whole))
		for i, f := range whole {
			wholePart[i] = parts.Beside(f.first)
			if k := wholePart[i]; k >= 0 {
				cost[k] += pathCost(f.segs, true)
			}
		}
		for k := range n {
			if redraw[k] {
				left[k].Store(int64(cost[k] - mix[k]))
			}
		}
	}
	if pl.some {
		go fitWhole()
	} else {
		close(wholeDone)
	}
	// A part that may be redrawn is redrawn when its fills cost more than left, its
	// outline's cost less its strokes'. Its fills are fitted as far as it takes to
	// tell: each one's fit stops once it alone costs more than what is left (a fill of
	// MaxSegments+1 segments costs MaxSegments+2 or more, pathCost; and 2 or more
	// whatever the limit), and once left is below 0 the rest are not fitted. A fill
	// cut short or left out is one of a part redrawn, whose fills are dropped; when
	// none is, left is exact, so the parts redrawn are the same whichever the fits
	// that finish first.
	limit := func(i int) int {
		k := polyPart[i]
		if k < 0 || !redraw[k] {
			return 0
		}
		<-wholeDone
		if wholeErr != nil {
			return -1 // cancelled: the result is dropped
		}
		l := left[k].Load()
		if l < 0 {
			return -1
		}
		return int(max(1, l-1))
	}
	done := func(i int, segs []fit.Segment) {
		if k := polyPart[i]; k >= 0 && redraw[k] && len(segs) > 0 {
			left[k].Add(-int64(pathCost(segs, true)))
		}
	}
	fills, err := fitFills(limit, done)
	<-wholeDone
	if err == nil {
		err = wholeErr
	}
	if err != nil {
		return nil, nil, err
	}
	if !pl.some {
		return fitted, fills, nil
	}
	fillPart := make([]int, len(fills))
	for i, f := range fills {
		fillPart[i] = parts.Beside(f.first)
	}
	for k := range n {
		redraw[k] = redraw[k] && left[k].Load() < 0
	}
	for i, k := range pl.strokePart {
		if k >= 0 && redraw[k] {
			fitted[i] = nil
		}
	}
	var out []loop
	for i, f := range fills {
		if k := fillPart[i]; k < 0 || !redraw[k] {
			out = append(out, f)
		}
	}
	for i, f := range whole {
		if k := wholePart[i]; k >= 0 && redraw[k] {
			out = append(out, f)
		}
	}
	return fitted, out, nil
}

// A stroke is drawn as a filled outline where its measured widths stray from the one
// width it would be drawn with by taperPx pixels and taperShare of its width on average;
// taperGrow pixels of ink around its discs join it (its tips, its edges).
const (
	taperPx    = 1.5
	taperShare = 0.15
	taperGrow  = 2
)

// uneven says whether part, measured as a stroke of width wd, strays too far from
// that width to be drawn at it.
func uneven(part width.Measured, wd float64) bool {
	px, share := part.Spread(wd)
	return px >= taperPx && share >= taperShare
}

// strokeBuffers hold a part's points and radii as fitParts hands them to fit.Fit,
// which keeps neither, for the next part and stroke to reuse.
type strokeBuffers struct {
	pts    []fit.Vec
	radius []float64
}

// strokePart is a part of a stroke to be drawn at one width: measured, not yet fitted.
type strokePart struct {
	meas  width.Measured
	width float64
}

// prepareStroke returns stroke s, measured as meas, as the parts to be drawn: none
// when it is shorter than o.MinLength, else its parts (several where o.Width is
// WidthVariable) with their widths; and, with o.Fill FillOutline and widths measured,
// the discs of the ink of the parts too uneven to be drawn at one width instead of
// those parts. The parts are fitted by fitParts; the discs are known before, so that
// the filled areas can be found while the strokes are fitted.
func prepareStroke(s graph.Stroke, meas width.Measured, g *ink.Image, level float64, o Options) ([]strokePart, []fill.Disc) {
	var out []strokePart
	var discs []fill.Disc
	// The stroke's median width, found once (Ends moves points, not widths), and the
	// fallback width only where no width is known.
	med, known := meas.MedianKnown()
	fallback := math.NaN()
	median := func(m *width.Measured) float64 {
		if v, ok := m.MedianKnown(); ok {
			return v
		}
		if math.IsNaN(fallback) {
			fallback = fallbackWidth(s)
		}
		return fallback
	}
	if !known {
		med = median(&meas)
	}
	if s.Length()+med < o.MinLength {
		return nil, nil
	}
	width.Ends(&meas, g, level, med)
	parts := []width.Measured{meas}
	if o.Width == WidthVariable {
		parts = width.Split(meas, 1.5, 8)
	}
	for _, part := range parts {
		wd := med
		if o.Width == WidthVariable {
			wd = median(&part)
		}
		if o.Width == WidthFixed {
			wd = o.FixedWidth
		} else if o.Fill == FillOutline && uneven(part, wd) {
			for _, p := range part.Points {
				discs = append(discs, fill.Disc{X: p.X, Y: p.Y, R: p.R + 0.5})
			}
			continue
		}
		out = append(out, strokePart{part, wd})
	}
	return out, discs
}

// fitParts returns a stroke's parts (prepareStroke) as drawn strokes with their
// fitted segments, fitting in buf's buffers.
func fitParts(parts []strokePart, fopt fit.Options, buf *strokeBuffers) []svgout.Stroke {
	var out []svgout.Stroke
	for _, sp := range parts {
		part := sp.meas
		n := len(part.Points)
		buf.pts = slices.Grow(buf.pts[:0], n)[:n]
		buf.radius = slices.Grow(buf.radius[:0], n)[:n]
		pts, radius := buf.pts, buf.radius
		for i, p := range part.Points {
			pts[i] = fit.Vec{X: p.X, Y: p.Y}
			radius[i] = p.R
		}
		segs := fit.Fit(pts, radius, part.Closed, fopt)
		if len(segs) == 0 {
			// A dot: a zero-length line drawn with round caps.
			segs = []fit.Segment{{Line: true, P0: pts[0], P3: pts[0]}}
		}
		out = append(out, svgout.Stroke{Segments: segs, Width: sp.width, Closed: part.Closed})
	}
	return out
}

// ordered returns strokes in greedy pen order, reversing those drawn backwards, and
// the pen-up travel.
func ordered(ss []svgout.Stroke) ([]svgout.Stroke, float64) {
	ends := make([]order.Ends, len(ss))
	for i, s := range ss {
		a, b := s.Segments[0].P0, s.Segments[len(s.Segments)-1].P3
		if s.Closed {
			b = a
		}
		ends[i] = order.Ends{X0: a.X, Y0: a.Y, X1: b.X, Y1: b.Y}
	}
	steps, travel := order.Greedy(ends)
	out := make([]svgout.Stroke, len(ss))
	for k, st := range steps {
		s := ss[st.Index]
		if st.Reversed && !s.Closed {
			s.Segments = reverse(s.Segments)
		}
		out[k] = s
	}
	return out, travel
}

func reverse(segs []fit.Segment) []fit.Segment {
	out := make([]fit.Segment, len(segs))
	for i, s := range segs {
		out[len(segs)-1-i] = fit.Segment{Line: s.Line, P0: s.P3, P1: s.P2, P2: s.P1, P3: s.P0}
	}
	return out
}

// fallbackWidth is the width of a stroke whose ink is all shared with junctions: from
// the distance map, the median radius of its points away from junctions (or the
// smallest), less the half pixel between a pixel centre and the paper's edge.
func fallbackWidth(s graph.Stroke) float64 {
	var rs []float64
	least := math.Inf(1)
	for _, p := range s.Points {
		least = math.Min(least, p.R)
		if !p.Junction {
			rs = append(rs, p.R)
		}
	}
	r := least
	if len(rs) > 0 {
		slices.Sort(rs)
		r = rs[len(rs)/2]
	}
	return math.Max(1, 2*r-1)
}
