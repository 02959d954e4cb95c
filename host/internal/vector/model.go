// Package vector holds one parsed model of the drawing an engine's checked SVG describes
// (the elements and attributes sdk/svg.Check allows: path, rect, circle, ellipse, line,
// polyline, polygon, nested g with transforms, fill, stroke, opacities, fill-rule, line
// caps and joins), so that each output format has one writer that reads the model rather
// than the SVG. Every shape is resolved to absolute coordinates in the root's user space
// (the viewBox), its outline made of lines and cubic Béziers only.
package vector

import "image/color"

// Op is the kind of a path segment.
type Op uint8

// Segment kinds.
const (
	MoveTo Op = iota
	LineTo
	CubicTo
	Close
)

// Point is a point in the root's user space.
type Point struct{ X, Y float64 }

// Segment is one step of an outline: MoveTo and LineTo use P[0]; CubicTo uses P[0] and
// P[1] as control points and P[2] as the end point; Close uses none.
type Segment struct {
	Op Op
	P  [3]Point
}

// End returns the segment's end point (the zero point for Close).
func (s Segment) End() Point {
	switch s.Op {
	case MoveTo, LineTo:
		return s.P[0]
	case CubicTo:
		return s.P[2]
	}
	return Point{}
}

// FillRule says which points a filled outline covers.
type FillRule uint8

// Fill rules.
const (
	NonZero FillRule = iota
	EvenOdd
)

// Cap is a stroke's line cap.
type Cap uint8

// Line caps.
const (
	ButtCap Cap = iota
	RoundCap
	SquareCap
)

// Join is a stroke's line join.
type Join uint8

// Line joins.
const (
	MiterJoin Join = iota
	RoundJoin
	BevelJoin
)

// Shape is one drawn element: its outline, its fill and its stroke, opacities folded
// into the colours' alpha.
type Shape struct {
	// Path is the outline in the root's user space.
	Path []Segment
	// Fill is the fill colour; nil when the shape is not filled.
	Fill *color.NRGBA
	// FillRule is the fill's rule.
	FillRule FillRule
	// Stroke is the stroke colour; nil when the shape is not stroked.
	Stroke *color.NRGBA
	// StrokeWidth is the stroke's width in user space (the element's width scaled by the
	// square root of its transform's determinant).
	StrokeWidth float64
	// Cap, Join and MiterLimit are the stroke's line cap, join and miter limit.
	Cap        Cap
	Join       Join
	MiterLimit float64
}

// Document is a parsed SVG drawing.
type Document struct {
	// ViewBox is the root's user space: its origin and size. Without a viewBox, the
	// origin is 0,0 and the size the root's width and height.
	MinX, MinY, Width, Height float64
	// Shapes are the drawn elements in painting order.
	Shapes []Shape
}
