package trace

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// bitmapOf parses rows of '#' (black) and '.' (white), top row first.
func bitmapOf(rows ...string) *Bitmap {
	bm := NewBitmap(len(rows[0]), len(rows))
	for y, row := range rows {
		for x, c := range row {
			bm.Set(x, y, c == '#')
		}
	}
	return bm
}

// square returns a w x h bitmap with a black s x s square whose top left pixel is
// (x0, y0).
func square(w, h, x0, y0, s int) *Bitmap {
	bm := NewBitmap(w, h)
	for y := y0; y < y0+s; y++ {
		for x := x0; x < x0+s; x++ {
			bm.Set(x, y, true)
		}
	}
	return bm
}

func mustDecompose(t *testing.T, bm *Bitmap, policy TurnPolicy, turd int) []rawPath {
	t.Helper()
	paths, err := decompose(context.Background(), bm, policy, turd)
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// summary describes paths as "+9 -1": sign and area of each, in the order found.
func summary(paths []rawPath) string {
	var parts []string
	for _, p := range paths {
		s := "-"
		if p.positive {
			s = "+"
		}
		parts = append(parts, fmt.Sprintf("%s%d", s, p.area))
	}
	return strings.Join(parts, " ")
}

func TestBitmapSetAndAtAgree(t *testing.T) {
	bm := NewBitmap(70, 3)
	for _, p := range [][2]int{{0, 0}, {63, 1}, {64, 1}, {69, 2}} {
		bm.Set(p[0], p[1], true)
	}
	if got := bm.Count(); got != 4 {
		t.Errorf("Count() = %d, want 4", got)
	}
	if !bm.At(64, 1) || bm.At(65, 1) || bm.At(-1, 0) || bm.At(70, 2) {
		t.Errorf("At disagrees with Set")
	}
	bm.Set(64, 1, false)
	if bm.At(64, 1) {
		t.Errorf("Set(false) left the pixel black")
	}
}

func TestDecomposeFollowsASquareCounterclockwiseInPotraceCoordinates(t *testing.T) {
	// A 3x3 square at (1,1) of a 5x5 image: in Potrace's y-up coordinates its top left
	// corner is (1,4); the path goes down the left side first.
	paths := mustDecompose(t, square(5, 5, 1, 1, 3), TurnMinority, 0)
	if len(paths) != 1 {
		t.Fatalf("got %d paths (%s), want 1", len(paths), summary(paths))
	}
	want := []point{{1, 4}, {1, 3}, {1, 2}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {4, 2}, {4, 3}, {4, 4}, {3, 4}, {2, 4}}
	if !slices.Equal(paths[0].pts, want) {
		t.Errorf("points %v, want %v", paths[0].pts, want)
	}
	if paths[0].area != 9 || !paths[0].positive {
		t.Errorf("area %d positive %v, want 9 true", paths[0].area, paths[0].positive)
	}
}

func TestDecomposeFindsPathsInReadingOrder(t *testing.T) {
	tests := []struct {
		name string
		bm   *Bitmap
		turd int
		want string
	}{
		{"empty bitmap", NewBitmap(4, 4), 0, ""},
		{"full bitmap", square(4, 3, 0, 0, 4), 0, "+12"},
		{"ring: outer path then its hole", bitmapOf(
			"#######",
			"#######",
			"##...##",
			"##...##",
			"##...##",
			"#######",
			"#######"), 0, "+49 -9"},
		{"island inside a hole comes after the hole", bitmapOf(
			"#######",
			"#.....#",
			"#.....#",
			"#..#..#",
			"#.....#",
			"#.....#",
			"#######"), 0, "+49 -25 +1"},
		{"one-pixel speckle kept with turdSize 0", bitmapOf(
			".....",
			"..#..",
			"....."), 0, "+1"},
		{"one-pixel speckle dropped with turdSize 1", bitmapOf(
			".....",
			"..#..",
			"....."), 1, ""},
		{"two-pixel speckle kept with turdSize 1", bitmapOf(
			".....",
			"..##.",
			"....."), 1, "+2"},
		{"two-pixel speckle dropped with turdSize 2", bitmapOf(
			".....",
			"..##.",
			"....."), 2, ""},
		{"small hole dropped with its area", bitmapOf(
			"#####",
			"##.##",
			"#####"), 1, "+15"},
		{"diagonal staircase joined under the minority policy", bitmapOf(
			"#...",
			".#..",
			"..#.",
			"...#"), 0, "+4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summary(mustDecompose(t, tt.bm, TurnMinority, tt.turd))
			if got != tt.want {
				t.Errorf("paths %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecomposeLeavesNoPixelUnvisited(t *testing.T) {
	// After all paths are inverted the working bitmap must be white: checked through
	// the areas, which add up with alternating signs to the black pixel count.
	bm := bitmapOf(
		"##..#.#",
		"#.##.#.",
		".#.###.",
		"##.#..#",
		"#.#.##.")
	for p := TurnMinority; p <= TurnRight; p++ {
		sum := 0
		for _, path := range mustDecompose(t, bm, p, 0) {
			if path.positive {
				sum += path.area
			} else {
				sum -= path.area
			}
		}
		if sum != bm.Count() {
			t.Errorf("%v: signed areas sum to %d, want the %d black pixels", p, sum, bm.Count())
		}
	}
}

func TestTurnPoliciesResolveAmbiguousCorners(t *testing.T) {
	// Two black pixels touching at a corner on white: black or white must connect.
	blackPair := bitmapOf(
		"......",
		"......",
		"..#...",
		"...#..",
		"......",
		"......")
	// Two white pixels touching at a corner inside black: the same choice, seen from
	// the hole.
	whitePair := bitmapOf(
		"######",
		"######",
		"##.###",
		"###.##",
		"######",
		"######")
	tests := []struct {
		policy     TurnPolicy
		black      string // paths of blackPair
		white      string // paths of whitePair
		blackJoins bool
	}{
		// Minority joins the rarer colour: black on the white page, white in the black.
		{TurnMinority, "+2", "+36 -2", true},
		{TurnMajority, "+1 +1", "+36 -1 -1", false},
		{TurnBlack, "+2", "+36 -1 -1", true},
		{TurnWhite, "+1 +1", "+36 -2", false},
		// Right turns join whatever the path encloses, black pixels or a hole's white.
		{TurnRight, "+2", "+36 -2", true},
		{TurnLeft, "+1 +1", "+36 -1 -1", false},
	}
	for _, tt := range tests {
		t.Run(tt.policy.String(), func(t *testing.T) {
			if got := summary(mustDecompose(t, blackPair, tt.policy, 0)); got != tt.black {
				t.Errorf("black pair: paths %q, want %q", got, tt.black)
			}
			if got := summary(mustDecompose(t, whitePair, tt.policy, 0)); got != tt.white {
				t.Errorf("white pair: paths %q, want %q", got, tt.white)
			}
		})
	}
}

func TestMajorityLooksAtRingsAroundTheCorner(t *testing.T) {
	// The corner (3,3) of an 8x8 bitmap: ring 2 is the 12-pixel border of the square
	// [1..4] x [1..4], ring 3 the 20-pixel border of [0..5] x [0..5] (in y-up pixel
	// coordinates).
	tests := []struct {
		name  string
		black [][2]int
		want  bool
	}{
		{"all white", nil, false},
		{"inner 2x2 does not count", [][2]int{{2, 2}, {3, 2}, {2, 3}, {3, 3}}, false},
		{"7 of 12 on ring 2", [][2]int{{1, 1}, {2, 1}, {3, 1}, {4, 1}, {1, 2}, {1, 3}, {1, 4}}, true},
		{"6 of 12 is a tie, ring 3 decides for white", [][2]int{{1, 1}, {2, 1}, {3, 1}, {4, 1}, {1, 2}, {1, 3}, {0, 0}}, false},
		{"6 of 12 is a tie, ring 3 decides for black", [][2]int{{1, 1}, {2, 1}, {3, 1}, {4, 1}, {1, 2}, {1, 3},
			{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bm := NewBitmap(8, 8)
			for _, p := range tt.black {
				bm.Set(p[0], p[1], true)
			}
			d := &decomposer{work: bm.words, w: 8, h: 8, stride: bm.stride}
			if got := d.majority(3, 3); got != tt.want {
				t.Errorf("majority = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNestBuildsTheTreeOfBoundaries(t *testing.T) {
	bm := bitmapOf(
		"#########.###",
		"#.......#.#.#",
		"#.#####.#.###",
		"#.#...#.#....",
		"#.#.#.#.#.##.",
		"#.#...#.#.##.",
		"#.#####.#....",
		"#.......#....",
		"#########....")
	paths := mustDecompose(t, bm, TurnMinority, 0)
	// Found in reading order: the big frame, the small frame at the top right, the big
	// frame's hole, the small frame's hole, the island ring in the big hole, the ring's
	// hole, the dot in the ring's hole, then the 2x2 block.
	if got, want := summary(paths), "+81 +9 -49 -1 +25 -9 +1 +4"; got != want {
		t.Fatalf("paths %q, want %q", got, want)
	}
	parent := nest(paths, bm.Height)
	if want := []int{-1, -1, 0, 1, 2, 4, 5, -1}; !slices.Equal(parent, want) {
		t.Errorf("parents %v, want %v", parent, want)
	}
}
