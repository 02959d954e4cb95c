package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/vector"
)

// logoOn draws a logo on a w x h background bg and JPEG-compresses it: a dark blue ring
// whose inside is white (the logo's own white, enclosed by the ring), a red bar, and a
// green square holding a white square. Nothing touches the border.
func logoOn(t *testing.T, w, h int, bg color.NRGBA) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	fill := func(r image.Rectangle, c color.NRGBA) {
		draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
	}
	fill(img.Rect, bg)
	cx, cy, r := w/4, h/2, h/3
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d2 := (x-cx)*(x-cx) + (y-cy)*(y-cy)
			switch {
			case d2 <= (r-10)*(r-10):
				img.SetNRGBA(x, y, color.NRGBA{255, 255, 255, 255})
			case d2 <= r*r:
				img.SetNRGBA(x, y, color.NRGBA{20, 40, 120, 255})
			}
		}
	}
	fill(image.Rect(w/2, h/4, w/2+w/12, 3*h/4), color.NRGBA{200, 30, 30, 255})
	fill(image.Rect(2*w/3, h/4, 2*w/3+h/2, 3*h/4), color.NRGBA{30, 150, 60, 255})
	fill(image.Rect(2*w/3+h/8, h/4+h/8, 2*w/3+h/2-h/8, 3*h/4-h/8), color.NRGBA{255, 255, 255, 255})
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBackgroundRemoveLeavesNoShapeOverTheBorder: logos pasted on white, off-white and
// a light gray, JPEG-compressed, traced by every bundled engine with background remove:
// the rendered SVG is transparent all along the border, and the logo's enclosed white
// stays painted white (potrace paints one colour, so only the border is checked there).
// Without the setting, the colour engines cover the border: the check can fail.
func TestBackgroundRemoveLeavesNoShapeOverTheBorder(t *testing.T) {
	t.Parallel()
	engines := []string{"tracecraft", "tracecraft2", "potrace2", "vtracer", "potrace"}
	h := startHost(t, bundledPlugins(t, engines...), "", "--workers", "2")
	const w, ht = 240, 120
	backgrounds := []struct {
		name string
		c    color.NRGBA
	}{
		{"white", color.NRGBA{255, 255, 255, 255}},
		{"off-white", color.NRGBA{246, 242, 230, 255}},
		{"light gray", color.NRGBA{210, 210, 210, 255}},
	}
	render := func(t *testing.T, r reply) *image.RGBA {
		t.Helper()
		if r.status != 200 {
			t.Fatalf("got %s, want 200", r)
		}
		doc, err := vector.Parse(r.body)
		if err != nil {
			t.Fatalf("the SVG does not parse: %v", err)
		}
		img, err := vector.Rasterize(context.Background(), doc, w, ht)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	// coveredBorder counts the border pixels the drawing paints (alpha above 1/8).
	coveredBorder := func(img *image.RGBA) int {
		n := 0
		for x := 0; x < w; x++ {
			for y := 0; y < ht; y++ {
				if (x == 0 || y == 0 || x == w-1 || y == ht-1) && img.RGBAAt(x, y).A > 32 {
					n++
				}
			}
		}
		return n
	}
	for _, bg := range backgrounds {
		jpg := logoOn(t, w, ht, bg.c)
		for _, e := range engines {
			t.Run(fmt.Sprintf("%s on %s", e, bg.name), func(t *testing.T) {
				img := render(t, h.vectorize(jpg, fmt.Sprintf(`{"engine":%q,"background":"remove"}`, e), "Accept", "image/svg+xml"))
				if n := coveredBorder(img); n > 0 {
					t.Errorf("%d border pixels are painted, want none", n)
				}
				if e == "potrace" {
					return
				}
				for _, p := range []image.Point{{w / 4, ht / 2}, {2*w/3 + ht/4, ht / 2}} {
					if c := img.RGBAAt(p.X, p.Y); c.A < 250 || c.R < 230 || c.G < 230 || c.B < 230 {
						t.Errorf("the logo's enclosed white at %v renders %v, want opaque white", p, c)
					}
				}
				if e == "potrace2" || e == "tracecraft2" {
					return
				}
				// The control: kept, the background is a shape over the border.
				kept := render(t, h.vectorize(jpg, fmt.Sprintf(`{"engine":%q}`, e), "Accept", "image/svg+xml"))
				if n := coveredBorder(kept); n < w {
					t.Errorf("with the background kept only %d border pixels are painted; the test cannot tell", n)
				}
			})
		}
	}

	t.Run("a bad value is invalid_settings naming every problem", func(t *testing.T) {
		r := h.vectorize(jpg(t), `{"background":"transparent","output":{"format":"gif"}}`)
		if r.status != 400 || r.errorCode() != "invalid_settings" {
			t.Fatalf("got %s, want 400 invalid_settings", r)
		}
		if got := fmt.Sprint(r.details()); got != "[background output.format]" {
			t.Errorf("details name %s, want [background output.format]", got)
		}
	})
}

func jpg(t *testing.T) []byte { return logoOn(t, 60, 30, color.NRGBA{255, 255, 255, 255}) }
