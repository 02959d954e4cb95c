package trace

import (
	"context"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"
)

// disc paints an anti-aliased round-capped line from (x0, y0) to (x1, y1) of width wd
// in black on img, by supersampling each pixel 4 x 4.
func line(img *image.NRGBA, x0, y0, x1, y1, wd float64) {
	b := img.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			cov := 0
			for sy := 0; sy < 4; sy++ {
				for sx := 0; sx < 4; sx++ {
					px, py := float64(x)+(float64(sx)+0.5)/4, float64(y)+(float64(sy)+0.5)/4
					dx, dy := x1-x0, y1-y0
					t := math.Max(0, math.Min(1, ((px-x0)*dx+(py-y0)*dy)/(dx*dx+dy*dy)))
					if math.Hypot(px-x0-t*dx, py-y0-t*dy) <= wd/2 {
						cov++
					}
				}
			}
			if cov > 0 {
				c := img.NRGBAAt(x, y)
				v := uint8(int(c.R) * (16 - cov) / 16)
				img.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
			}
		}
	}
}

func white(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	return img
}

func TestALineGivesOneStrokeOfItsWidth(t *testing.T) {
	for _, wd := range []float64{1.5, 3, 6, 11} {
		img := white(80, 60)
		line(img, 10, 15, 70, 45, wd)
		res, err := Trace(context.Background(), img, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if res.Strokes != 1 {
			t.Errorf("width %v: %d strokes, want 1:\n%s", wd, res.Strokes, res.SVG)
			continue
		}
		got := res.Groups[0].Strokes[0].Width
		if math.Abs(got-wd) > 0.5 {
			t.Errorf("width %v: measured %v", wd, got)
		}
		if !strings.Contains(string(res.SVG), `fill="none"`) {
			t.Errorf("no fill=none:\n%s", res.SVG)
		}
	}
}

func TestACrossGivesTwoStrokes(t *testing.T) {
	img := white(80, 80)
	line(img, 10, 40, 70, 40, 4)
	line(img, 40, 10, 40, 70, 4)
	res, err := Trace(context.Background(), img, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Strokes != 2 {
		t.Errorf("%d strokes, want 2:\n%s", res.Strokes, res.SVG)
	}
}
