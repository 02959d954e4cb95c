package planar_test

import (
	"context"
	"image"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/testimg"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/planar"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
)

// TestSharedEdge checks that two rectangles sharing a side get exactly one edge between
// them, used by both regions' rings in opposite directions.
func TestSharedEdge(t *testing.T) {
	img := testimg.TwoRects(8, 6)
	seg, err := segment.Segment(context.Background(), img, segment.Options{MaxColors: 16})
	if err != nil {
		t.Fatal(err)
	}
	pm := seg.Planar
	if n := len(seg.Regions.Regions); n != 2 {
		t.Fatalf("%d regions, want 2", n)
	}
	var shared []int
	for i, e := range pm.Edges {
		if e.Left >= 0 && e.Right >= 0 {
			shared = append(shared, i)
		}
	}
	if len(shared) != 1 {
		t.Fatalf("%d edges between the regions, want 1", len(shared))
	}
	e := pm.Edges[shared[0]]
	if len(e.Steps) != 6 {
		t.Errorf("shared edge has %d steps, want 6 (the height)", len(e.Steps))
	}
	for _, p := range e.Points(nil) {
		if p.X != 4 {
			t.Errorf("shared edge passes %v, want x = 4", p)
		}
	}
	uses := map[planar.HalfEdge]int32{}
	for _, ring := range pm.Rings {
		for _, h := range ring.Half {
			if h.Edge() == shared[0] {
				uses[h] = ring.Region
			}
		}
	}
	if len(uses) != 2 || uses[planar.Half(shared[0], false)] == uses[planar.Half(shared[0], true)] {
		t.Errorf("shared edge used by %v, want once forward and once backward by different regions", uses)
	}
	for r := range seg.Regions.Regions {
		if n := len(pm.RegionRings[r]); n != 1 {
			t.Errorf("region %d has %d rings, want 1", r, n)
		}
	}
}

// TestRings checks rings, holes and parents on a ring shape and on nested rectangles.
func TestRings(t *testing.T) {
	tests := []struct {
		name string
		seg  func() *segment.Segmentation
		// rings and holes per region, in raster order of the regions
		rings, holes []int
		// parent of each region
		parents []int32
	}{
		{
			name:    "ring on white: the outside, the ring, the hole",
			seg:     func() *segment.Segmentation { return segmentOf(t, testimg.Ring(16, testimg.White)) },
			rings:   []int{2, 2, 1},
			holes:   []int{1, 1, 0},
			parents: []int32{planar.Outside, 0, 1},
		},
		{
			name:    "nested rectangles",
			seg:     func() *segment.Segmentation { return segmentOf(t, testimg.Nested(40, 32)) },
			rings:   []int{3, 2, 1, 2, 1},
			holes:   []int{2, 1, 0, 1, 0},
			parents: []int32{planar.Outside, 0, 0, 1, 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seg := tt.seg()
			pm := seg.Planar
			if len(pm.RegionRings) != len(tt.rings) {
				t.Fatalf("%d regions, want %d", len(pm.RegionRings), len(tt.rings))
			}
			for r, list := range pm.RegionRings {
				holes := 0
				for k, ri := range list {
					ring := pm.Rings[ri]
					if ring.Hole {
						holes++
					} else if k != 0 {
						t.Errorf("region %d: outer ring not first", r)
					}
					if ring.Region != int32(r) {
						t.Errorf("ring %d of region %d says region %d", ri, r, ring.Region)
					}
				}
				if len(list) != tt.rings[r] || holes != tt.holes[r] {
					t.Errorf("region %d: %d rings, %d holes; want %d, %d", r, len(list), holes, tt.rings[r], tt.holes[r])
				}
			}
			if got := pm.Parents(); !equal(got, tt.parents) {
				t.Errorf("parents %v, want %v", got, tt.parents)
			}
			// Every ring encloses its region's area: outer minus holes.
			for r, reg := range seg.Regions.Regions {
				var area int64
				for _, ri := range pm.RegionRings[r] {
					area -= pm.Rings[ri].Area2
				}
				if area != 2*int64(reg.Pixels) {
					t.Errorf("region %d: rings enclose %d/2 pixels, want %d", r, area, reg.Pixels)
				}
			}
		})
	}
}

func segmentOf(t *testing.T, img *image.NRGBA) *segment.Segmentation {
	t.Helper()
	seg, err := segment.Segment(context.Background(), img, segment.Options{MaxColors: 16})
	if err != nil {
		t.Fatal(err)
	}
	return seg
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
