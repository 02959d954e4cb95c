package fill

import (
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
)

// shape returns a 60 x 40 mask: a 2 px line along y = 5 and a 20 x 20 block.
func shape() ([]bool, int, int) {
	w, h := 60, 40
	in := make([]bool, w*h)
	for x := 5; x < 55; x++ {
		in[5*w+x], in[6*w+x] = true, true
	}
	for y := 15; y < 35; y++ {
		for x := 20; x < 40; x++ {
			in[y*w+x] = true
		}
	}
	return in, w, h
}

func TestBlobsKeepTheBlockAndNotTheLine(t *testing.T) {
	in, w, h := shape()
	b := Blobs(in, distance.Transform(in, w, h), w, h, 6)
	if b == nil {
		t.Fatal("no blobs")
	}
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	// The opening rounds the block's corners off: up to (4 - pi) 36 pixels go.
	if b[5*w+30] || !b[25*w+30] || !b[15*w+30] || b[15*w+20] || n < 360 || n > 395 {
		t.Errorf("line %v, block centre %v, top edge %v, corner %v, %d blob pixels; want false, true, true, false and 360 to 395", b[5*w+30], b[25*w+30], b[15*w+30], b[15*w+20], n)
	}
	if Blobs(in, distance.Transform(in, w, h), w, h, 12) != nil {
		t.Error("a disc of radius 12 fits nowhere, yet there are blobs")
	}
}

func TestOutlinesAndHatchOfABlock(t *testing.T) {
	w, h := 10, 8
	b := make([]bool, w*h)
	for y := 2; y < 6; y++ {
		for x := 3; x < 8; x++ {
			b[y*w+x] = true
		}
	}
	polys := Outlines(b, w, h)
	if len(polys) != 1 || len(polys[0]) != 18 {
		t.Fatalf("%d outlines (%v), want one of 18 crack midpoints", len(polys), polys)
	}
	lines := Hatch(b, w, h, 2)
	// Rows 1, 3, 5, 7 at spacing 2: rows 3 and 5 cross the block.
	// The run spans x 3 to 8: a 2 px pen from 4 to 7 covers it.
	if len(lines) != 2 || lines[0][0].Y != 3.5 || lines[1][0].Y != 5.5 || lines[0][0].X != 4 || lines[0][1].X != 7 {
		t.Errorf("hatch %v, want two lines at y 3.5 and 5.5 from x 4 to 7", lines)
	}
}

func TestBlobsAreTheUnionOfTheDiscsThatFit(t *testing.T) {
	tests := []struct {
		name   string
		w, h   int
		blocks [][4]int // x0, y0, x1, y1 (exclusive)
		r      float64
	}{
		{"a block in the middle", 50, 40, [][4]int{{10, 10, 30, 28}}, 5},
		{"a block against the border", 40, 30, [][4]int{{0, 0, 18, 30}}, 6.5},
		{"two blocks apart, a line between", 80, 30, [][4]int{{2, 2, 16, 16}, {60, 10, 78, 28}, {16, 8, 60, 10}}, 4},
		{"a block the radius does not fit", 30, 30, [][4]int{{5, 5, 12, 12}}, 4},
	}
	for _, tt := range tests {
		in := make([]bool, tt.w*tt.h)
		for _, b := range tt.blocks {
			for y := b[1]; y < b[3]; y++ {
				for x := b[0]; x < b[2]; x++ {
					in[y*tt.w+x] = true
				}
			}
		}
		d := distance.Transform(in, tt.w, tt.h)
		got := Blobs(in, d, tt.w, tt.h, tt.r)
		r2 := tt.r * tt.r
		var core []int
		for i, v := range d {
			if float64(v) >= r2 {
				core = append(core, i)
			}
		}
		if (got == nil) != (len(core) == 0) {
			t.Fatalf("%s: blobs nil %v with %d core pixels", tt.name, got == nil, len(core))
		}
		for i := range in {
			want := false
			for _, c := range core {
				dx, dy := float64(i%tt.w-c%tt.w), float64(i/tt.w-c/tt.w)
				if in[i] && dx*dx+dy*dy <= r2 {
					want = true
					break
				}
			}
			if got != nil && got[i] != want {
				t.Fatalf("%s: pixel (%d,%d) blob %v, want %v", tt.name, i%tt.w, i/tt.w, got[i], want)
			}
		}
	}
}
