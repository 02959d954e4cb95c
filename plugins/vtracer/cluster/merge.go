package cluster

import (
	"context"
	"image/color"
)

// checkWork is how many pixels merge and the tracing of shapes visit between two checks
// of their context: a few milliseconds of work.
const checkWork = 1 << 18

// merge builds the hierarchy bottom-up: the smallest cluster still alive merges into its
// neighbour of the closest mean colour, until no cluster has a neighbour left. Because
// the smaller side is the one whose pixels are visited, every pixel is visited O(log n)
// times.
func (b *builder) merge(ctx context.Context) error {
	q := newQueue(b.area, b.state)
	speckle, layer := int32(b.cfg.SpeckleArea), int32(b.cfg.LayerDifference)
	work := 0 // pixels visited since ctx was checked
	for steps := 0; ; steps++ {
		if steps&1023 == 0 || work >= checkWork {
			// Late in the merge the clusters are large and one step visits many
			// pixels: count them, not only the steps.
			work = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		id := q.min()
		if id < 0 {
			return nil
		}
		a := b.area[id]
		work += int(a)
		to, diff := b.closest(id)
		if to < 0 {
			b.state[id] = root
			b.order = append(b.order, id)
			q.update(id)
			continue
		}
		if a >= speckle && diff > layer && b.wide(id) {
			b.keep(id)
			b.order = append(b.order, id)
		}
		b.absorb(to, id)
		q.update(id)
		q.update(to)
	}
}

// neighbours returns the offsets of the pixels adjacent to a pixel.
func (b *builder) neighbours() []int {
	st := b.stride
	if b.cfg.Diagonal {
		return []int{-1, 1, -st, st, -st - 1, -st + 1, st - 1, st + 1}
	}
	return []int{-1, 1, -st, st}
}

// closest returns the neighbour of cluster id whose mean colour is closest to id's, and
// that difference; ties go to the larger neighbour, then to the earlier one. It returns
// -1 when id has no neighbour.
func (b *builder) closest(id int32) (int32, int32) {
	m := b.state[id]
	best, bestDiff := int32(-1), int32(0)
	last := int32(-1)
	offs := b.neighbours()
	p := b.head[id]
	for range b.area[id] {
		for _, o := range offs {
			c := b.cur[int(p)+o]
			if c < 0 || c == id || c == last {
				continue
			}
			last = c
			d := colorDiff(m, b.state[c])
			if best < 0 || d < bestDiff || d == bestDiff && (b.area[c] > b.area[best] || b.area[c] == b.area[best] && c < best) {
				best, bestDiff = c, d
			}
		}
		p = b.next[p]
	}
	return best, bestDiff
}

// absorb merges cluster id into cluster to. id's ring of pixels is spliced into to's
// after to's head, and id's head moves to the first pixel of that run: every merged
// cluster stays one run of links, area long from its head.
func (b *builder) absorb(to, id int32) {
	hi := b.head[id]
	p := hi
	for range b.area[id] {
		b.cur[p] = to
		p = b.next[p]
	}
	ht := b.head[to]
	b.head[id] = b.next[hi]
	b.next[hi], b.next[ht] = b.next[ht], b.next[hi]
	s, t := b.sums(to), b.sums(id)
	b.area[to] += b.area[id]
	b.setSums(to, [3]uint64{s[0] + t[0], s[1] + t[1], s[2] + t[2]})
	b.state[id] = absorbed | uint32(to)
}

// wide reports whether the bounding box of cluster id is at least 2 pixels wide and
// high: whether its pixels lie on more than one column and more than one row. Only wide
// clusters are kept as shapes of their own: one-pixel-wide slivers (anti-aliased edges,
// scan lines) are absorbed like speckles.
func (b *builder) wide(id int32) bool {
	st := uint32(b.stride)
	p0 := uint32(b.head[id])
	x0, y0 := p0%st, p0/st
	cols, rows := false, false
	p := b.head[id]
	for range b.area[id] {
		y := uint32(p) / st
		rows = rows || y != y0
		cols = cols || uint32(p)-y*st != x0
		if rows && cols {
			return true
		}
		p = b.next[p]
	}
	return false
}

// hierarchy turns the merge record into shapes: kept clusters in reverse order of
// merging (parents before children), their parents, the deepest shape of every pixel,
// and the colours of the pixels each shape shows.
func (b *builder) hierarchy(ctx context.Context) (*Hierarchy, error) {
	order := b.keptOrder()
	ns := len(order)
	h := &Hierarchy{Width: b.w, Height: b.h, Shapes: make([]Shape, ns)}
	b.link(h, order)
	owner, err := b.owners(ctx, h)
	if err != nil {
		return nil, err
	}
	ids := make([]int32, ns)
	for i, c := range order {
		ids[ns-1-i] = c
	}
	b.colors(h, owner, ids)
	h.number()
	b.unpad(h, owner)
	return h, nil
}

// keptOrder keeps every root but those smaller than a speckle (unless no root is
// larger) and returns the clusters of the merge order that remain.
func (b *builder) keptOrder() []int32 {
	speckle := int32(b.cfg.SpeckleArea)
	big := false
	for _, c := range b.order {
		if b.state[c] == root && b.area[c] >= speckle {
			big = true
		}
	}
	order := b.order[:0]
	for _, c := range b.order {
		if b.state[c] == root {
			if big && b.area[c] < speckle {
				continue
			}
			b.keep(c)
		}
		order = append(order, c)
	}
	return order
}

// link fills each shape's area, first pixel and parent. The parent of a shape is the
// first kept cluster on its chain of merges: found as a cluster first, then turned into
// a shape index kept in the areas, which are no longer needed once copied.
func (b *builder) link(h *Hierarchy, order []int32) {
	ns := len(order)
	for i, c := range order {
		s := &h.Shapes[ns-1-i]
		s.Area = int(b.area[c])
		s.first = b.head[c]
		s.Parent = -1
		if b.state[c] != root {
			s.Parent = int(b.keptAbove(int32(b.state[c] &^ absorbed)))
		}
	}
	index := b.area
	for i, c := range order {
		index[c] = int32(ns - 1 - i)
	}
	for i := range h.Shapes {
		if s := &h.Shapes[i]; s.Parent >= 0 {
			s.Parent = int(index[s.Parent])
		}
	}
}

// owners finds the deepest shape of every padded pixel: shapes are visited children
// first and a pixel belongs to the first shape that claims it. b.cur is reused for the
// result.
func (b *builder) owners(ctx context.Context, h *Hierarchy) ([]int32, error) {
	owner := b.cur
	for i := range owner {
		owner[i] = -1
	}
	for i := len(h.Shapes) - 1; i >= 0; i-- {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s := &h.Shapes[i]
		p := s.first
		for k := 0; k < s.Area; k++ {
			if owner[p] < 0 {
				owner[p] = int32(i)
			}
			p = b.next[p]
		}
	}
	return owner, nil
}

// number sets each shape's subtree interval (pre, post), depth and the nearest
// translucent shape at or above it. Parents come before their children.
func (h *Hierarchy) number() {
	ns := len(h.Shapes)
	size := make([]int32, ns)
	for i := ns - 1; i >= 0; i-- {
		size[i]++
		if p := h.Shapes[i].Parent; p >= 0 {
			size[p] += size[i]
		}
	}
	cursor := make([]int32, ns)
	free := int32(0)
	for i := range h.Shapes {
		s := &h.Shapes[i]
		if s.Parent < 0 {
			s.pre = free
			free += size[i]
			s.depth = 0
			s.translucent = -1
		} else {
			ps := &h.Shapes[s.Parent]
			s.pre = cursor[s.Parent]
			cursor[s.Parent] += size[i]
			s.depth = ps.depth + 1
			s.translucent = ps.translucent
		}
		s.post = s.pre + size[i]
		cursor[i] = s.pre + 1
		if s.Color.A < 0xff {
			s.translucent = int32(i)
		}
	}
}

// unpad turns padded pixel indices, (y+1)*stride + x + 1, back into unpadded ones,
// y*w + x, in the shapes' first pixels, the owners and the member lists, and hands the
// last two to h. Unpadded indices are never larger than padded ones, so both arrays
// convert in place.
func (b *builder) unpad(h *Hierarchy, owner []int32) {
	unpad := func(p int32) int32 {
		if p < 0 {
			return p
		}
		y := uint32(p) / uint32(b.stride)
		return p - int32(y)*2 - int32(b.stride) + 1
	}
	for i := range h.Shapes {
		h.Shapes[i].first = unpad(h.Shapes[i].first)
	}
	for y := 0; y < b.h; y++ {
		base, ubase := (y+1)*b.stride+1, y*b.w
		for x := 0; x < b.w; x++ {
			owner[ubase+x] = owner[base+x]
			b.next[ubase+x] = unpad(b.next[base+x])
		}
	}
	h.owner = owner[:b.w*b.h]
	h.next = b.next[:b.w*b.h]
}

// keptAbove returns the first kept cluster on the chain of merges from c, compressing
// the chain as it goes.
func (b *builder) keptAbove(c int32) int32 {
	t := c
	for !b.isKept(t) {
		t = int32(b.state[t] &^ absorbed)
	}
	for c != t && !b.isKept(c) {
		c, b.state[c] = int32(b.state[c]&^absorbed), absorbed|uint32(t)
	}
	return t
}

// colors sets each shape's colour to the mean of the pixels it owns, RGB weighted by
// alpha and rounded down, as VTracer's are: 64 % of its fill colours on the bench
// corpus's logos, posters and line art match ours exactly so, against 54 % when rounded
// to nearest. A shape's opacity is that of the area it grew from (an opaque shape
// absorbs its anti-aliased edges without turning faintly translucent).
func (b *builder) colors(h *Hierarchy, owner []int32, ids []int32) {
	type acc struct{ r, g, bl, a uint64 }
	sums := make([]acc, len(h.Shapes))
	for y := 0; y < b.h; y++ {
		row := b.row(y)
		base := (y+1)*b.stride + 1
		for x := 0; x < b.w; x++ {
			o := owner[base+x]
			if o < 0 {
				continue
			}
			s := &sums[o]
			px := row[4*x : 4*x+4]
			a := uint64(px[3])
			s.r += uint64(px[0]) * a
			s.g += uint64(px[1]) * a
			s.bl += uint64(px[2]) * a
			s.a += a
		}
	}
	for i := range h.Shapes {
		s := &sums[i]
		c := color.NRGBA{A: 0xff}
		if s.a > 0 {
			c.R = uint8(s.r / s.a)
			c.G = uint8(s.g / s.a)
			c.B = uint8(s.bl / s.a)
		}
		if b.opacity != nil {
			c.A = b.opacity[ids[i]]
		}
		h.Shapes[i].Color = c
	}
}

// queue finds the live cluster (see builder.alive) of the smallest area, the lowest index
// between equal areas. It is a tournament tree over blocks of queueBlock clusters: a leaf
// holds the best cluster of its block, found by scanning the block, and each inner node
// the better of its two children. That costs about 8 bytes per block instead of 8 per
// cluster for a heap, and needs no stale entries: update rescans one block and climbs.
type queue struct {
	area   []int32
	state  []uint32
	leaves int      // number of leaves, a power of two
	node   []uint64 // node[1] is the root; key area<<32 | cluster, none when empty
}

// queueBlock is the number of clusters under one leaf of the queue.
const queueBlock = 32

// none is the key of an empty subtree, larger than every real key.
const none = ^uint64(0)

func newQueue(area []int32, state []uint32) *queue {
	blocks := (len(area) + queueBlock - 1) / queueBlock
	leaves := 1
	for leaves < blocks {
		leaves *= 2
	}
	q := &queue{area: area, state: state, leaves: leaves, node: make([]uint64, 2*leaves)}
	for i := range leaves {
		q.node[leaves+i] = q.scan(i)
	}
	for i := leaves - 1; i >= 1; i-- {
		q.node[i] = min(q.node[2*i], q.node[2*i+1])
	}
	return q
}

// scan returns the key of the best live cluster of block k, or none.
func (q *queue) scan(k int) uint64 {
	best := none
	for c := k * queueBlock; c < min((k+1)*queueBlock, len(q.area)); c++ {
		if q.state[c]&absorbed == 0 {
			best = min(best, uint64(q.area[c])<<32|uint64(c))
		}
	}
	return best
}

// min returns the best live cluster, or -1 when none is left.
func (q *queue) min() int32 {
	if q.node[1] == none {
		return -1
	}
	return int32(uint32(q.node[1]))
}

// update takes a change of cluster c's area or liveness into account.
func (q *queue) update(c int32) {
	i := q.leaves + int(c)/queueBlock
	q.node[i] = q.scan(int(c) / queueBlock)
	for i > 1 {
		i /= 2
		v := min(q.node[2*i], q.node[2*i+1])
		if q.node[i] == v {
			return
		}
		q.node[i] = v
	}
}
