package contour

import (
	"slices"
	"strings"
	"testing"
)

// grid parses rows of '#' (in the set) and '.' (out) into a width, a height and a
// membership test on p = y*w + x.
func grid(rows ...string) (int, int, []int32, func(p int) bool) {
	w, h := len(rows[0]), len(rows)
	set := make([]bool, w*h)
	var pixels []int32
	for y, r := range rows {
		for x, c := range r {
			if c == '#' {
				set[y*w+x] = true
				pixels = append(pixels, int32(y*w+x))
			}
		}
	}
	return w, h, pixels, func(p int) bool { return set[p] }
}

func pts(xy ...int32) Ring {
	var r Ring
	for i := 0; i < len(xy); i += 2 {
		r = append(r, Point{xy[i], xy[i+1]})
	}
	return r
}

func TestTrace(t *testing.T) {
	tests := []struct {
		name string
		rows []string
		want []Ring
	}{
		{"single pixel", []string{"...", ".#.", "..."},
			[]Ring{pts(1, 1, 2, 1, 2, 2, 1, 2)}},
		{"rectangle fills the image", []string{"###", "###"},
			[]Ring{pts(0, 0, 3, 0, 3, 2, 0, 2)}},
		{"L shape, one vertex per turn", []string{"#..", "#..", "###"},
			[]Ring{pts(0, 0, 1, 0, 1, 2, 3, 2, 3, 3, 0, 3)}},
		{"ring: outline clockwise, hole counter-clockwise", []string{"###", "#.#", "###"},
			[]Ring{pts(0, 0, 3, 0, 3, 3, 0, 3), pts(1, 2, 2, 2, 2, 1, 1, 1)}},
		{"diagonal neighbours stay apart", []string{"#.", ".#"},
			[]Ring{pts(0, 0, 1, 0, 1, 1, 0, 1), pts(1, 1, 2, 1, 2, 2, 1, 2)}},
		{"empty set", []string{"..", ".."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h, pixels, in := grid(tt.rows...)
			got := NewWalker(w, h).Trace(nil, pixels, in)
			if !slices.EqualFunc(got, tt.want, func(a, b Ring) bool { return slices.Equal(a, b) }) {
				t.Errorf("Trace(%s) = %v, want %v", strings.Join(tt.rows, "/"), got, tt.want)
			}
		})
	}
}

func TestRingArea(t *testing.T) {
	tests := []struct {
		name string
		r    Ring
		want int64
	}{
		{"clockwise 3x2 on screen", pts(0, 0, 3, 0, 3, 2, 0, 2), 12},
		{"counter-clockwise unit square", pts(1, 1, 1, 2, 2, 2, 2, 1), -2},
	}
	for _, tt := range tests {
		if got := tt.r.Area(); got != tt.want {
			t.Errorf("%s: Area() = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// The walker's marks must not leak from one set to the next: the same walker traces
// the same set twice with the same result.
func TestWalkerReuse(t *testing.T) {
	w, h, pixels, in := grid("##.", "##.", "..#")
	wk := NewWalker(w, h)
	first := wk.Trace(nil, slices.Clone(pixels), in)
	second := wk.Trace(nil, slices.Clone(pixels), in)
	if len(first) != 2 || !slices.EqualFunc(first, second, func(a, b Ring) bool { return slices.Equal(a, b) }) {
		t.Errorf("first %v, second %v", first, second)
	}
}

// TestMarksCleared traces many sets with one walker, passing back the previous rings
// for reuse, and checks after each Trace that no mark is left and that the rings are
// those of a fresh walker.
func TestMarksCleared(t *testing.T) {
	sets := [][]string{
		{"###.", "#.#.", "###.", "...#"},
		{"....", ".##.", ".##.", "...."},
		{"#.#.", ".#.#", "#.#.", ".#.#"},
		{"####", "####", "####", "####"},
		{"....", "....", "....", "...."},
		{"##..", "#...", "..##", "..##"},
	}
	wk := NewWalker(4, 4)
	var rings []Ring
	for round := 0; round < 3; round++ {
		for _, rows := range sets {
			w, h, pixels, in := grid(rows...)
			want := NewWalker(w, h).Trace(nil, pixels, in)
			rings = wk.Trace(rings[:0], pixels, in)
			if !slices.EqualFunc(rings, want, func(a, b Ring) bool { return slices.Equal(a, b) }) {
				t.Errorf("round %d, %s: reused walker gives %v, want %v", round, strings.Join(rows, "/"), rings, want)
			}
			for i, m := range wk.mark {
				if m != 0 {
					t.Fatalf("round %d, %s: mark word %d left at %b", round, strings.Join(rows, "/"), i, m)
				}
			}
		}
	}
}
