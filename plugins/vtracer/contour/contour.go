// Package contour walks the outlines of a set of pixels: closed polygons on the grid of
// pixel corners, with one vertex per change of direction (VTracer's path walking).
package contour

import "slices"

// Point is a pixel corner: pixel (x, y) spans corners (x, y) to (x+1, y+1).
type Point struct{ X, Y int32 }

// Ring is a closed outline, its last vertex joined back to its first. The set lies on
// the right of every edge in the y-down image plane, so outer outlines run clockwise on
// screen and the outlines of holes counter-clockwise.
type Ring []Point

// Directions, in clockwise order on screen.
const (
	right = iota
	down
	left
	up
)

var (
	stepX = [4]int{1, 0, -1, 0}
	stepY = [4]int{0, 1, 0, -1}
	// The pixel on the right (inside) and on the left (outside) of the edge that leaves
	// a corner in each direction, as an offset from the corner.
	inX  = [4]int{0, -1, -1, 0}
	inY  = [4]int{0, 0, -1, -1}
	outX = [4]int{0, 0, -1, -1}
	outY = [4]int{-1, 0, 0, -1}
)

// Walker traces outlines in a w x h image. It remembers, per pixel, whether the top edge
// of the pixel was walked for the set being traced, one bit per pixel, cleared again at
// the end of each Trace; reuse one Walker for every set of an image.
type Walker struct {
	w, h int
	mark []uint64
	buf  []int32
}

// NewWalker returns a Walker for a w x h image.
func NewWalker(w, h int) *Walker {
	return &Walker{w: w, h: h, mark: make([]uint64, (w*h+63)/64)}
}

func (wk *Walker) marked(p int) bool { return wk.mark[p>>6]>>(p&63)&1 != 0 }

// Trace appends to dst every outline of the set of pixels p = y*w + x for which in(p)
// is true, and returns the extended slice. pixels must list at least one pixel of every
// outline's top edge, for example every pixel of the set; pixels outside the set are
// ignored, and pixels is reordered. in is only called for pixels inside the image.
// Outlines are found in scan order of their top-left pixel and start at that pixel's
// top-left corner; pixels touching only at a corner are kept apart (the set is taken as
// 4-connected). The rings reuse the storage of the rings in dst[len(dst):cap(dst)], so
// pass back the previous result, emptied, to trace without allocating.
func (wk *Walker) Trace(dst []Ring, pixels []int32, in func(p int) bool) []Ring {
	w, h := wk.w, wk.h
	first := len(dst)
	has := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && in(y*w+x) }
	starts := wk.buf[:0]
	for _, p := range pixels {
		if in(int(p)) && (int(p) < w || !in(int(p)-w)) {
			starts = append(starts, p)
		}
	}
	slices.Sort(starts)
	wk.buf = starts
	for _, p := range starts {
		if wk.marked(int(p)) {
			continue
		}
		var ring Ring
		if len(dst) < cap(dst) {
			ring = dst[: len(dst)+1 : len(dst)+1][len(dst)][:0]
		}
		dst = append(dst, wk.walk(ring, int(p)%w, int(p)/w, has))
	}
	// Clear the marks: the top edges walked are the edges of the rings running right.
	for _, r := range dst[first:] {
		for i, a := range r {
			b := r[(i+1)%len(r)]
			if b.Y == a.Y && b.X > a.X {
				for p := int(a.Y)*w + int(a.X); p < int(a.Y)*w+int(b.X); p++ {
					wk.mark[p>>6] &^= 1 << (p & 63)
				}
			}
		}
	}
	return dst
}

// walk appends to ring the outline through the top edge of pixel (sx, sy), marking the
// top edges it walks along.
func (wk *Walker) walk(ring Ring, sx, sy int, has func(x, y int) bool) Ring {
	x, y, d := sx, sy, right
	limit := 4 * (wk.w + 1) * (wk.h + 1)
	for n := 0; n < limit; n++ {
		if d == right {
			p := y*wk.w + x
			wk.mark[p>>6] |= 1 << (p & 63)
		}
		x += stepX[d]
		y += stepY[d]
		// Look at the two pixels beside the edge straight ahead.
		nd := d
		switch {
		case !has(x+inX[d], y+inY[d]):
			nd = (d + 1) & 3 // turn right
		case has(x+outX[d], y+outY[d]):
			nd = (d + 3) & 3 // turn left
		}
		if nd != d {
			ring = append(ring, Point{int32(x), int32(y)})
		}
		d = nd
		if x == sx && y == sy && d == right {
			break
		}
	}
	// The start corner, if it is a vertex, was added last: put it first.
	if k := len(ring) - 1; k > 0 && ring[k] == (Point{int32(sx), int32(sy)}) {
		copy(ring[1:], ring[:k])
		ring[0] = Point{int32(sx), int32(sy)}
	}
	return ring
}

// Area returns twice the signed area of the ring: positive for a clockwise (outer)
// outline on screen, negative for a hole.
func (r Ring) Area() int64 {
	var a int64
	for i, p := range r {
		q := r[(i+1)%len(r)]
		a += int64(p.X)*int64(q.Y) - int64(q.X)*int64(p.Y)
	}
	return a
}
