// Package trace is Potrace 1.16's tracing algorithm, written from Peter Selinger's paper
// "Potrace: a polygon-based tracing algorithm" (2003): it turns a black-and-white
// Bitmap into closed curves of Bézier and corner segments, organised as a tree of outer
// boundaries and their holes.
//
// The stages follow the paper's sections: decompose.go (2.1, paths), polygon.go (2.2,
// optimal polygons), adjust.go (2.3, vertex adjustment), smooth.go (2.4, corners and
// smoothing) and optimize.go (2.5, curve optimisation). Internally the algorithm works
// in Potrace's coordinate system (origin at the bottom left, y up) so that its
// orientation-dependent choices are Potrace's; results are in image coordinates.
// Threshold (image.go) makes the bitmap from an image; AppendShape, EachShape and
// Document (svg.go) write the result as SVG.
package trace

import (
	"context"
	"fmt"

	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// TurnPolicy says how path decomposition resolves an ambiguous corner, where two black
// pixels touch diagonally and two white pixels touch diagonally.
type TurnPolicy int

// The turn policies of Potrace. The zero value is Potrace's default, TurnMinority.
const (
	// TurnMinority connects the colour that is rarer around the corner (Potrace's
	// default: it keeps thin lines connected).
	TurnMinority TurnPolicy = iota
	// TurnMajority connects the colour that is more frequent around the corner.
	TurnMajority
	// TurnBlack always connects black pixels.
	TurnBlack
	// TurnWhite always connects white pixels.
	TurnWhite
	// TurnLeft always turns left (in Potrace's y-up coordinates).
	TurnLeft
	// TurnRight always turns right (in Potrace's y-up coordinates).
	TurnRight
)

var turnPolicyNames = [...]string{"minority", "majority", "black", "white", "left", "right"}

// String returns the policy's name as Potrace's --turnpolicy option spells it.
func (t TurnPolicy) String() string {
	if t >= 0 && int(t) < len(turnPolicyNames) {
		return turnPolicyNames[t]
	}
	return fmt.Sprintf("TurnPolicy(%d)", int(t))
}

// ParseTurnPolicy returns the policy called name ("black", "white", "left", "right",
// "minority" or "majority").
func ParseTurnPolicy(name string) (TurnPolicy, error) {
	for i, n := range turnPolicyNames {
		if n == name {
			return TurnPolicy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown turn policy %q", name)
}

// Options are Potrace's tracing parameters.
type Options struct {
	// TurdSize drops paths enclosing at most this many pixels (speckles and small
	// holes).
	TurdSize int
	// TurnPolicy resolves ambiguous corners during path decomposition.
	TurnPolicy TurnPolicy
	// AlphaMax is the corner threshold: 0 makes every vertex a corner (a polygon),
	// 4/3 or more makes none.
	AlphaMax float64
	// OptCurve joins consecutive Bézier segments where the result stays within
	// OptTolerance of the original.
	OptCurve bool
	// OptTolerance is the deviation curve optimisation may introduce, in pixels.
	OptTolerance float64
}

// DefaultOptions returns Potrace's defaults: turdsize 2, turnpolicy minority, alphamax
// 1, opticurve on, opttolerance 0.2.
func DefaultOptions() Options {
	return Options{TurdSize: 2, TurnPolicy: TurnMinority, AlphaMax: 1, OptCurve: true, OptTolerance: 0.2}
}

// Point is a position in image coordinates: pixels, origin at the top left corner of
// the bitmap, y down.
type Point struct{ X, Y float64 }

// Segment is one piece of a closed curve; it starts where the previous segment ends
// (the first starts where the last ends).
type Segment struct {
	// Corner marks a corner: two straight lines, to Vertex and then to End. Otherwise
	// the segment is a cubic Bézier with control points Ctrl1 and Ctrl2, ending at End.
	Corner       bool
	Ctrl1, Ctrl2 Point
	Vertex       Point
	End          Point
}

// Path is one traced boundary.
type Path struct {
	// Curve is the closed outline. Outer boundaries run counterclockwise as seen on
	// screen, holes clockwise (Potrace's orientations, mirrored with the y axis), so a
	// path filled together with its holes under the nonzero rule leaves the holes
	// empty.
	Curve []Segment
	// Area is the number of pixels the boundary encloses in the bitmap, holes included.
	Area int
	// Hole is true when the path bounds a white region inside a black one.
	Hole bool
	// Children are the paths immediately inside this one: the holes of an outer
	// boundary, or the black islands inside a hole.
	Children []*Path
}

// Trace traces bm and returns the outer boundaries that no other path encloses, each
// with its descendants in Children. Paths appear in the order Potrace finds them: by
// their top left pixel, in reading order. It returns ctx.Err() if ctx is cancelled.
func Trace(ctx context.Context, bm *Bitmap, opts Options) ([]*Path, error) {
	return trace(ctx, bm, opts, nil)
}

// trace is Trace, with the curves of the paths taken from memo where it holds them
// (memo may be nil).
func trace(ctx context.Context, bm *Bitmap, opts Options, memo *Memo) ([]*Path, error) {
	if bm == nil || bm.Width <= 0 || bm.Height <= 0 {
		return nil, nil
	}
	raw, err := decompose(ctx, bm, opts.TurnPolicy, max(opts.TurdSize, 0))
	if err != nil {
		return nil, err
	}
	parent := nest(raw, bm.Height)
	paths := make([]Path, len(raw))
	curves := func(s *scratch, lo, hi int) {
		for i := lo; i < hi; i++ {
			r := raw[i]
			paths[i] = Path{Curve: memo.curve(s, r, opts, float64(bm.Height)), Area: r.area, Hole: !r.positive}
		}
	}
	if memo == nil {
		var s scratch
		for lo := 0; lo < len(raw); lo += 64 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			curves(&s, lo, min(len(raw), lo+64))
		}
	} else {
		// Through a memo (a caller tracing colour layers) the paths, which are
		// independent, are worked out on all cores, each into its own slot.
		s := make([]scratch, parallel.Workers(len(raw), 1))
		for i := range s {
			s[i].parallel = true
		}
		if err := parallel.For(ctx, len(raw), 1, func(worker, lo, hi int) { curves(&s[worker], lo, hi) }); err != nil {
			return nil, err
		}
	}
	var roots []*Path
	for i := range paths {
		if parent[i] < 0 {
			roots = append(roots, &paths[i])
		} else {
			p := &paths[parent[i]]
			p.Children = append(p.Children, &paths[i])
		}
	}
	return roots, nil
}

// scratch holds the buffers of the per-path stages, reused from path to path.
type scratch struct {
	sums                []sum
	next, pivot, lon    []int
	reach, back, hi, lo []int
	prev, poly          []int
	pen                 []float64
	quads               []quad
	vertex              []vec
	smoothed, optimized curve
	conv, from, count   []int
	areas, optPen       []float64
	opt                 []joined
	moves               []byte // a path's moves, for Memo
	parallel            bool   // long paths' straight runs on all cores (through a Memo)
}

// curve runs stages 2 to 5 on one path and returns its curve in image coordinates
// (h is the bitmap's height).
func (s *scratch) curve(p rawPath, opts Options, h float64) []Segment {
	pts := p.pts
	s.prefixSums(pts)
	s.straightRuns(pts)
	s.bestPolygon(pts)
	s.adjustVertices(pts)
	if !p.positive {
		// Holes run the other way round, so that the nonzero rule leaves them empty.
		for i, j := 0, len(s.vertex)-1; i < j; i, j = i+1, j-1 {
			s.vertex[i], s.vertex[j] = s.vertex[j], s.vertex[i]
		}
	}
	s.smooth(opts.AlphaMax)
	cv := &s.smoothed
	if opts.OptCurve {
		s.optimize(opts.OptTolerance)
		cv = &s.optimized
	}
	img := func(v vec) Point { return Point{v.x, h - v.y} }
	segs := make([]Segment, len(cv.c))
	for i, c := range cv.c {
		if cv.corner[i] {
			segs[i] = Segment{Corner: true, Vertex: img(c[1]), End: img(c[2])}
		} else {
			segs[i] = Segment{Ctrl1: img(c[0]), Ctrl2: img(c[1]), End: img(c[2])}
		}
	}
	return segs
}
