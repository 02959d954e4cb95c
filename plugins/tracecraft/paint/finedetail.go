package paint

import "github.com/tracecraft/tracecraft/plugins/tracecraft/segment"

// AutoGapFillerWidth is the gap filler width of gapFiller "auto" when gapFillerWidth is
// not given: wide enough that a shape fully covers the pixels of its edges below the
// shape painted over it, which leaves no seam at all. Edges are moved to make up for the
// stroke (see Plan.EdgeShifts), so the width does not show.
const AutoGapFillerWidth = 1.0

// fineDetailShare is the share of the boundary length next to hairline shapes above which
// an image counts as fine detail, where gapFiller "auto" is off.
const fineDetailShare = 0.1

// FineDetail reports whether hairlines dominate the image: shapes whose mean thickness
// (twice the area over the perimeter) is below width, which a gap filler that wide would
// thicken, border more than fineDetailShare of all boundary length.
func FineDetail(seg *segment.Segmentation, width float64) bool {
	perimeter := seg.Planar.Perimeters()
	var total, thin int
	for r, reg := range seg.Regions.Regions {
		if reg.Transparent() || perimeter[r] == 0 {
			continue
		}
		total += perimeter[r]
		if 2*float64(reg.Pixels)/float64(perimeter[r]) < width {
			thin += perimeter[r]
		}
	}
	return total > 0 && float64(thin) > fineDetailShare*float64(total)
}
