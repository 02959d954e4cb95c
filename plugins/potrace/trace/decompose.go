package trace

import (
	"context"
	"math/bits"
	"slices"
)

// point is a path vertex: a pixel corner, in Potrace's coordinates (y up).
type point struct{ x, y int32 }

// rawPath is one closed boundary of the bitmap as found by decompose: the pixel corners
// it visits, in order, with the region it encloses on its left (counterclockwise for
// every path: holes are traced in the bitmap as inverted so far, where they are black).
type rawPath struct {
	pts []point
	// area is the number of pixels the path encloses.
	area int
	// positive is true when the path encloses black pixels of the original bitmap,
	// false when it encloses a hole.
	positive bool
}

// decomposer finds the paths of a bitmap one by one, the way the paper's section 2.1
// describes: take the first black pixel in reading order, follow the boundary of its
// region keeping black on the left, invert everything the path encloses, repeat.
type decomposer struct {
	orig          *Bitmap // the caller's bitmap, y down; read only
	work          []uint64
	w, h, stride  int
	policy        TurnPolicy
	turdSize      int
	buf           []point // the path being followed
	arena         []point // storage the kept paths' points are cut from
	chunk         int
	paths         []rawPath
	sinceCtxCheck int
}

// decompose returns the paths of bm enclosing more than turdSize pixels, in the order
// they are found: by their first pixel in reading order (top to bottom, left to right).
func decompose(ctx context.Context, bm *Bitmap, policy TurnPolicy, turdSize int) ([]rawPath, error) {
	work := bm.flipped()
	d := &decomposer{orig: bm, work: work.words, w: bm.Width, h: bm.Height, stride: work.stride,
		policy: policy, turdSize: turdSize, chunk: 1 << 12}
	for y := d.h - 1; y >= 0; y-- {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for x := d.nextBlack(y, 0); x >= 0; x = d.nextBlack(y, x) {
			// Pixels before (x, y) are white, so (x, y+1) is the top left corner of a
			// region; the path goes down from there with the region on its left.
			positive := bm.At(x, d.h-1-y)
			area := d.follow(x, y+1, positive)
			d.invert(d.buf)
			if area > turdSize {
				d.keep(area, positive)
			}
			if d.sinceCtxCheck++; d.sinceCtxCheck >= 1024 {
				d.sinceCtxCheck = 0
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
		}
	}
	return d.paths, nil
}

// nextBlack returns the first black pixel of row y at or after x, or -1.
func (d *decomposer) nextBlack(y, x int) int {
	row := d.work[y*d.stride : (y+1)*d.stride]
	i := x >> 6
	if i >= len(row) {
		return -1
	}
	w := row[i] & (^uint64(0) << (uint(x) & 63))
	for w == 0 {
		if i++; i >= len(row) {
			return -1
		}
		w = row[i]
	}
	return i<<6 + bits.TrailingZeros64(w)
}

// black reports whether pixel [x, y] of the working bitmap is black; outside is white.
func (d *decomposer) black(x, y int) bool {
	if uint(x) >= uint(d.w) || uint(y) >= uint(d.h) {
		return false
	}
	return d.work[y*d.stride+x>>6]>>(uint(x)&63)&1 != 0
}

// follow traces the boundary that leaves corner (x0, y0) downwards, keeping black
// pixels on its left, until it returns to (x0, y0). It leaves the corners in d.buf and
// returns the enclosed area.
func (d *decomposer) follow(x0, y0 int, positive bool) int {
	pts := d.buf[:0]
	x, y, dx, dy := x0, y0, 0, -1
	area := 0
	for {
		pts = append(pts, point{int32(x), int32(y)})
		x, y = x+dx, y+dy
		area += x * dy // the shoelace sum, counting vertical moves only
		if x == x0 && y == y0 {
			break
		}
		// The two pixels ahead of the corner, left and right of the direction of travel
		// (pixel [i, j] spans (i, j) to (i+1, j+1)).
		left := d.black(x+(dx-dy-1)/2, y+(dy+dx-1)/2)
		right := d.black(x+(dx+dy-1)/2, y+(dy-dx-1)/2)
		switch {
		case right && !left: // black diagonal: either turn keeps black on the left
			if d.turnRight(x, y, positive) {
				dx, dy = dy, -dx
			} else {
				dx, dy = -dy, dx
			}
		case right: // black ahead on both sides
			dx, dy = dy, -dx
		case !left: // white ahead on both sides
			dx, dy = -dy, dx
		}
	}
	d.buf = pts
	return area
}

// turnRight resolves an ambiguous corner: turning right joins the two diagonal black
// pixels into one region, turning left keeps them apart.
func (d *decomposer) turnRight(x, y int, positive bool) bool {
	switch d.policy {
	case TurnRight:
		return true
	case TurnLeft:
		return false
	case TurnBlack:
		// In a hole the working bitmap is inverted: original black is white there.
		return positive
	case TurnWhite:
		return !positive
	case TurnMajority:
		return d.majority(x, y)
	default: // TurnMinority
		return !d.majority(x, y)
	}
}

// majority reports whether black is the more frequent colour of the working bitmap
// around corner (x, y): it compares black and white pixels on the square rings at
// distance 2, 3 and 4 around the corner, the first ring that is not a tie deciding. A
// tie on every ring counts as white.
func (d *decomposer) majority(x, y int) bool {
	for r := 2; r <= 4; r++ {
		// The ring holds pixels [x-r .. x+r-1] x [y-r .. y+r-1] on the square's border,
		// walked as four sides of 2r-1 pixels each.
		ct := 0
		for a := -r + 1; a <= r-1; a++ {
			ct += d.vote(x+a, y+r-1)   // top, without its left end
			ct += d.vote(x+r-1, y+a-1) // right, without its top end
			ct += d.vote(x+a-1, y-r)   // bottom, without its right end
			ct += d.vote(x-r, y+a)     // left, without its bottom end
		}
		if ct > 0 {
			return true
		}
		if ct < 0 {
			return false
		}
	}
	return false
}

func (d *decomposer) vote(x, y int) int {
	if d.black(x, y) {
		return 1
	}
	return -1
}

// invert flips every pixel the closed path encloses. Each vertical move of the path
// flips its row between the move and the path's first column: a pixel ends up flipped
// once for every path edge between it and that column, an odd number of times exactly
// when it is inside.
func (d *decomposer) invert(pts []point) {
	ref := int(pts[0].x)
	prev := pts[len(pts)-1]
	for _, p := range pts {
		if p.x == prev.x {
			row := int(min(p.y, prev.y))
			x := int(p.x)
			row0 := row * d.stride
			if x < ref {
				flipWords(d.work[row0:row0+d.stride], x, ref)
			} else {
				flipWords(d.work[row0:row0+d.stride], ref, x)
			}
		}
		prev = p
	}
}

// flipWords inverts bits [x0, x1) of a packed row.
func flipWords(row []uint64, x0, x1 int) {
	if x0 >= x1 {
		return
	}
	w0, w1 := x0>>6, (x1-1)>>6
	m0 := ^uint64(0) << (uint(x0) & 63)
	m1 := ^uint64(0) >> (63 - (uint(x1-1) & 63))
	if w0 == w1 {
		row[w0] ^= m0 & m1
		return
	}
	row[w0] ^= m0
	for i := w0 + 1; i < w1; i++ {
		row[i] = ^row[i]
	}
	row[w1] ^= m1
}

// keep stores the path in d.buf, cutting its points from a shared arena so that many
// small paths cost few allocations.
func (d *decomposer) keep(area int, positive bool) {
	n := len(d.buf)
	if cap(d.arena)-len(d.arena) < n {
		d.chunk = min(d.chunk*2, 1<<20)
		d.arena = make([]point, 0, max(n, d.chunk))
	}
	start := len(d.arena)
	d.arena = append(d.arena, d.buf...)
	d.paths = append(d.paths, rawPath{pts: d.arena[start : start+n : start+n], area: area, positive: positive})
}

// nest returns the parent of each path: the index of the path that immediately
// encloses it, or -1. A ray from a path's first pixel to the left meets some path's
// vertical edge first, or none: the path is inside that path E when E's inside lies to
// the right of that edge (E goes down there, as paths run with their inside on the
// left), and otherwise it shares E's parent. Paths are found outside in, so E's parent
// is known by then.
func nest(paths []rawPath, h int) []int {
	parent := make([]int, len(paths))
	if len(paths) == 0 {
		return parent
	}
	// Only rows where a path starts need their edges.
	need := make([]bool, h)
	for _, p := range paths {
		need[p.pts[0].y-1] = true
	}
	start := make([]int, h+1)
	forEachVerticalEdge(paths, func(row, x, idx int, down bool) {
		if need[row] {
			start[row+1]++
		}
	})
	for r := 0; r < h; r++ {
		start[r+1] += start[r]
	}
	edges := make([]uint64, start[h])
	fill := slices.Clone(start[:h])
	forEachVerticalEdge(paths, func(row, x, idx int, down bool) {
		if need[row] {
			e := uint64(x)<<32 | uint64(idx)<<1
			if down {
				e |= 1
			}
			edges[fill[row]] = e
			fill[row]++
		}
	})
	for r := 0; r < h; r++ {
		if need[r] {
			slices.Sort(edges[start[r]:start[r+1]])
		}
	}
	for i, p := range paths {
		row, x := int(p.pts[0].y-1), int(p.pts[0].x)
		es := edges[start[row]:start[row+1]]
		// The last edge left of column x.
		k, _ := slices.BinarySearch(es, uint64(x)<<32)
		if k == 0 {
			parent[i] = -1
			continue
		}
		e := es[k-1]
		outer := int(uint32(e) >> 1)
		if e&1 != 0 {
			parent[i] = outer
		} else {
			parent[i] = parent[outer]
		}
	}
	return parent
}

// forEachVerticalEdge calls fn for each vertical move of each path: the pixel row it
// borders, its column, the path's index and whether it goes down.
func forEachVerticalEdge(paths []rawPath, fn func(row, x, idx int, down bool)) {
	for idx, p := range paths {
		prev := p.pts[len(p.pts)-1]
		for _, q := range p.pts {
			if q.x == prev.x {
				fn(int(min(q.y, prev.y)), int(q.x), idx, q.y < prev.y)
			}
			prev = q
		}
	}
}
