// Package graph turns a one-pixel skeleton into strokes: it finds end points and
// junctions, traces the pixel chains between them, prunes spurs that are short for the
// local line width, and joins chains through junctions where the direction continues,
// so that a "t" gives two strokes, not four. The byte-per-pixel grid a build marks is
// kept between builds (one of at most 4 MB outside a sync.Pool), cleared.
package graph

import (
	"cmp"
	"container/heap"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/tracecraft/tracecraft/plugins/centerline/internal/keep"
)

// Point is a point of a stroke in pixel-centre coordinates, with the distance from it to
// the paper (the radius of the line there).
type Point struct {
	X, Y, R float64
	// Junction marks the centre of a junction the stroke passes through or ends at;
	// the ink around it does not belong to this stroke alone.
	Junction bool
}

// Stroke is a chain of points, open or closed.
type Stroke struct {
	Points []Point
	// Closed says the last point joins back to the first.
	Closed bool
}

// Length returns the stroke's length along its points.
func (s *Stroke) Length() float64 {
	var l float64
	for i := 1; i < len(s.Points); i++ {
		l += dist(s.Points[i-1], s.Points[i])
	}
	if s.Closed && len(s.Points) > 1 {
		l += dist(s.Points[len(s.Points)-1], s.Points[0])
	}
	return l
}

func dist(a, b Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

// Options control pruning and joining.
type Options struct {
	// SpurFactor: a branch from a junction to a free end is a spur, and removed, when
	// it is shorter than SpurFactor times the line radius at the junction plus SpurSlack
	// pixels, unless it is a stub: its end's disc reaches past the junction's by the
	// junction's radius (and at least SpurSlack), or by SpurSlack with an end radius of
	// at least 3/4 of the junction's (a line going on a little past a crossing ends
	// round, at its own radius; a spur into a corner or bump tapers).
	SpurFactor, SpurSlack float64
	// JoinAngle is the largest change of direction, in degrees, at which two branches
	// meeting at a junction continue each other.
	JoinAngle float64
	// JoinGaps bridges a gap between two free ends up to this many pixels when both
	// point at each other (within JoinAngle); 0 bridges nothing.
	JoinGaps float64
	// CloseLoops closes a stroke whose two ends meet.
	CloseLoops bool
}

// DefaultOptions returns the options the engine starts from.
func DefaultOptions() Options {
	return Options{SpurFactor: 1, SpurSlack: 2, JoinAngle: 40, CloseLoops: true}
}

type node struct {
	x, y, r float64
	edges   []int // incident edge ends: edge*2 + side
	end     bool  // a free end (one skeleton neighbour)
}

type edge struct {
	a, b    int // nodes at points[0] and points[last]; -1 for a loop without nodes
	points  []Point
	removed bool
	key     int32 // the first pixel of node a as built (contract may change a)
}

var ring = [8][2]int{{1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}, {0, 1}, {1, 1}}

// The skeleton's pixel states on a grid framed by one empty pixel (see grid): a byte
// per pixel, the low bits flags and the high nibble the number of skeleton neighbours.
const (
	onBit      = 1 << 0 // a skeleton pixel
	visitedBit = 1 << 1 // a chain pixel already traced
	nodeBit    = 1 << 2 // a pixel of a node (a junction cluster or a free end)
	degShift   = 4
)

// grid is the skeleton on a grid one pixel wider on each side than the image, so that
// every pixel's eight neighbours are at fixed offsets and none is out of bounds; it
// holds a byte per pixel (the flags above), the only map Build keeps over the whole
// image. It is shared by the builds of the skeleton's parts (see BuildPixels): each
// build writes only its own pixels' bytes, and the pixels next to a part's are either
// its own or never written (not skeleton pixels).
type grid struct {
	st    []uint8
	pw, w int
	off   [8]int // ring's neighbour offsets
}

// newGrid returns the empty grid of a w x h skeleton.
// It comes from gridCache, whose grids' bytes are all zero (release clears those the
// builds wrote): the horse of the line-art corpus allocated 136 KB a trace here.
func newGrid(w, h int) *grid {
	pw := w + 2
	g := gridCache.Get()
	g.st, g.pw, g.w = keep.Grown(g.st, pw*(h+2)), pw, w
	for k, r := range ring {
		g.off[k] = r[1]*pw + r[0]
	}
	return g
}

// gridCache keeps a grid between builds, its bytes all zero; one in its slot only up
// to a byte a pixel of keep.MaxPixels, so that a large image's go back to the garbage
// collector.
var gridCache keep.Cache[grid]

// release zeroes the bytes of the framed pixels q, the only ones the builds write (see
// grid), and gives g back to gridCache; g is not used after.
func (g *grid) release(q []int32) {
	st := g.st
	for _, i := range q {
		st[i] = 0
	}
	gridCache.Put(g, cap(st) <= keep.MaxPixels)
}

// framed returns the indices on the framed grid of the image's pixels pix, in the same
// (increasing) order.
func (g *grid) framed(pix []int32) []int32 {
	q := make([]int32, len(pix))
	w, pw := int32(g.w), int32(g.pw)
	for k, i := range pix {
		q[k] = (i/w+1)*pw + i%w + 1
	}
	return q
}

func (g *grid) set(q int) bool  { return g.st[q]&onBit != 0 }
func (g *grid) deg(q int) int   { return int(g.st[q] >> degShift) }
func (g *grid) node(q int) bool { return g.st[q]&nodeBit != 0 }

// image returns framed index q's index on the image.
func (g *grid) image(q int) int { return (q/g.pw-1)*g.w + q%g.pw - 1 }

// nodePixel is a node's pixel: its index on the framed grid and the node's number.
type nodePixel struct{ q, id int32 }

// Build returns the strokes of skeleton sk (w x h), whose squared distance map is d.
func Build(sk []bool, d []int32, w, h int, o Options) []Stroke {
	var pix []int32
	for i, on := range sk {
		if on {
			pix = append(pix, int32(i))
		}
	}
	return BuildPixels(pix, d, w, h, o)
}

// minParallelPixels is the fewest skeleton pixels BuildPixels builds on more than one
// goroutine: a build costs about 1,000 instructions a pixel (owl: 13 M for 12,908
// pixels) and labelling the parts about 110 more, and the second goroutine started
// 0.2 ms late on the 2-core test machine, so a smaller build gains nothing from it.
const minParallelPixels = 2048

// BuildPixels is Build of the skeleton whose pixels are pix (indices on the image, in
// increasing order), for a caller that has them listed.
//
// The skeleton's 8-connected parts do not meet: no node, edge, spur, junction or join
// spans two of them, so each part's graph is built on its own, up to GOMAXPROCS at a
// time (the parts dealt out largest first to the least loaded build). The strokes
// come out as one build of the whole skeleton lists them: that build numbers nodes by
// their first pixel and edges by their first node, and lists the dots by node, the
// joined strokes by their first edge and the loops by their first pixel; so every
// stroke carries the first pixel of its node or loop, and the builds' lists are merged
// by it (two builds never share one). Only joinGaps, which bridges parts, runs on the
// merged strokes.
func BuildPixels(pix []int32, d []int32, w, h int, o Options) []Stroke {
	builds := 1
	if len(pix) >= minParallelPixels {
		builds = min(runtime.GOMAXPROCS(0), maxBuilds)
	}
	return buildIn(builds, pix, d, w, h, o)
}

// buildIn is BuildPixels with the skeleton's parts split among up to builds builds.
func buildIn(builds int, pix []int32, d []int32, w, h int, o Options) []Stroke {
	g := newGrid(w, h)
	q := g.framed(pix)
	sets := [][]int32{q}
	if builds > 1 {
		sets = split(q, g.pw, builds)
	}
	outs := make([]built, len(sets))
	var wg sync.WaitGroup
	for k := 1; k < len(sets); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[k] = g.build(sets[k], d, o)
		}()
	}
	outs[0] = g.build(sets[0], d, o)
	wg.Wait()
	g.release(q)
	dots := merge(outs, func(b *built) []keyed { return b.dots })
	strokes := merge(outs, func(b *built) []keyed { return b.strokes })
	loops := merge(outs, func(b *built) []keyed { return b.loops })
	strokes = joinGaps(strokes, o)
	return append(append(dots, strokes...), loops...)
}

// maxBuilds is the most builds BuildPixels runs at once.
const maxBuilds = 8

// keyed is a stroke with the first pixel (on the framed grid) of the node its build
// numbered it by, or of its loop.
type keyed struct {
	key int32
	s   Stroke
}

// built is what the build of some of the skeleton's parts gives: its dots, its strokes
// joined through junctions (not yet across gaps) and its loops without nodes, each in
// the order of their keys.
type built struct {
	dots, strokes, loops []keyed
}

// merge returns the strokes that list returns from each of outs, in the order of their
// keys; strokes of one build keep their order (equal keys come from one build).
func merge(outs []built, list func(*built) []keyed) []Stroke {
	n := 0
	for k := range outs {
		n += len(list(&outs[k]))
	}
	if n == 0 {
		return nil
	}
	res := make([]Stroke, 0, n)
	at := make([]int, len(outs))
	for len(res) < n {
		best := -1
		var bk int32
		for k := range outs {
			if l := list(&outs[k]); at[k] < len(l) && (best < 0 || l[at[k]].key < bk) {
				best, bk = k, l[at[k]].key
			}
		}
		res = append(res, list(&outs[best])[at[best]].s)
		at[best]++
	}
	return res
}

// split returns the skeleton's pixels q (framed indices, increasing) in up to n sets
// of whole 8-connected parts, each set in increasing order. The parts are dealt out
// largest first (the earliest first among equal sizes) to the set with the fewest
// pixels so far; an empty set is left out.
func split(q []int32, pw, n int) [][]int32 {
	// Union-find over the pixels' ranks; a set's root is its first pixel. The pixels
	// before pixel k that touch it are its left neighbour and those of the row above
	// within one column, found by a pointer that only moves on (q is sorted). Pixel k
	// joins the first one's set, so most pixels (on a chain, one of them touches the
	// pixel) take one find and no union.
	parent := make([]int32, len(q))
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	pw32 := int32(pw)
	p := 0
	for k, v := range q {
		root := int32(k)
		join := func(j int) {
			r := parent[j]
			if parent[r] != r {
				r = find(r)
			}
			switch {
			case root == int32(k):
				root = r
			case r < root:
				parent[root] = r
				root = r
			case root < r:
				parent[r] = root
			}
		}
		lo, hi := v-pw32-1, v-pw32+1
		for p < k && q[p] < lo {
			p++
		}
		for j := p; j < k && q[j] <= hi; j++ {
			join(j)
		}
		if k > 0 && q[k-1] == v-1 {
			join(k - 1)
		}
		parent[k] = root
	}
	// size[r] counts the pixels of the part whose root is r.
	size := make([]int32, len(q))
	var roots []int32
	for k := range q {
		// Parents come before their children, so pixel k's parent already holds
		// its root.
		r := parent[parent[k]]
		parent[k] = r
		if r == int32(k) {
			roots = append(roots, r)
		}
		size[r]++
	}
	if len(roots) < 2 {
		return [][]int32{q}
	}
	slices.SortStableFunc(roots, func(a, b int32) int { return cmp.Compare(size[b], size[a]) })
	load := make([]int, n)
	set := make([]int32, len(q)) // set[r]: the set of the part whose root is r
	for _, r := range roots {
		s := 0
		for k := 1; k < n; k++ {
			if load[k] < load[s] {
				s = k
			}
		}
		set[r] = int32(s)
		load[s] += int(size[r])
	}
	sets := make([][]int32, n)
	for k := range sets {
		sets[k] = make([]int32, 0, load[k])
	}
	for k, v := range q {
		s := set[parent[k]]
		sets[s] = append(sets[s], v)
	}
	return slices.DeleteFunc(sets, func(s []int32) bool { return len(s) == 0 })
}

// builder builds the graph of some whole parts of the skeleton on a shared grid.
type builder struct {
	grid              // a copy, sharing the bytes: one indirection less in the tracing loops
	pix   []int32     // the parts' pixels (framed indices) in increasing order
	nodes []nodePixel // node pixels sorted by index
}

// nodeOf returns the number of the node holding pixel q (g.node(q) must hold).
func (g *builder) nodeOf(q int) int {
	k, _ := slices.BinarySearchFunc(g.nodes, int32(q), func(p nodePixel, q int32) int { return cmp.Compare(p.q, q) })
	return int(g.nodes[k].id)
}

// build marks the pixels pix (whole parts of the skeleton, framed indices in increasing
// order) on the grid with their neighbour counts, and builds their graph.
func (gr *grid) build(pix []int32, d []int32, o Options) built {
	st, off := gr.st, gr.off
	for _, q := range pix {
		st[q] = onBit
	}
	for _, q := range pix {
		n := uint8(0)
		for _, o := range off {
			n += st[int(q)+o] & onBit
		}
		st[q] |= n << degShift
	}
	g := &builder{grid: *gr, pix: pix}
	// Nodes: clusters of junction pixels (3 or more neighbours), and free ends; members
	// lists each node's pixels in index order, and key each node's first pixel.
	var nodes []node
	var members [][]int
	var key []int32
	for _, q32 := range g.pix {
		q := int(q32)
		if g.node(q) || g.deg(q) == 2 {
			continue
		}
		id := int32(len(nodes))
		var ms []int
		g.st[q] |= nodeBit
		if g.deg(q) <= 1 {
			ms = []int{q}
		} else {
			stack := []int{q}
			for len(stack) > 0 {
				p := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				ms = append(ms, p)
				for _, o := range g.off {
					if n := p + o; g.set(n) && g.deg(n) >= 3 && !g.node(n) {
						g.st[n] |= nodeBit
						stack = append(stack, n)
					}
				}
			}
			slices.Sort(ms)
		}
		var sx, sy, sr float64
		for _, p := range ms {
			sx += float64(p%g.pw-1) + 0.5
			sy += float64(p/g.pw-1) + 0.5
			sr = max(sr, math.Sqrt(float64(d[g.image(p)])))
			g.nodes = append(g.nodes, nodePixel{int32(p), id})
		}
		n := float64(len(ms))
		nodes = append(nodes, node{x: sx / n, y: sy / n, r: sr, end: g.deg(q) <= 1})
		members = append(members, ms)
		key = append(key, q32)
	}
	slices.SortFunc(g.nodes, func(a, b nodePixel) int { return cmp.Compare(a.q, b.q) })
	pt := func(q int) Point {
		return Point{X: float64(q%g.pw-1) + 0.5, Y: float64(q/g.pw-1) + 0.5, R: math.Sqrt(float64(d[g.image(q)]))}
	}
	centre := func(n int) Point { return Point{X: nodes[n].x, Y: nodes[n].y, R: nodes[n].r, Junction: !nodes[n].end} }
	var edges []edge
	// The edges' points, in one buffer, each edge's slice of it capped. (Each edge's own
	// slice, grown a point at a time, and the strokes' joined by appending edge after
	// edge, were half the graph's time on a 640 x 480 brush drawing: 1.27 ms, now 0.61;
	// a page of glyphs 2.82 ms, now 1.88.)
	arena := make([]Point, 0, len(g.pix)+4*len(nodes)+16)
	addEdge := func(a, b int, pts []Point) {
		e := len(edges)
		edges = append(edges, edge{a: a, b: b, points: pts, key: key[a]})
		nodes[a].edges = append(nodes[a].edges, 2*e)
		nodes[b].edges = append(nodes[b].edges, 2*e+1)
	}
	for n := range nodes {
		for _, m := range members[n] {
			for _, o := range g.off {
				q := m + o
				if !g.set(q) {
					continue
				}
				if g.node(q) {
					// Two nodes side by side (one of them a free end): one short edge,
					// added from the lower node.
					if b := g.nodeOf(q); b > n {
						addEdge(n, b, []Point{centre(n), centre(b)})
					}
					continue
				}
				if g.st[q]&visitedBit != 0 {
					continue
				}
				from := len(arena)
				arena = append(arena, centre(n))
				if !nodes[n].end {
					arena = append(arena, pt(m))
				}
				prev, cur := m, q
				end := -1
				for {
					g.st[cur] |= visitedBit
					arena = append(arena, pt(cur))
					next := -1
					for _, o2 := range g.off {
						if c := cur + o2; g.set(c) && c != prev {
							next = c
							break
						}
					}
					if next < 0 {
						break
					}
					if g.node(next) {
						end = next
						break
					}
					if g.st[next]&visitedBit != 0 {
						break
					}
					prev, cur = cur, next
				}
				if end < 0 {
					// A dead end inside a chain cannot happen in a thinned skeleton;
					// end the edge where it stops.
					arena = arena[:from]
					continue
				}
				b := g.nodeOf(end)
				if !nodes[b].end {
					arena = append(arena, pt(end))
				}
				arena = append(arena, centre(b))
				addEdge(n, b, arena[from:len(arena):len(arena)])
			}
		}
	}
	// Loops without any node.
	var loops []keyed
	for _, q32 := range g.pix {
		q := int(q32)
		if g.st[q]&(visitedBit|nodeBit) != 0 {
			continue
		}
		pts := []Point{}
		prev, cur := -1, q
		for cur >= 0 {
			g.st[cur] |= visitedBit
			pts = append(pts, pt(cur))
			next := -1
			for _, o := range g.off {
				if c := cur + o; g.set(c) && c != prev && g.st[c]&visitedBit == 0 {
					next = c
					break
				}
			}
			prev, cur = cur, next
		}
		s := Stroke{Points: pts, Closed: o.CloseLoops}
		if !o.CloseLoops && len(pts) > 0 {
			s.Points = append(pts, pts[0])
		}
		loops = append(loops, keyed{q32, s})
	}
	// Isolated pixels are nodes without edges: dots.
	var dots []keyed
	for n := range nodes {
		if len(nodes[n].edges) == 0 {
			dots = append(dots, keyed{key[n], Stroke{Points: []Point{centre(n)}}})
		}
	}
	wk := &work{nodes: nodes, edges: edges, o: o}
	wk.prune()
	wk.contract()
	return built{dots: dots, strokes: wk.join(), loops: loops}
}

type work struct {
	nodes []node
	edges []edge
	o     Options
}

func (g *work) degree(n int) int {
	k := 0
	for _, e := range g.nodes[n].edges {
		if !g.edges[e/2].removed {
			k++
		}
	}
	return k
}

// prune removes spurs: edges from a junction to a free end shorter than the line's
// radius at the junction (times SpurFactor, plus SpurSlack) that are no stubs (see
// Options), shortest first, as long as the junction still has three branches.
func (g *work) prune() {
	for pass := 0; pass < 4; pass++ {
		type cand struct {
			e int
			l float64
		}
		var cs []cand
		for i, e := range g.edges {
			if e.removed || e.a == e.b {
				continue
			}
			endA, endB := g.nodes[e.a].end, g.nodes[e.b].end
			if endA == endB {
				continue
			}
			j, f := e.a, e.b
			if endA {
				j, f = e.b, e.a
			}
			rj := g.nodes[j].r
			// A branch as long as the limit is no spur: its length is summed no further.
			limit := g.o.SpurFactor*rj + g.o.SpurSlack
			l, short := view{e.points, false}.lengthBelow(limit)
			if !short {
				continue
			}
			// How far the branch's ink reaches past the junction's disc: a stroke that
			// goes on a little past a crossing reaches out by its own radius and more.
			reach := l + g.nodes[f].r - rj
			rf := g.nodes[f].r
			stub := reach >= max(g.o.SpurSlack, rj) || (rf >= 0.75*rj && reach >= g.o.SpurSlack)
			if !stub {
				cs = append(cs, cand{i, l})
			}
		}
		slices.SortStableFunc(cs, func(a, b cand) int {
			switch {
			case a.l < b.l:
				return -1
			case a.l > b.l:
				return 1
			}
			return 0
		})
		removed := false
		for _, c := range cs {
			e := &g.edges[c.e]
			j := e.a
			if g.nodes[e.a].end {
				j = e.b
			}
			if g.degree(j) >= 3 {
				e.removed = true
				removed = true
			}
		}
		if !removed {
			return
		}
	}
}

// contract merges junctions joined by an edge shorter than their two radii: where two
// wide lines cross at an angle the skeleton splits the crossing into two forks, and
// only as one node do the four branches pair up by direction.
func (g *work) contract() {
	parent := make([]int, len(g.nodes))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	merged := false
	for i := range g.edges {
		e := &g.edges[i]
		if e.removed || e.a == e.b || g.nodes[e.a].end || g.nodes[e.b].end {
			continue
		}
		ra, rb := find(e.a), find(e.b)
		if ra == rb {
			continue
		}
		if _, short := (view{e.points, false}).lengthBelow(g.nodes[e.a].r + g.nodes[e.b].r); short {
			e.removed = true
			parent[max(ra, rb)] = min(ra, rb)
			merged = true
		}
	}
	if !merged {
		return
	}
	// Each merged node sits at the mean of its parts, with the largest radius, and
	// takes over their edges.
	type acc struct{ x, y, r, n float64 }
	sums := make([]acc, len(g.nodes))
	for i, n := range g.nodes {
		r := find(i)
		sums[r].x += n.x
		sums[r].y += n.y
		sums[r].n++
		sums[r].r = max(sums[r].r, n.r)
	}
	for i := range g.nodes {
		if find(i) != i {
			continue
		}
		g.nodes[i].x, g.nodes[i].y, g.nodes[i].r = sums[i].x/sums[i].n, sums[i].y/sums[i].n, sums[i].r
	}
	for i := range g.nodes {
		if r := find(i); r != i {
			g.nodes[r].edges = append(g.nodes[r].edges, g.nodes[i].edges...)
			g.nodes[i].edges = nil
		}
	}
	for i := range g.edges {
		e := &g.edges[i]
		e.a, e.b = find(e.a), find(e.b)
		if e.removed {
			continue
		}
		for _, k := range [2]int{0, len(e.points) - 1} {
			n := e.a
			if k > 0 {
				n = e.b
			}
			if !g.nodes[n].end {
				e.points[k].X, e.points[k].Y, e.points[k].R = g.nodes[n].x, g.nodes[n].y, g.nodes[n].r
			}
		}
	}
}

// direction returns the unit direction in which edge end ee leaves its node, measured
// beyond the junction's radius, where the ink is the branch's own.
func (g *work) direction(ee int) (float64, float64) {
	pts, n := g.endView(ee)
	r := g.nodes[n].r
	s0, s1 := r, r+max(4, 2*r)
	// The edge's length matters only when it is below s1: it is summed no further.
	if total, short := pts.lengthBelow(s1); short {
		s1 = total
		s0 = min(s0, total/2)
	}
	a, b := pts.pointAt(s0), pts.pointAt(s1)
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return 0, 0
	}
	return dx / l, dy / l
}

// JoinWidthRatio is the largest ratio of two branches' radii (plus half a pixel) at
// which they may continue each other through a junction.
const JoinWidthRatio = 1.5

// radius returns the median line radius of edge end ee over the stretch direction
// looks at, beyond the junction's radius.
func (g *work) radius(ee int) float64 {
	pts, n := g.endView(ee)
	r := g.nodes[n].r
	s0, s1 := r, r+max(4, 2*r)
	var rs []float64
	var l float64
	for i := 1; i < pts.len(); i++ {
		l += dist(pts.at(i-1), pts.at(i))
		if l > s1 {
			break // l only grows
		}
		if p := pts.at(i); l >= s0 && !p.Junction {
			rs = append(rs, p.R)
		}
	}
	if len(rs) == 0 {
		return r
	}
	slices.Sort(rs)
	return rs[len(rs)/2]
}

// endView returns edge end ee's points as seen from its node outward, and the node:
// direction and radius look only at the stretch near the node, and long edges were
// copied and measured whole to be reversed (on the spaghetti, a third of the graph's
// instructions).
func (g *work) endView(ee int) (view, int) {
	e := &g.edges[ee/2]
	if ee%2 == 1 {
		return view{e.points, true}, e.b
	}
	return view{e.points, false}, e.a
}

// view is a chain of points, read forwards or, with rev, backwards.
type view struct {
	pts []Point
	rev bool
}

func (v view) len() int { return len(v.pts) }

// at returns point i of the view.
func (v view) at(i int) Point {
	if v.rev {
		return v.pts[len(v.pts)-1-i]
	}
	return v.pts[i]
}

// lengthBelow returns the view's length and whether it is below limit; once the sum
// from its start reaches limit, it stops and returns that partial sum and false.
func (v view) lengthBelow(limit float64) (float64, bool) {
	var l float64
	for i := 1; i < v.len(); i++ {
		if l += dist(v.at(i-1), v.at(i)); l >= limit {
			return l, false
		}
	}
	return l, l < limit
}

// pointAt returns the point at arc length s along the view (its last point when s is
// past its end).
func (v view) pointAt(s float64) Point {
	for i := 1; i < v.len(); i++ {
		a, b := v.at(i-1), v.at(i)
		l := dist(a, b)
		if s <= l && l > 0 {
			t := s / l
			return Point{X: a.X + t*(b.X-a.X), Y: a.Y + t*(b.Y-a.Y)}
		}
		s -= l
	}
	return v.at(v.len() - 1)
}

// join pairs the branches at each node that continue each other and chains edges into
// strokes, each keyed by the first edge it was chained from.
func (g *work) join() []keyed {
	// pair[ee] is the edge end that edge end ee continues into, or -1 (a slice, not a
	// map: on the glyphs the map's lookups were most of join's instructions).
	pair := make([]int, 2*len(g.edges))
	for i := range pair {
		pair[i] = -1
	}
	cosMin := math.Cos(g.o.JoinAngle * math.Pi / 180)
	for n := range g.nodes {
		var ends []int
		for _, e := range g.nodes[n].edges {
			if !g.edges[e/2].removed {
				ends = append(ends, e)
			}
		}
		if len(ends) == 2 {
			pair[ends[0]], pair[ends[1]] = ends[1], ends[0]
			continue
		}
		if len(ends) < 3 {
			continue
		}
		type cand struct {
			a, b int
			c    float64
		}
		var cs []cand
		dirs := make([][2]float64, len(ends))
		radii := make([]float64, len(ends))
		for i, e := range ends {
			dirs[i][0], dirs[i][1] = g.direction(e)
			radii[i] = g.radius(e)
		}
		for i := range ends {
			for j := i + 1; j < len(ends); j++ {
				c := -(dirs[i][0]*dirs[j][0] + dirs[i][1]*dirs[j][1])
				// Lines of clearly different widths do not continue each other (a thin
				// line crossing a thick one), however well they align.
				hi, lo := max(radii[i], radii[j]), min(radii[i], radii[j])
				if c >= cosMin && hi <= JoinWidthRatio*lo+0.5 {
					cs = append(cs, cand{ends[i], ends[j], c})
				}
			}
		}
		slices.SortStableFunc(cs, func(a, b cand) int {
			switch {
			case a.c > b.c:
				return -1
			case a.c < b.c:
				return 1
			}
			return 0
		})
		for _, c := range cs {
			if pair[c.a] >= 0 || pair[c.b] >= 0 {
				continue
			}
			if c.a/2 == c.b/2 {
				continue // an edge looping back to its own node stays a loop
			}
			pair[c.a], pair[c.b] = c.b, c.a
		}
	}
	used := make([]bool, len(g.edges))
	var seq []int // the edges' ends a stroke takes
	// seen[e] == start+1 marks edge e as met walking back from start.
	seen := make([]int, len(g.edges))
	var out []keyed
	for start := range g.edges {
		if used[start] || g.edges[start].removed {
			continue
		}
		// Walk backwards from the start edge's side 0 to find the chain's first edge.
		first := 2 * start // end of the chain: edge end we leave at the start
		seen[start] = start + 1
		nSeen := 1
		closed := false
		for {
			p := pair[first]
			if p < 0 {
				break
			}
			if seen[p/2] == start+1 {
				closed = true
				break
			}
			seen[p/2] = start + 1
			nSeen++
			first = p ^ 1
		}
		// Now walk forwards from first, listing the edges' ends taken, then join their
		// points in one slice of the length they make.
		seq = seq[:0]
		n := 1
		cur := first
		for {
			e := cur / 2
			used[e] = true
			seq = append(seq, cur)
			n += len(g.edges[e].points) - 1
			p := pair[cur^1]
			if p < 0 || used[p/2] {
				break
			}
			cur = p
		}
		pts := make([]Point, 0, n)
		for i, c := range seq {
			ep := g.edges[c/2].points
			if c%2 == 0 {
				// Forwards: its points but the first, where the stroke is already (but
				// for the stroke's first edge).
				if i == 0 {
					pts = append(pts, ep[0])
				}
				pts = append(pts, ep[1:]...)
				continue
			}
			// An edge taken backwards gives its points last to first; but for the
			// stroke's first edge, without its last, where the stroke is already.
			k := len(ep) - 1
			if i > 0 {
				k--
			}
			for ; k >= 0; k-- {
				pts = append(pts, ep[k])
			}
		}
		if closed || (g.edges[first/2].a == g.edges[first/2].b && nSeen == 1 && first/2 == cur/2 && pts[0] == pts[len(pts)-1]) {
			if g.o.CloseLoops && len(pts) > 2 && pts[0].X == pts[len(pts)-1].X && pts[0].Y == pts[len(pts)-1].Y {
				out = append(out, keyed{g.edges[start].key, Stroke{Points: pts[:len(pts)-1], Closed: true}})
				continue
			}
		}
		out = append(out, keyed{g.edges[start].key, Stroke{Points: pts}})
	}
	return out
}

// joinGaps bridges free ends that point at each other across at most o.JoinGaps pixels,
// closest first; a stroke whose own two ends meet is closed when o.CloseLoops is set.
//
// Closest first: of all the pairs of free ends that may be bridged, the one with the
// shortest gap (the earliest in stroke and side order among equal gaps) is bridged, and
// the pairs are then looked at again. Only the joined stroke's ends are new after a
// bridge, so the pairs are kept in a heap, each with the versions of its two strokes,
// and only the joined stroke's ends are paired anew (with the ends near them, found on
// a grid of cells as wide as the largest gap); a pair whose stroke has changed since is
// dropped when it comes up.
func joinGaps(ss []Stroke, o Options) []Stroke {
	if o.JoinGaps <= 0 {
		return ss
	}
	cosMin := math.Cos(o.JoinAngle * math.Pi / 180)
	n := len(ss)
	type end struct {
		p      Point
		dx, dy float64
	}
	ends := make([][2]end, n)
	version := make([]int32, n)
	dead := make([]bool, n)
	free := func(s int) bool { return !dead[s] && !ss[s].Closed && len(ss[s].Points) >= 2 }
	// The grid: cells of side o.JoinGaps (one cell when that is not a finite number),
	// each listing the ends in it with their stroke's version then.
	type ref struct {
		s, version int32
		side       int8
	}
	oneCell := math.IsInf(o.JoinGaps, 0) || math.IsNaN(o.JoinGaps)
	cellOf := func(p Point) [2]int64 {
		if oneCell {
			return [2]int64{}
		}
		return [2]int64{int64(math.Floor(p.X / o.JoinGaps)), int64(math.Floor(p.Y / o.JoinGaps))}
	}
	reach := int64(1) // the cells around an end's that may hold ends near enough
	if oneCell {
		reach = 0
	}
	grid := map[[2]int64][]ref{}
	place := func(s int) {
		for side := range 2 {
			p, dx, dy := gapEnd(ss[s], side)
			ends[s][side] = end{p, dx, dy}
			c := cellOf(p)
			grid[c] = append(grid[c], ref{int32(s), version[s], int8(side)})
		}
	}
	var pairs gapHeap
	// pair considers the ends (i, si) and (j, sj), i before j (or si before sj), as
	// the scan of every pair did.
	pair := func(i, si, j, sj int) {
		a, b := ends[i][si], ends[j][sj]
		dd := math.Hypot(b.p.X-a.p.X, b.p.Y-a.p.Y)
		if dd > o.JoinGaps || dd == 0 {
			return
		}
		ux, uy := (b.p.X-a.p.X)/dd, (b.p.Y-a.p.Y)/dd
		if a.dx*ux+a.dy*uy < cosMin || -(b.dx*ux+b.dy*uy) < cosMin {
			return
		}
		if j == i && !o.CloseLoops {
			return
		}
		heap.Push(&pairs, gapPair{d: dd, i: int32(i), j: int32(j), si: int8(si), sj: int8(sj), vi: version[i], vj: version[j]})
	}
	// near pairs end (s, side) with the current ends near it that come after it, or
	// with all of them (but itself and, from side 1, its own side 0) when all is set.
	near := func(s, side int, all bool) {
		c := cellOf(ends[s][side].p)
		for dy := -reach; dy <= reach; dy++ {
			for dx := -reach; dx <= reach; dx++ {
				for _, r := range grid[[2]int64{c[0] + dx, c[1] + dy}] {
					k, sk := int(r.s), int(r.side)
					if r.version != version[k] || !free(k) || (k == s && sk == side) {
						continue
					}
					switch {
					case k > s || k == s && sk > side:
						pair(s, side, k, sk)
					case all && k != s:
						pair(k, sk, s, side)
					}
				}
			}
		}
	}
	for s := range ss {
		if free(s) {
			place(s)
		}
	}
	for s := range ss {
		if free(s) {
			near(s, 0, false)
			near(s, 1, false)
		}
	}
	for pairs.Len() > 0 {
		p := heap.Pop(&pairs).(gapPair)
		i, j := int(p.i), int(p.j)
		if p.vi != version[i] || p.vj != version[j] || !free(i) || !free(j) {
			continue
		}
		version[i]++
		if i == j {
			ss[i].Closed = true
			continue
		}
		// Orient i to end at its joined end and j to start at its joined end.
		pa := slices.Clone(ss[i].Points)
		if p.si == 0 {
			slices.Reverse(pa)
		}
		pb := slices.Clone(ss[j].Points)
		if p.sj == 1 {
			slices.Reverse(pb)
		}
		ss[i] = Stroke{Points: append(pa, pb...)}
		dead[j] = true
		version[j]++
		place(i)
		near(i, 0, true)
		near(i, 1, true)
	}
	out := ss[:0]
	for s := range ss {
		if !dead[s] {
			out = append(out, ss[s])
		}
	}
	return out
}

// gapEnd returns the end of stroke s on side (0: its first point, 1: its last) and the
// unit direction out of it, from the point about a line width back along the stroke
// ((0, 0) when that is the end itself).
func gapEnd(s Stroke, side int) (Point, float64, float64) {
	// pts starts at the free end; direction of travel out of it.
	pts := view{s.Points, side == 1}
	tip := pts.at(0)
	back := pts.pointAt(max(3, 2*tip.R))
	dx, dy := tip.X-back.X, tip.Y-back.Y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return tip, 0, 0
	}
	return tip, dx / l, dy / l
}

// gapPair is a pair of free ends that may be bridged: end si of stroke i and end sj of
// stroke j (i before j, or i = j and si = 0, sj = 1), d apart, found when the strokes'
// versions were vi and vj.
type gapPair struct {
	d      float64
	i, j   int32
	vi, vj int32
	si, sj int8
}

// gapHeap orders pairs by gap, then by stroke and side as the pairs were scanned.
type gapHeap []gapPair

func (h gapHeap) Len() int { return len(h) }
func (h gapHeap) Less(a, b int) bool {
	x, y := h[a], h[b]
	if x.d != y.d {
		return x.d < y.d
	}
	if x.i != y.i {
		return x.i < y.i
	}
	if x.si != y.si {
		return x.si < y.si
	}
	if x.j != y.j {
		return x.j < y.j
	}
	return x.sj < y.sj
}
func (h gapHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *gapHeap) Push(x any)   { *h = append(*h, x.(gapPair)) }
func (h *gapHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
