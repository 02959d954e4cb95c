// Package pathfit turns a closed pixel outline into the paths VTracer draws: staircase
// removal and penalty-limited simplification give a polygon; corner detection,
// subdivision smoothing, splicing and cubic Bézier fitting turn the polygon into a
// spline. Every path is closed and has the inside of its shape on the right of each
// edge in the y-down image plane (clockwise on screen for an outer outline).
package pathfit

import "math"

// Point is a point of the image plane, in pixels, y pointing down.
type Point struct{ X, Y float64 }

func (p Point) sub(q Point) Point     { return Point{p.X - q.X, p.Y - q.Y} }
func (p Point) add(q Point) Point     { return Point{p.X + q.X, p.Y + q.Y} }
func (p Point) scale(f float64) Point { return Point{p.X * f, p.Y * f} }
func (p Point) dot(q Point) float64   { return p.X*q.X + p.Y*q.Y }
func (p Point) cross(q Point) float64 { return p.X*q.Y - p.Y*q.X }
func (p Point) dist(q Point) float64  { return math.Hypot(p.X-q.X, p.Y-q.Y) }
func (p Point) unit() Point           { l := math.Hypot(p.X, p.Y); return Point{p.X / l, p.Y / l} }
func (p Point) isZero() bool          { return p.X == 0 && p.Y == 0 }
func at(pts []Point, i int) Point     { n := len(pts); return pts[((i%n)+n)%n] }
func turn(a, b, c Point) float64      { return b.sub(a).cross(c.sub(b)) }
func mid(a, b Point, t float64) Point { return a.add(b.sub(a).scale(t)) }
func lerp3(a, b Point) (Point, Point) { return mid(a, b, 1.0/3), mid(a, b, 2.0/3) }
func isUnit(a, b Point) bool          { return math.Abs(a.X-b.X)+math.Abs(a.Y-b.Y) <= 1 }
func penaltyOf(a, b, c Point) float64 {
	base := a.dist(c)
	if base == 0 {
		return math.Inf(1)
	}
	area2 := b.sub(a).cross(c.sub(a)) // twice the triangle's area
	return area2 * area2 / (4 * base)
}

// RemoveStaircase appends to dst the outline pts without its pixel staircases and
// returns the extended slice. A vertex with an edge one pixel long is a step of a
// staircase; of those, the ones that turn away from the inside (concave) are dropped,
// so a staircase becomes the straight line through its outer corners (the outset
// choice, the same for every outline of a shape: holes shrink as the shapes grow).
// Vertices between two longer edges are kept: they are real corners. An outline that
// would keep fewer than three vertices is returned unchanged.
func RemoveStaircase(dst, pts []Point) []Point {
	n := len(pts)
	start := len(dst)
	for i := 0; i < n; i++ {
		a, b, c := at(pts, i-1), pts[i], at(pts, i+1)
		if (isUnit(a, b) || isUnit(b, c)) && turn(a, b, c) < 0 {
			continue
		}
		dst = append(dst, b)
	}
	if len(dst)-start < 3 {
		return append(dst[:start], pts...)
	}
	return dst
}

// Penalty is the tolerance LimitPenalties uses by default.
const Penalty = 1.0

// LimitPenalties appends to dst a simplification of the closed polygon pts and returns
// the extended slice. Starting from the first vertex, a run of edges is extended one
// vertex at a time for as long as every vertex it skips stays within tolerance of the
// chord that replaces it; the penalty of a skipped vertex B on chord AC is the squared
// area of triangle ABC over the length of AC (proportional to h² b: height and base),
// so long chords tolerate less deviation than short ones.
func LimitPenalties(dst, pts []Point, tolerance float64) []Point {
	n := len(pts)
	if n < 4 {
		return append(dst, pts...)
	}
	start := len(dst)
	dst = append(dst, pts[0])
	i := 0
	for i < n {
		// Find the farthest j such that all of i+1..j-1 are within tolerance of i..j;
		// index n is the first vertex again.
		j := i + 2
		for ; j <= n; j++ {
			a, c := pts[i], at(pts, j)
			ok := true
			for k := i + 1; k < j; k++ {
				if penaltyOf(a, pts[k], c) > tolerance {
					ok = false
					break
				}
			}
			if !ok {
				break
			}
		}
		i = j - 1
		if i < n {
			dst = append(dst, pts[i])
		}
	}
	if len(dst)-start < 3 {
		return append(dst[:start], pts...)
	}
	return dst
}
