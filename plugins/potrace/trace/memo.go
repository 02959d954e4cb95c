package trace

import (
	"context"
	"sync"
)

// Memo remembers the curves Trace works out, so that tracing several bitmaps that share
// many boundaries (the stacked colour layers of potrace2, where each layer's bitmap also
// holds the layers drawn above it) works out each shared boundary once. A path's curve
// depends only on its pixel corners, its side (outer boundary or hole), the options and
// the bitmap's height; a Memo is made for one options and one height and compares the
// corners in full, so a remembered curve is exactly the one Trace would work out. It is
// safe for concurrent use, and it stops remembering after MemoSegments segments.
type Memo struct {
	opts   Options
	height int
	mu     sync.Mutex
	curves map[memoKey][]Segment
	kept   int // segments remembered
}

// MemoSegments bounds the segments a Memo keeps (about 72 bytes each, plus a quarter
// byte per pixel corner of their paths).
const MemoSegments = 1 << 19

// minMemoCorners is the length (pixel corners) from which a path is remembered: shorter
// ones cost little to work out again.
const minMemoCorners = 16

// memoKey names a path by its first corner, its side, its length and its moves (two
// bits each, four to a byte): paths with equal keys have the same corners.
type memoKey struct {
	start    point
	positive bool
	n        int
	moves    string
}

// NewMemo returns an empty memo for bitmaps of the given height traced with opts.
func NewMemo(opts Options, height int) *Memo {
	return &Memo{opts: opts, height: height, curves: map[memoKey][]Segment{}}
}

// Trace is Trace(ctx, bm, opts) with m's options, reusing and remembering curves, and
// working the paths' curves out on all cores. A bitmap of another height than m's is
// traced as Trace traces it. The curves returned are the caller's to change.
func (m *Memo) Trace(ctx context.Context, bm *Bitmap) ([]*Path, error) {
	if bm != nil && bm.Height != m.height {
		return Trace(ctx, bm, m.opts)
	}
	return trace(ctx, bm, m.opts, m)
}

// curve returns the curve of p, from the memo when it holds p (m may be nil).
func (m *Memo) curve(s *scratch, p rawPath, opts Options, h float64) []Segment {
	if m == nil || len(p.pts) < minMemoCorners {
		return s.curve(p, opts, h)
	}
	moves, ok := appendMoves(s.moves[:0], p.pts)
	s.moves = moves
	if !ok {
		return s.curve(p, opts, h)
	}
	key := memoKey{start: p.pts[0], positive: p.positive, n: len(p.pts), moves: string(moves)}
	m.mu.Lock()
	c, found := m.curves[key]
	m.mu.Unlock()
	if found {
		return append([]Segment(nil), c...)
	}
	c = s.curve(p, opts, h)
	m.mu.Lock()
	// Another goroutine may have worked it out meanwhile.
	if _, found := m.curves[key]; !found && m.kept+len(c) <= MemoSegments {
		m.kept += len(c)
		m.curves[key] = append([]Segment(nil), c...)
	}
	m.mu.Unlock()
	return c
}

// appendMoves appends the moves between consecutive corners of pts to dst, four to a
// byte; ok is false if two corners are not one unit step apart.
func appendMoves(dst []byte, pts []point) ([]byte, bool) {
	var b byte
	for i := 1; i < len(pts); i++ {
		var d byte
		switch dx, dy := pts[i].x-pts[i-1].x, pts[i].y-pts[i-1].y; {
		case dx == 1 && dy == 0:
			d = 0
		case dx == 0 && dy == 1:
			d = 1
		case dx == -1 && dy == 0:
			d = 2
		case dx == 0 && dy == -1:
			d = 3
		default:
			return dst, false
		}
		b |= d << (2 * ((i - 1) & 3))
		if (i-1)&3 == 3 || i == len(pts)-1 {
			dst = append(dst, b)
			b = 0
		}
	}
	return dst, true
}
