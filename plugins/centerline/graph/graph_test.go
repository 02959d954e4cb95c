package graph

import (
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
)

func skeletonOf(rows ...string) ([]bool, []int32, int, int) {
	w, h := len(rows[0]), len(rows)
	sk := make([]bool, w*h)
	for y, r := range rows {
		for x, c := range r {
			sk[y*w+x] = c == '#'
		}
	}
	return sk, distance.Transform(sk, w, h), w, h
}

func TestBuild(t *testing.T) {
	long := "....................."
	tests := []struct {
		name    string
		rows    []string
		strokes int
		closed  int
	}{
		{"a line is one stroke", []string{long, ".###################.", long}, 1, 0},
		{"a cross is two strokes", []string{
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			".###################.",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
		}, 2, 0},
		{"a T is two strokes", []string{
			".###################.",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
			"..........#..........",
		}, 2, 0},
		{"a Y of three 120 degree branches is three strokes", []string{
			"#.........#",
			".#.......#.",
			"..#.....#..",
			"...#...#...",
			"....#.#....",
			".....#.....",
			".....#.....",
			".....#.....",
			".....#.....",
			".....#.....",
		}, 3, 0},
		{"a ring is one closed stroke", []string{
			"...........",
			"...#####...",
			"..#.....#..",
			"..#.....#..",
			"..#.....#..",
			"...#####...",
			"...........",
		}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sk, d, w, h := skeletonOf(tt.rows...)
			o := DefaultOptions()
			o.SpurSlack = 0
			ss := Build(sk, d, w, h, o)
			closed := 0
			for _, s := range ss {
				if s.Closed {
					closed++
				}
			}
			if len(ss) != tt.strokes || closed != tt.closed {
				t.Errorf("%d strokes (%d closed), want %d (%d closed): %+v", len(ss), closed, tt.strokes, tt.closed, ss)
			}
		})
	}
}

func TestJoinGapsBridgesAlignedEnds(t *testing.T) {
	sk, d, w, h := skeletonOf("......................", ".########....########.", "......................")
	o := DefaultOptions()
	if n := len(Build(sk, d, w, h, o)); n != 2 {
		t.Fatalf("without joinGaps: %d strokes, want 2", n)
	}
	o.JoinGaps = 5
	if n := len(Build(sk, d, w, h, o)); n != 1 {
		t.Errorf("with joinGaps 5: %d strokes, want 1", n)
	}
	o.JoinGaps = 3
	if n := len(Build(sk, d, w, h, o)); n != 2 {
		t.Errorf("with joinGaps 3 across a 5 px gap: %d strokes, want 2", n)
	}
}
