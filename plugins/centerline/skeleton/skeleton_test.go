package skeleton

import (
	"context"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
)

func parse(rows ...string) ([]bool, int, int) {
	w, h := len(rows[0]), len(rows)
	in := make([]bool, w*h)
	for y, r := range rows {
		for x, c := range r {
			in[y*w+x] = c == '#'
		}
	}
	return in, w, h
}

func show(sk []bool, w int) string {
	var b strings.Builder
	for i, on := range sk {
		if on {
			b.WriteByte('#')
		} else {
			b.WriteByte('.')
		}
		if i%w == w-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestThinKeepsTheMedialLineOfABar(t *testing.T) {
	in, w, h := parse(
		"...........",
		".#########.",
		".#########.",
		".#########.",
		"...........",
	)
	sk, err := Thin(context.Background(), in, distance.Transform(in, w, h), w, h)
	if err != nil {
		t.Fatal(err)
	}
	want := "...........\n...........\n..#######..\n...........\n...........\n"
	if got := show(sk, w); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

func TestThinKeepsARingsHole(t *testing.T) {
	in, w, h := parse(
		".......",
		".#####.",
		".##.##.",
		".#...#.",
		".##.##.",
		".#####.",
		".......",
	)
	sk, _ := Thin(context.Background(), in, distance.Transform(in, w, h), w, h)
	// The skeleton must still enclose the centre: the background from the centre cannot
	// reach the border through 4-connected steps.
	seen := map[int]bool{3*w + 3: true}
	stack := []int{3*w + 3}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x == 0 || y == 0 || x == w-1 || y == h-1 {
			t.Fatalf("the hole leaks to the border:\n%s", show(sk, w))
		}
		for _, o := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			j := (y+o[1])*w + x + o[0]
			if !sk[j] && !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
}

func TestSimpleTable(t *testing.T) {
	tests := []struct {
		name string
		c    int
		want bool
	}{
		{"isolated pixel is not simple", 0, false},
		{"an end with one neighbour is simple", 1, true},
		{"a pixel between east and west is not simple", 1 | 1<<4, false},
		{"a corner of a filled block is simple", 1 | 1<<6 | 1<<7, true},
		{"an interior pixel is not simple", 255, false},
	}
	for _, tt := range tests {
		if simple[tt.c] != tt.want {
			t.Errorf("%s: simple[%08b] = %v", tt.name, tt.c, simple[tt.c])
		}
	}
}
