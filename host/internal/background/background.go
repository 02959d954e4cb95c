// Package background finds the uniform background an image is drawn on and makes it
// transparent, for the background: remove setting. The host does it before any engine
// sees the image, so it works with every engine.
package background

import "image"

// Tolerance is how far a pixel's colour may be from the background colour and
// still count as background in Remove: a Euclidean distance between 8-bit sRGB
// triples. 40 takes in the noise JPEG compression leaves in a flat area and the ringing
// beside sharp edges (up to about 23 per channel), while an anti-aliased edge pixel that
// is a fifth of a dark shape's colour, or a light gray such as #d3d3d3 next to white
// (distance 76), stays.
const Tolerance = 40

// MinShare is the share of the image border's pixels that must have the
// background colour (within Tolerance) for Remove to find one: below
// it the border is not of one uniform colour and nothing is removed.
const MinShare = 0.25

// maxCandidates bounds the border pixels tried as the background colour.
const maxCandidates = 256

// Remove makes the image's uniform background transparent, in place: the
// colour most of the border's opaque pixels share (within Tolerance of one of
// them) is the background, and every opaque pixel of that colour that is connected to
// the border through such pixels (4-neighbours) becomes fully transparent. Pixels of
// that colour that the background does not reach, such as the inside of a letter O,
// stay. It returns the number of pixels made transparent: 0 when the border is mostly
// transparent already, or has no colour shared by MinShare of it.
//
// The result depends only on the pixels, so the same image always loses the same ones.
func Remove(img *image.NRGBA) int {
	b := img.Rect
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return 0
	}
	border := borderPixels(w, h)
	var opaque []int // border offsets, in img.Pix, of opaque pixels
	for _, p := range border {
		off := img.PixOffset(b.Min.X+p.X, b.Min.Y+p.Y)
		if img.Pix[off+3] >= 128 {
			opaque = append(opaque, off)
		}
	}
	if 2*len(opaque) < len(border) {
		return 0
	}
	ref, matches := backgroundColour(img.Pix, opaque)
	if float64(matches) < MinShare*float64(len(border)) {
		return 0
	}
	isBackground := func(off int) bool {
		px := img.Pix[off : off+4 : off+4]
		if px[3] < 128 {
			return false
		}
		dr, dg, db := int(px[0])-ref[0], int(px[1])-ref[1], int(px[2])-ref[2]
		return dr*dr+dg*dg+db*db <= Tolerance*Tolerance
	}
	seen := make([]bool, w*h)
	var stack []image.Point
	push := func(x, y int) {
		if x < 0 || y < 0 || x >= w || y >= h || seen[y*w+x] {
			return
		}
		seen[y*w+x] = true
		if isBackground(img.PixOffset(b.Min.X+x, b.Min.Y+y)) {
			stack = append(stack, image.Point{x, y})
		}
	}
	for _, p := range border {
		push(p.X, p.Y)
	}
	removed := 0
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		off := img.PixOffset(b.Min.X+p.X, b.Min.Y+p.Y)
		copy(img.Pix[off:off+4], []byte{0, 0, 0, 0})
		removed++
		push(p.X-1, p.Y)
		push(p.X+1, p.Y)
		push(p.X, p.Y-1)
		push(p.X, p.Y+1)
	}
	return removed
}

// borderPixels lists the positions of a w x h image's border pixels once each,
// clockwise from the top left.
func borderPixels(w, h int) []image.Point {
	var ps []image.Point
	for x := 0; x < w; x++ {
		ps = append(ps, image.Point{x, 0})
	}
	for y := 1; y < h; y++ {
		ps = append(ps, image.Point{w - 1, y})
	}
	if h > 1 {
		for x := w - 2; x >= 0; x-- {
			ps = append(ps, image.Point{x, h - 1})
		}
	}
	if w > 1 {
		for y := h - 2; y > 0; y-- {
			ps = append(ps, image.Point{0, y})
		}
	}
	return ps
}

// backgroundColour picks, among up to maxCandidates of the opaque border
// pixels at offsets opaque (evenly spaced), the one the most border pixels lie within
// Tolerance of (the first on a tie), and returns the mean colour of those
// pixels and their number.
func backgroundColour(pix []byte, opaque []int) ([3]int, int) {
	near := func(a, b int) bool {
		dr, dg, db := int(pix[a])-int(pix[b]), int(pix[a+1])-int(pix[b+1]), int(pix[a+2])-int(pix[b+2])
		return dr*dr+dg*dg+db*db <= Tolerance*Tolerance
	}
	step := max(1, len(opaque)/maxCandidates)
	best, bestN := -1, 0
	for i := 0; i < len(opaque); i += step {
		n := 0
		for _, o := range opaque {
			if near(opaque[i], o) {
				n++
			}
		}
		if n > bestN {
			best, bestN = opaque[i], n
		}
	}
	if best < 0 {
		return [3]int{}, 0
	}
	var sum [3]int
	for _, o := range opaque {
		if near(best, o) {
			sum[0] += int(pix[o])
			sum[1] += int(pix[o+1])
			sum[2] += int(pix[o+2])
		}
	}
	return [3]int{(sum[0] + bestN/2) / bestN, (sum[1] + bestN/2) / bestN, (sum[2] + bestN/2) / bestN}, bestN
}
