package raster_test

import (
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/raster"
)

// hidden hides an image's concrete type, so ToNRGBA takes its generic path.
type hidden struct{ image.Image }

// randomImages returns one image of each type ToNRGBA has a fast path for, filled with
// random samples (alpha included, so the premultiplied types see every alpha value), both
// at the origin and as a sub-image at an odd offset.
func randomImages(w, h int) map[string]image.Image {
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(b []byte) {
		for i := range b {
			b[i] = uint8(rng.Uint32())
		}
	}
	r := image.Rect(0, 0, w, h)
	out := map[string]image.Image{}
	add := func(name string, m image.Image, sub func(image.Rectangle) image.Image) {
		out[name] = m
		out[name+" sub-image"] = sub(image.Rect(3, 1, w-2, h-1))
	}

	nrgba := image.NewNRGBA(r)
	fill(nrgba.Pix)
	add("nrgba", nrgba, nrgba.SubImage)

	rgba := image.NewRGBA(r)
	fill(rgba.Pix)
	for i := 0; i < len(rgba.Pix); i += 4 { // keep it a valid premultiplied colour
		a := rgba.Pix[i+3]
		rgba.Pix[i], rgba.Pix[i+1], rgba.Pix[i+2] = min(rgba.Pix[i], a), min(rgba.Pix[i+1], a), min(rgba.Pix[i+2], a)
	}
	add("rgba", rgba, rgba.SubImage)
	opaque := image.NewRGBA(r)
	fill(opaque.Pix)
	for i := 3; i < len(opaque.Pix); i += 4 {
		opaque.Pix[i] = 255
	}
	add("rgba opaque", opaque, opaque.SubImage)

	for _, ratio := range []image.YCbCrSubsampleRatio{
		image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420,
		image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410,
	} {
		y := image.NewYCbCr(r, ratio)
		fill(y.Y)
		fill(y.Cb)
		fill(y.Cr)
		add("ycbcr "+ratio.String(), y, y.SubImage)
	}

	gray := image.NewGray(r)
	fill(gray.Pix)
	add("gray", gray, gray.SubImage)
	gray16 := image.NewGray16(r)
	fill(gray16.Pix)
	add("gray16", gray16, gray16.SubImage)

	pal := make(color.Palette, 200)
	for i := range pal {
		pal[i] = color.NRGBA{uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32())}
	}
	paletted := image.NewPaletted(r, pal)
	for i := range paletted.Pix {
		paletted.Pix[i] = uint8(rng.IntN(len(pal)))
	}
	add("paletted", paletted, paletted.SubImage)

	rgba64 := image.NewRGBA64(r)
	fill(rgba64.Pix)
	for i := 0; i < len(rgba64.Pix); i += 8 {
		a := uint16(rgba64.Pix[i+6])<<8 | uint16(rgba64.Pix[i+7])
		for c := 0; c < 6; c += 2 {
			if v := uint16(rgba64.Pix[i+c])<<8 | uint16(rgba64.Pix[i+c+1]); v > a {
				rgba64.Pix[i+c], rgba64.Pix[i+c+1] = uint8(a>>8), uint8(a)
			}
		}
	}
	add("rgba64", rgba64, rgba64.SubImage)

	cmyk := image.NewCMYK(r)
	fill(cmyk.Pix)
	add("cmyk", cmyk, cmyk.SubImage)

	alpha := image.NewAlpha(r) // no fast path: the generic one
	fill(alpha.Pix)
	add("alpha", alpha, alpha.SubImage)
	return out
}

// TestToNRGBAFastPathsMatchTheGenericPath compares every fast path with color.NRGBAModel
// applied pixel by pixel, to the bit.
func TestToNRGBAFastPathsMatchTheGenericPath(t *testing.T) {
	for name, m := range randomImages(37, 21) {
		t.Run(name, func(t *testing.T) {
			got := raster.ToNRGBA(m, 1)
			want := raster.ToNRGBA(hidden{m}, 1)
			if got.Rect != want.Rect || got.Rect.Min != (image.Point{}) {
				t.Fatalf("Rect = %v, want %v at the origin", got.Rect, want.Rect)
			}
			if d := firstDifference(got, want); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestToNRGBAKeepsSixteenBitAndNYCbCrAColoursExact covers the two types whose generic
// path loses precision by premultiplying: their fast paths are compared with the exact
// value instead.
func TestToNRGBAKeepsSixteenBitAndNYCbCrAColoursExact(t *testing.T) {
	r := image.Rect(0, 0, 19, 7)
	rng := rand.New(rand.NewPCG(3, 4))
	n64 := image.NewNRGBA64(r)
	for i := range n64.Pix {
		n64.Pix[i] = uint8(rng.Uint32())
	}
	got := raster.ToNRGBA(n64, 1)
	for y := range r.Dy() {
		for x := range r.Dx() {
			c := n64.NRGBA64At(x, y)
			want := color.NRGBA{uint8(c.R >> 8), uint8(c.G >> 8), uint8(c.B >> 8), uint8(c.A >> 8)}
			if g := got.NRGBAAt(x, y); g != want {
				t.Fatalf("nrgba64 pixel (%d,%d) = %v, want %v", x, y, g, want)
			}
		}
	}

	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio444} {
		a := image.NewNYCbCrA(r, ratio)
		for _, p := range [][]byte{a.Y, a.Cb, a.Cr, a.A} {
			for i := range p {
				p[i] = uint8(rng.Uint32())
			}
		}
		got := raster.ToNRGBA(a, 1)
		for y := range r.Dy() {
			for x := range r.Dx() {
				c := a.NYCbCrAAt(x, y)
				rr, gg, bb := color.YCbCrToRGB(c.Y, c.Cb, c.Cr)
				want := color.NRGBA{rr, gg, bb, c.A}
				if g := got.NRGBAAt(x, y); g != want {
					t.Fatalf("nycbcra %v pixel (%d,%d) = %v, want %v", ratio, x, y, g, want)
				}
			}
		}
	}
}

// TestToNRGBAOrientsLikeFlipsAndTransposes checks each orientation against a composition
// of the three primitive moves, on sizes that are not multiples of the transpose band.
func TestToNRGBAOrientsLikeFlipsAndTransposes(t *testing.T) {
	flipH := func(m *image.NRGBA) *image.NRGBA {
		out := image.NewNRGBA(m.Rect)
		for y := range m.Rect.Dy() {
			for x := range m.Rect.Dx() {
				out.SetNRGBA(m.Rect.Dx()-1-x, y, m.NRGBAAt(x, y))
			}
		}
		return out
	}
	flipV := func(m *image.NRGBA) *image.NRGBA {
		out := image.NewNRGBA(m.Rect)
		for y := range m.Rect.Dy() {
			for x := range m.Rect.Dx() {
				out.SetNRGBA(x, m.Rect.Dy()-1-y, m.NRGBAAt(x, y))
			}
		}
		return out
	}
	transpose := func(m *image.NRGBA) *image.NRGBA {
		out := image.NewNRGBA(image.Rect(0, 0, m.Rect.Dy(), m.Rect.Dx()))
		for y := range m.Rect.Dy() {
			for x := range m.Rect.Dx() {
				out.SetNRGBA(y, x, m.NRGBAAt(x, y))
			}
		}
		return out
	}
	reference := map[int]func(*image.NRGBA) *image.NRGBA{
		1: func(m *image.NRGBA) *image.NRGBA { return m },
		2: flipH,
		3: func(m *image.NRGBA) *image.NRGBA { return flipV(flipH(m)) },
		4: flipV,
		5: transpose,
		6: func(m *image.NRGBA) *image.NRGBA { return flipH(transpose(m)) },
		7: func(m *image.NRGBA) *image.NRGBA { return flipV(flipH(transpose(m))) },
		8: func(m *image.NRGBA) *image.NRGBA { return flipV(transpose(m)) },
	}
	for _, size := range []image.Point{{1, 1}, {37, 19}, {5, 40}, {16, 16}} {
		src := noise(size.X, size.Y)
		ycc := image.NewYCbCr(src.Rect, image.YCbCrSubsampleRatio420)
		for i := range ycc.Y {
			ycc.Y[i] = uint8(i * 7)
		}
		for o := 1; o <= 8; o++ {
			for name, m := range map[string]image.Image{"nrgba": src, "ycbcr": ycc} {
				t.Run(fmt.Sprintf("%s %dx%d orientation %d", name, size.X, size.Y, o), func(t *testing.T) {
					want := reference[o](raster.ToNRGBA(m, 1))
					got := raster.ToNRGBA(m, o)
					if d := firstDifference(got, want); d != "" {
						t.Error(d)
					}
				})
			}
		}
	}
}

// TestToNRGBATreatsUnknownOrientationsAsUpright checks out-of-range values change nothing.
func TestToNRGBATreatsUnknownOrientationsAsUpright(t *testing.T) {
	m := noise(5, 3)
	for _, o := range []int{-1, 0, 9, 255} {
		if d := firstDifference(raster.ToNRGBA(hidden{m}, o), m); d != "" {
			t.Errorf("orientation %d: %s", o, d)
		}
	}
}

// TestToNRGBAReadsPaletteIndicesPastThePaletteAsOpaqueBlack pins the choice for damaged
// indices, which image.Paletted.At would panic on.
func TestToNRGBAReadsPaletteIndicesPastThePaletteAsOpaqueBlack(t *testing.T) {
	m := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{red})
	m.Pix[1] = 9
	got := raster.ToNRGBA(m, 1)
	if got.NRGBAAt(0, 0) != red || got.NRGBAAt(1, 0) != (color.NRGBA{0, 0, 0, 255}) {
		t.Errorf("pixels = %v %v, want %v and opaque black", got.NRGBAAt(0, 0), got.NRGBAAt(1, 0), red)
	}
}

// firstDifference describes the first pixel where got and want differ, or returns "".
func firstDifference(got, want *image.NRGBA) string {
	if got.Rect.Size() != want.Rect.Size() {
		return fmt.Sprintf("size %v, want %v", got.Rect.Size(), want.Rect.Size())
	}
	for y := range want.Rect.Dy() {
		for x := range want.Rect.Dx() {
			g := got.NRGBAAt(got.Rect.Min.X+x, got.Rect.Min.Y+y)
			w := want.NRGBAAt(want.Rect.Min.X+x, want.Rect.Min.Y+y)
			if g != w {
				return fmt.Sprintf("pixel (%d,%d) = %v, want %v", x, y, g, w)
			}
		}
	}
	return ""
}
