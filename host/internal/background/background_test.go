package background_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/background"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// ringLogo draws a w x h logo on bg: a dark ring whose inside is white (enclosed, so not
// background) and a red bar; it returns the image JPEG-compressed at quality q, decoded.
func ringLogo(t *testing.T, w, h int, bg color.NRGBA, q int) *image.NRGBA {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, image.NewUniform(bg), image.Point{}, draw.Src)
	cx, cy, r := w/3, h/2, h/3
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d2 := (x-cx)*(x-cx) + (y-cy)*(y-cy)
			switch {
			case d2 <= (r-8)*(r-8):
				img.SetNRGBA(x, y, color.NRGBA{255, 255, 255, 255})
			case d2 <= r*r:
				img.SetNRGBA(x, y, color.NRGBA{20, 40, 120, 255})
			}
		}
	}
	draw.Draw(img, image.Rect(2*w/3, h/4, 2*w/3+w/8, 3*h/4), image.NewUniform(color.NRGBA{200, 30, 30, 255}), image.Point{}, draw.Src)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	out, _, err := raster.Decode(buf.Bytes(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRemoveClearsTheBorderColourButNotEnclosedPartsOfTheSameColour(t *testing.T) {
	for _, tt := range []struct {
		name string
		bg   color.NRGBA
	}{
		{"white", color.NRGBA{255, 255, 255, 255}},
		{"off-white", color.NRGBA{245, 242, 232, 255}},
		{"light gray", color.NRGBA{211, 211, 211, 255}},
	} {
		for _, q := range []int{60, 90} {
			t.Run(fmt.Sprintf("%s at JPEG quality %d", tt.name, q), func(t *testing.T) {
				const w, h = 180, 120
				img := ringLogo(t, w, h, tt.bg, q)
				removed := background.Remove(img)
				if removed < w*h/2 {
					t.Errorf("quality %d: %d pixels removed, want most of the %d background", q, removed, w*h)
				}
				// Every border pixel and the space between the ring and the bar are gone.
				for _, p := range []image.Point{{0, 0}, {w - 1, h - 1}, {w / 2, 0}, {0, h / 2}, {w - 1, h / 2}, {w/3 + h/3 + 6, h / 2}} {
					if a := img.NRGBAAt(p.X, p.Y).A; a != 0 {
						t.Errorf("quality %d: background pixel %v has alpha %d, want 0", q, p, a)
					}
				}
				// The ring's white inside, the ring and the bar stay opaque.
				for _, p := range []image.Point{{w / 3, h / 2}, {w/3 + h/3 - 4, h / 2}, {2*w/3 + w/16, h / 2}} {
					if c := img.NRGBAAt(p.X, p.Y); c.A != 255 {
						t.Errorf("quality %d: logo pixel %v is %v, want it opaque", q, p, c)
					}
				}
			})
		}
	}
}

func TestRemoveLeavesImagesWithoutAUniformBorder(t *testing.T) {
	const w, h = 40, 30
	noisy := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range noisy.Pix {
		noisy.Pix[i] = byte(i * 97 % 251)
		if i%4 == 3 {
			noisy.Pix[i] = 255
		}
	}
	transparent := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(transparent, image.Rect(10, 10, 30, 20), image.NewUniform(color.NRGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
	for _, tt := range []struct {
		name string
		img  *image.NRGBA
	}{
		{"a border of many colours", noisy},
		{"a border that is transparent already", transparent},
		{"an empty image", image.NewNRGBA(image.Rect(0, 0, 0, 0))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := bytes.Clone(tt.img.Pix)
			if n := background.Remove(tt.img); n != 0 || !bytes.Equal(before, tt.img.Pix) {
				t.Errorf("removed %d pixels, want the image unchanged", n)
			}
		})
	}
}
