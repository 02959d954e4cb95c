// Package planar builds the planar map of a region map: every boundary between two
// regions, or between a region and the outside of the image, is stored once as an edge
// running along pixel cracks from one junction to the next, and each region's boundary is
// a set of rings of those edges. Two neighbours use the same edge, so whatever is done to
// an edge (fitting, refining) is done once for both sides and can leave neither gaps nor
// overlaps between them.
//
// Coordinates are lattice points: (x, y) is the top-left corner of pixel (x, y), so an
// image of W x H pixels spans the points 0..W x 0..H. "Left" and "right" are as seen when
// walking along an edge on screen, y pointing down.
package planar

import (
	"context"
	"math/bits"
	"sort"
	"sync"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/regions"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// Outside is the region index of the area outside the image.
const Outside = -1

// Dir is one step along a pixel crack.
type Dir uint8

// The four step directions.
const (
	East Dir = iota
	South
	West
	North
)

// Delta returns the step's offset.
func (d Dir) Delta() (dx, dy int32) {
	switch d {
	case East:
		return 1, 0
	case South:
		return 0, 1
	case West:
		return -1, 0
	}
	return 0, -1
}

// Opposite returns the reverse direction.
func (d Dir) Opposite() Dir { return (d + 2) & 3 }

// Point is a lattice point.
type Point struct{ X, Y int32 }

// Step returns the point one step from p in direction d.
func (p Point) Step(d Dir) Point {
	dx, dy := d.Delta()
	return Point{p.X + dx, p.Y + dy}
}

// Edge is a boundary between two regions from junction to junction, or a closed loop
// where the boundary meets no junction.
type Edge struct {
	// Left and Right are the regions on either side, walking from Start; Outside
	// for the area beyond the image border.
	Left, Right int32
	// Start is the first point; Steps lead from it to the last one.
	Start Point
	// Steps are the crack steps, at least one.
	Steps []Dir
	// Closed marks a loop: it ends where it starts and meets no junction.
	Closed bool
	// area2 is twice the signed area the edge contributes walking forward.
	area2 int64
	end   Point
}

// End returns the edge's last point.
func (e *Edge) End() Point { return e.end }

// Points appends the edge's points, Start first, to dst.
func (e *Edge) Points(dst []Point) []Point {
	p := e.Start
	dst = append(dst, p)
	for _, d := range e.Steps {
		p = p.Step(d)
		dst = append(dst, p)
	}
	return dst
}

// HalfEdge is an edge walked in one direction: edge index times two, plus one when
// walked backwards. The region on a half-edge's left is the one it bounds.
type HalfEdge int32

// Half returns the half-edge of edge e, reversed or not.
func Half(e int, reversed bool) HalfEdge {
	h := HalfEdge(e * 2)
	if reversed {
		h++
	}
	return h
}

// Edge returns the index of the half-edge's edge.
func (h HalfEdge) Edge() int { return int(h >> 1) }

// Reversed reports whether the half-edge walks its edge backwards.
func (h HalfEdge) Reversed() bool { return h&1 == 1 }

// Twin returns the same edge walked the other way.
func (h HalfEdge) Twin() HalfEdge { return h ^ 1 }

// Ring is a closed boundary of one region: half-edges with the region on their left, in
// order. A region has one outer ring, and one hole ring per hole.
type Ring struct {
	// Region is the region the ring bounds.
	Region int32
	// Half lists the half-edges in walking order.
	Half []HalfEdge
	// Hole marks a hole's boundary; false for the outer boundary.
	Hole bool
	// Area2 is twice the ring's signed area: negative for outer rings, positive for
	// holes. Its absolute value is twice the area the ring encloses.
	Area2 int64
}

// Map is the planar map of a region map.
type Map struct {
	// Width and Height are the image size in pixels.
	Width, Height int
	// Edges holds every boundary once.
	Edges []Edge
	// Rings holds every region's rings.
	Rings []Ring
	// RegionRings lists each region's ring indices, outer ring first.
	RegionRings [][]int32
	// Junctions lists the points where three or more cracks meet, in raster order.
	Junctions []Point

	parentsOnce sync.Once
	parents     []int32
}

// LeftOf returns the region on the left of h: the region it bounds.
func (m *Map) LeftOf(h HalfEdge) int32 {
	e := &m.Edges[h.Edge()]
	if h.Reversed() {
		return e.Right
	}
	return e.Left
}

// RightOf returns the region on the right of h: the neighbour across it.
func (m *Map) RightOf(h HalfEdge) int32 { return m.LeftOf(h.Twin()) }

// Outer returns the outer ring of region r.
func (m *Map) Outer(r int) *Ring { return &m.Rings[m.RegionRings[r][0]] }

// Perimeters returns each region's boundary length: the cracks of all its rings.
func (m *Map) Perimeters() []int {
	perimeter := make([]int, len(m.RegionRings))
	for _, e := range m.Edges {
		if e.Left >= 0 {
			perimeter[e.Left] += len(e.Steps)
		}
		if e.Right >= 0 {
			perimeter[e.Right] += len(e.Steps)
		}
	}
	return perimeter
}

// builder holds the state of Build.
type builder struct {
	rm      *regions.Map
	w, h    int32
	visitH  []uint64 // crack bits: horizontal cracks h(x, y) from (x, y) to (x+1, y)
	visitV  []uint64 // vertical cracks v(x, y) from (x, y) to (x, y+1)
	starts  map[uint64]HalfEdge
	planMap *Map
}

// quad returns the regions of the four pixels around lattice point p, clockwise from
// the top right: the one right of p above it, below it, left below, left above. The
// crack leaving p in direction d has quad[d] on its left and quad[d+1] on its right.
func (b *builder) quad(p Point) [4]int32 {
	x, y := int(p.X), int(p.Y)
	return [4]int32{b.rm.At(x, y-1), b.rm.At(x, y), b.rm.At(x-1, y), b.rm.At(x-1, y-1)}
}

func degree(q [4]int32) int {
	n := 0
	for d := 0; d < 4; d++ {
		if q[d] != q[(d+1)&3] {
			n++
		}
	}
	return n
}

func (b *builder) pointIndex(p Point) uint64 { return uint64(p.Y)*uint64(b.w+1) + uint64(p.X) }

// crackBit returns the bitset and bit index of the crack leaving p in direction d.
func (b *builder) crackBit(p Point, d Dir) ([]uint64, uint64) {
	switch d {
	case East:
		return b.visitH, b.pointIndex(p)
	case West:
		return b.visitH, b.pointIndex(Point{p.X - 1, p.Y})
	case South:
		return b.visitV, b.pointIndex(p)
	}
	return b.visitV, b.pointIndex(Point{p.X, p.Y - 1})
}

func (b *builder) visited(p Point, d Dir) bool {
	set, i := b.crackBit(p, d)
	return set[i>>6]&(1<<(i&63)) != 0
}

func (b *builder) visit(p Point, d Dir) {
	set, i := b.crackBit(p, d)
	set[i>>6] |= 1 << (i & 63)
}

// turn returns the direction in which the boundary of region r continues at a point
// with regions q, arriving in direction d with r on the left: the sharpest left turn
// that keeps r on the left and another region on the right. This follows r's pixels
// around 4-connected corners and leaves diagonal touches alone.
func turn(q [4]int32, d Dir, r int32) Dir {
	for _, o := range [3]Dir{(d + 3) & 3, d, (d + 1) & 3} {
		if q[(o+1)&3] != r {
			return o
		}
	}
	return (d + 1) & 3
}

// Build makes the planar map of rm.
//
// Edges are walked in a fixed order: first from each junction in raster order, then
// each loop that meets no junction from its first crack in raster order. Finding the
// junctions and the cracks a loop can start from reads every lattice point; that is
// done in bands of rows across cores, into bitsets with whole words per row, and only
// the walks, along the boundaries, run in order on one goroutine.
func Build(ctx context.Context, rm *regions.Map) (*Map, error) {
	w, h := int32(rm.Width), int32(rm.Height)
	n := (uint64(w)+1)*(uint64(h)+1)/64 + 1
	b := &builder{rm: rm, w: w, h: h, visitH: make([]uint64, n), visitV: make([]uint64, n),
		starts: make(map[uint64]HalfEdge), planMap: &Map{Width: rm.Width, Height: rm.Height}}
	m := b.planMap
	junctions, jWords, loops, lWords, err := b.scan(ctx)
	if err != nil {
		return nil, err
	}
	// Edges from junctions.
	for y := int32(0); y <= h; y++ {
		if y%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row := junctions[int(y)*jWords : int(y+1)*jWords]
		for wi, word := range row {
			for ; word != 0; word &= word - 1 {
				p := Point{int32(wi*64 + bits.TrailingZeros64(word)), y}
				q := b.quad(p)
				m.Junctions = append(m.Junctions, p)
				for d := Dir(0); d < 4; d++ {
					if q[d] != q[(d+1)&3] && !b.visited(p, d) {
						b.walk(p, d, q)
					}
				}
			}
		}
	}
	// Loops that meet no junction start at their top-left point, heading east.
	for y := int32(0); y <= h; y++ {
		if y%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row := loops[int(y)*lWords : int(y+1)*lWords]
		for wi, word := range row {
			for ; word != 0; word &= word - 1 {
				p := Point{int32(wi*64 + bits.TrailingZeros64(word)), y}
				if !b.visited(p, East) {
					b.walk(p, East, b.quad(p))
				}
			}
		}
	}
	if err := b.rings(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// scan finds the junctions (lattice points where three or more boundaries meet) and the
// points from which a horizontal crack on a boundary leaves east: bitsets of h+1 rows,
// jWords words a row for the junctions (x in 0..w), lWords for the cracks (x in 0..w-1).
// Rows are scanned in parallel; each row has words of its own, so no two goroutines
// write one word.
func (b *builder) scan(ctx context.Context) (junctions []uint64, jWords int, loops []uint64, lWords int, err error) {
	w, h := int(b.w), int(b.h)
	jWords, lWords = (w+1+63)/64, (w+63)/64
	junctions, loops = make([]uint64, (h+1)*jWords), make([]uint64, (h+1)*lWords)
	labels := b.rm.Labels
	err = parallel.For(ctx, h+1, max(1, 16384/max(1, w)), func(_, y0, y1 int) {
		for y := y0; y < y1; y++ {
			jRow, lRow := junctions[y*jWords:(y+1)*jWords], loops[y*lWords:(y+1)*lWords]
			junction := func(x int) {
				if degree(b.quad(Point{int32(x), int32(y)})) >= 3 {
					jRow[x>>6] |= 1 << (x & 63)
				}
			}
			if y == 0 || y == h {
				for x := 0; x <= w; x++ {
					junction(x)
				}
				for x := 0; x < w; x++ {
					lRow[x>>6] |= 1 << (x & 63)
				}
				continue
			}
			up, cur := labels[(y-1)*w:y*w], labels[y*w:(y+1)*w]
			junction(0)
			for x := 1; x < w; x++ {
				// Inside the image most points have one region all round.
				if a := cur[x]; cur[x-1] != a || up[x] != a || up[x-1] != a {
					junction(x)
				}
			}
			junction(w)
			for x, a := range cur {
				if up[x] != a {
					lRow[x>>6] |= 1 << (x & 63)
				}
			}
		}
	})
	return junctions, jWords, loops, lWords, err
}

// walk records the edge that leaves p in direction d, up to the next junction or back
// to p.
func (b *builder) walk(p Point, d Dir, q [4]int32) {
	e := Edge{Left: q[d], Right: q[(d+1)&3], Start: p}
	cur := p
	for {
		b.visit(cur, d)
		e.Steps = append(e.Steps, d)
		next := cur.Step(d)
		e.area2 += int64(cur.X)*int64(next.Y) - int64(next.X)*int64(cur.Y)
		cur = next
		if cur == p {
			e.Closed = degree(b.quad(cur)) < 3
			break
		}
		qc := b.quad(cur)
		if degree(qc) >= 3 {
			break
		}
		d = turn(qc, d, e.Left)
	}
	id := len(b.planMap.Edges)
	e.end = cur
	e.Steps = append([]Dir(nil), e.Steps...) // trim capacity
	b.planMap.Edges = append(b.planMap.Edges, e)
	b.starts[b.pointIndex(p)*4+uint64(e.Steps[0])] = Half(id, false)
	b.starts[b.pointIndex(cur)*4+uint64(e.Steps[len(e.Steps)-1].Opposite())] = Half(id, true)
}

// rings chains the half-edges into the rings of every region.
func (b *builder) rings(ctx context.Context) error {
	m := b.planMap
	inRing := make([]bool, 2*len(m.Edges))
	m.RegionRings = make([][]int32, len(b.rm.Regions))
	for h0 := HalfEdge(0); int(h0) < len(inRing); h0++ {
		if inRing[h0] {
			continue
		}
		r := m.LeftOf(h0)
		if r == Outside {
			continue
		}
		if h0%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		ring := Ring{Region: r}
		for h := h0; ; {
			inRing[h] = true
			ring.Half = append(ring.Half, h)
			e := &m.Edges[h.Edge()]
			var end Point
			var arrive Dir
			if h.Reversed() {
				end, arrive = e.Start, e.Steps[0].Opposite()
				ring.Area2 -= e.area2
			} else {
				end, arrive = e.End(), e.Steps[len(e.Steps)-1]
				ring.Area2 += e.area2
			}
			o := turn(b.quad(end), arrive, r)
			next, ok := b.starts[b.pointIndex(end)*4+uint64(o)]
			if !ok || next == h0 || inRing[next] {
				break
			}
			h = next
		}
		ring.Hole = ring.Area2 > 0
		id := int32(len(m.Rings))
		m.Rings = append(m.Rings, ring)
		m.RegionRings[r] = append(m.RegionRings[r], id)
	}
	// Outer ring first; holes in the order found.
	for r, list := range m.RegionRings {
		sort.SliceStable(list, func(i, j int) bool { return !m.Rings[list[i]].Hole && m.Rings[list[j]].Hole })
		m.RegionRings[r] = list
	}
	return nil
}

// RingOf returns, for every half-edge, the index of the ring it belongs to, or -1 for
// half-edges of the outside.
func (m *Map) RingOf() []int32 {
	ringOf := make([]int32, 2*len(m.Edges))
	for i := range ringOf {
		ringOf[i] = -1
	}
	for ri, r := range m.Rings {
		for _, h := range r.Half {
			ringOf[h] = int32(ri)
		}
	}
	return ringOf
}

// Parents returns each region's parent: the region in one of whose holes it lies, or
// Outside for a region not inside any hole. A region touching a hole's boundary lies in
// it; a region that does not touch it shares the parent of the neighbours it borders
// through its outer ring. It is worked out once per map (a stacked trace asks twice:
// for the paint order and for the holes); the slice is shared and must not be changed.
func (m *Map) Parents() []int32 {
	m.parentsOnce.Do(func() { m.parents = m.findParents() })
	return m.parents
}

func (m *Map) findParents() []int32 {
	n := len(m.RegionRings)
	parent := make([]int32, n)
	known := make([]bool, n)
	ringOf := m.RingOf()
	var queue []int32
	set := func(r, p int32) {
		if r >= 0 && !known[r] {
			parent[r], known[r] = p, true
			queue = append(queue, r)
		}
	}
	for _, ring := range m.Rings {
		for _, h := range ring.Half {
			other := m.RightOf(h)
			switch {
			case ring.Hole:
				set(other, ring.Region)
			case other == Outside:
				set(ring.Region, Outside)
			}
		}
	}
	// Siblings share a parent: spread it across outer-to-outer edges.
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if len(m.RegionRings[r]) == 0 {
			continue
		}
		for _, h := range m.Rings[m.RegionRings[r][0]].Half {
			tr := ringOf[h.Twin()]
			if tr >= 0 && !m.Rings[tr].Hole {
				set(m.Rings[tr].Region, parent[r])
			}
		}
	}
	for r := range parent {
		if !known[r] {
			parent[r] = Outside
		}
	}
	return parent
}
