// Package skeleton thins a binary shape to a one-pixel-wide, 8-connected medial axis by
// distance-ordered homotopic thinning: pixels are visited from the boundary inwards in
// the order of their distance to it, and a pixel is removed when that does not change
// the shape's topology (it is simple) and it is not the end of a ridge of the distance
// map. What remains runs along the ridges, the medial axis, and keeps every hole.
package skeleton

import (
	"context"
	"math"
	"slices"
)

// Neighbour offsets in ring order, starting east and turning anticlockwise on screen
// (y down): E, NE, N, NW, W, SW, S, SE.
var ring = [8][2]int{{1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}, {0, 1}, {1, 1}}

// simple[c] says whether a pixel whose 8 neighbours are the bits of c (bit i for
// ring[i]) is simple: its neighbours in the shape form one 8-connected component and
// the background neighbours that touch it by an edge form one 4-connected component.
var simple = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = components(c, true) == 1 && components(c, false) == 1
	}
	return t
}()

// tip[c] says whether a pixel whose neighbours are c ends a line two pixels wide: two
// or three neighbours side by side. Removing such pixels one after the other, in scan
// order, eats a straight band of even width from its end (its two middle columns are
// equally deep, so no pixel of them is the end of a ridge); Thin removes them only
// once the rest of their layer is thinned. It does so from a depth of 3 px (bands 6 px
// wide and wider): nearer the paper the distances are too coarse to tell a ridge, and
// deferring there grows spurs on the ragged edges of real line art.
var tip = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		n, runs := 0, 0
		for i := 0; i < 8; i++ {
			n += c >> i & 1
			if c>>i&1 == 1 && c>>((i+7)%8)&1 == 0 {
				runs++
			}
		}
		t[c] = n >= 2 && n <= 3 && runs == 1
	}
	return t
}()

// components counts the 8-connected components of the set neighbours of configuration
// c (fg), or the 4-connected components of the unset neighbours that contain an edge
// neighbour (background).
func components(c int, fg bool) int {
	in := func(i int) bool { return (c>>i&1 == 1) == fg }
	seen := 0
	n := 0
	for s := 0; s < 8; s++ {
		if !in(s) || seen>>s&1 == 1 {
			continue
		}
		if !fg && s%2 == 1 {
			continue // background components must reach an edge neighbour
		}
		n++
		stack := []int{s}
		seen |= 1 << s
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := 0; j < 8; j++ {
				if !in(j) || seen>>j&1 == 1 || !adjacent(i, j, fg) {
					continue
				}
				seen |= 1 << j
				stack = append(stack, j)
			}
		}
	}
	return n
}

// adjacent says whether ring positions i and j touch: by an edge or corner for the
// shape (8-connectivity), by an edge for the background (4-connectivity).
func adjacent(i, j int, eight bool) bool {
	dx, dy := ring[i][0]-ring[j][0], ring[i][1]-ring[j][1]
	if eight {
		return max(abs(dx), abs(dy)) == 1
	}
	return abs(dx)+abs(dy) == 1
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Thin returns the skeleton of the w x h shape in, given its squared distance map d
// (package distance). It checks ctx between distance layers.
func Thin(ctx context.Context, in []bool, d []float64, w, h int) ([]bool, error) {
	sk := slices.Clone(in)
	// Visit order: by distance, then by index. Distances are whole squared numbers,
	// so both fit one sortable key.
	keys := make([]uint64, 0, len(in)/4)
	for i, on := range in {
		if on {
			keys = append(keys, uint64(d[i])<<32|uint64(i))
		}
	}
	slices.Sort(keys)
	order := make([]int32, len(keys))
	for k, key := range keys {
		order[k] = int32(uint32(key))
	}
	keys = nil
	at := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && sk[y*w+x] }
	config := func(i int) (c, n int) {
		x, y := i%w, i/w
		for k, o := range ring {
			if at(x+o[0], y+o[1]) {
				c |= 1 << k
				n++
			}
		}
		return c, n
	}
	// ridgeEnd says whether pixel i may end a line: no neighbour in the shape is
	// farther from the boundary by half a pixel or more. (Exact distances along a ridge
	// wobble by less than that; past the centre of a round end they fall by about a
	// pixel per step.)
	ridgeEnd := func(i int) bool {
		x, y := i%w, i/w
		limit := math.Sqrt(d[i]) + 0.5
		limit *= limit
		for _, o := range ring {
			if at(x+o[0], y+o[1]) && d[(y+o[1])*w+x+o[0]] >= limit {
				return false
			}
		}
		return true
	}
	layer := make([]int32, 0, 1024)
	for start := 0; start < len(order); {
		if start&0xfff == 0 || len(layer) > 4096 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		end := start + 1
		for end < len(order) && d[order[end]] == d[order[start]] {
			end++
		}
		layer = append(layer[:0], order[start:end]...)
		// Phase 0 leaves the pixels ending a two-pixel-wide line (tip) at least 3 px
		// deep for phase 1.
		for phase := 0; phase < 2; phase++ {
			if phase == 1 && d[order[start]] < 9 {
				break // phase 0 deferred nothing
			}
			for changed := true; changed; {
				changed = false
				keep := layer[:0]
				for _, p := range layer {
					c, n := config(int(p))
					if simple[c] && (n >= 2 && (phase == 1 || !tip[c] || d[p] < 9) || !ridgeEnd(int(p))) {
						sk[p] = false
						changed = true
						continue
					}
					keep = append(keep, p)
				}
				layer = keep
			}
		}
		start = end
	}
	return sk, nil
}
