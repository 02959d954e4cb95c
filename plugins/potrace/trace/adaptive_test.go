package trace

import (
	"fmt"
	"image"
	"math"
	"testing"
)

// unevenPage draws a w x h page of ink on paper lit unevenly: the light falls from full
// on one side to dim on the other (dim of full), ink reflects 30 % of the light, and a
// little noise is added. The ink is strokes of 2 to 4 pixels (lines, rings, rows of
// short bars like text) and one solid block wider than the default window. It returns
// the page and the ink mask.
func unevenPage(w, h int, dim float64, angle float64) (*image.NRGBA, []bool) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	ink := make([]bool, w*h)
	dx, dy := math.Cos(angle), math.Sin(angle)
	// The light's gradient runs along (dx, dy) from the page's first corner to its last.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range [][2]float64{{0, 0}, {float64(w), 0}, {0, float64(h)}, {float64(w), float64(h)}} {
		p := c[0]*dx + c[1]*dy
		lo, hi = math.Min(lo, p), math.Max(hi, p)
	}
	seed := uint32(7)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			in := false
			// horizontal and slanted lines, 2 and 3 px wide
			if y%40 >= 10 && y%40 < 12 || (x+y/2)%90 < 3 {
				in = true
			}
			// rows of bars like words: 3 px wide, 12 px tall, 6 px apart
			if y%40 >= 20 && y%40 < 32 && x%9 < 3 && (x/60)%2 == 0 {
				in = true
			}
			// a ring of radius 30, 4 px wide
			if r := math.Hypot(float64(x-w/3), float64(y-h/2)); r >= 28 && r < 32 {
				in = true
			}
			// a solid block of 40 x 30
			if x >= w-70 && x < w-30 && y >= 20 && y < 50 {
				in = true
			}
			ink[y*w+x] = in
			// light: 1 at the lit side, dim at the other, along (dx, dy)
			t := (float64(x)*dx + float64(y)*dy - lo) / (hi - lo)
			light := 1 - (1-dim)*t
			v := 245 * light
			if in {
				v *= 0.3
			}
			seed = seed*1664525 + 1013904223
			v += float64(seed>>24)/255*10 - 5
			c := uint8(math.Max(0, math.Min(255, math.Round(v))))
			i := y*img.Stride + 4*x
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c, c, c, 255
		}
	}
	return img, ink
}

// inkErrors counts the ink pixels a bitmap misses and the paper pixels it makes black, as
// shares of each.
func inkErrors(bm *Bitmap, ink []bool) (missed, spurious float64) {
	var nInk, nPaper, m, s int
	for y := 0; y < bm.Height; y++ {
		for x := 0; x < bm.Width; x++ {
			b := bm.At(x, y)
			if ink[y*bm.Width+x] {
				nInk++
				if !b {
					m++
				}
			} else {
				nPaper++
				if b {
					s++
				}
			}
		}
	}
	return float64(m) / float64(nInk), float64(s) / float64(nPaper)
}

func TestAdaptiveThresholdKeepsInkUnderUnevenLighting(t *testing.T) {
	for _, c := range []struct {
		dim, angle float64
	}{
		{0.35, 0}, {0.35, math.Pi / 2}, {0.3, math.Pi / 4}, {0.5, math.Pi}, {0.25, 3 * math.Pi / 4}, {1, 0},
	} {
		t.Run(fmt.Sprintf("light falling to %.0f%% at %.0f degrees", c.dim*100, c.angle*180/math.Pi), func(t *testing.T) {
			img, ink := unevenPage(480, 320, c.dim, c.angle)
			missed, spurious := inkErrors(AdaptiveThreshold(img, 15, 0.2), ink)
			if missed > 0.03 || spurious > 0.01 {
				t.Errorf("adaptive: %.1f%% of the ink missed, %.1f%% of the paper black; want at most 3%% and 1%%", missed*100, spurious*100)
			}
			gMissed, gSpurious := inkErrors(Threshold(img, 128), ink)
			t.Logf("adaptive: missed %.2f%%, spurious %.2f%%; global 128: missed %.2f%%, spurious %.2f%%", missed*100, spurious*100, gMissed*100, gSpurious*100)
			if c.dim < 0.5 && gSpurious < 0.1 {
				t.Errorf("the global threshold made only %.1f%% of the paper black: the page is not uneven enough to test", gSpurious*100)
			}
		})
	}
}

func TestAdaptiveThresholdIsTheSameOnEveryRun(t *testing.T) {
	img, _ := unevenPage(200, 150, 0.3, 1)
	a, b := AdaptiveThreshold(img, 15, 0.2), AdaptiveThreshold(img, 15, 0.2)
	for y := 0; y < a.Height; y++ {
		for x := 0; x < a.Width; x++ {
			if a.At(x, y) != b.At(x, y) {
				t.Fatalf("pixel %d,%d differs between two runs", x, y)
			}
		}
	}
}

func TestAdaptiveThresholdOnTinyImages(t *testing.T) {
	for _, size := range []image.Point{{1, 1}, {1, 9}, {9, 1}, {3, 3}} {
		img := image.NewNRGBA(image.Rect(0, 0, size.X, size.Y))
		for i := 3; i < len(img.Pix); i += 4 {
			img.Pix[i] = 255 // opaque black
		}
		bm := AdaptiveThreshold(img, 15, 0.2)
		if bm.Count() != size.X*size.Y {
			t.Errorf("%v: %d black pixels of an all-black image, want %d", size, bm.Count(), size.X*size.Y)
		}
	}
}

func same(a, b *Bitmap) bool {
	for y := 0; y < a.Height; y++ {
		ra, rb := a.Row(y), b.Row(y)
		for i := range ra {
			if ra[i] != rb[i] {
				return false
			}
		}
	}
	return true
}

func TestAutoThresholdGoesAdaptiveOnlyForUnevenLight(t *testing.T) {
	silhouette := image.NewNRGBA(image.Rect(0, 0, 480, 320))
	for y := 0; y < 320; y++ {
		for x := 0; x < 480; x++ {
			v := uint8(255)
			if math.Hypot(float64(x-240), float64(y-160)) < 150 {
				v = 10 // far wider than the adaptive threshold's reach
			}
			i := y*silhouette.Stride + 4*x
			silhouette.Pix[i], silhouette.Pix[i+1], silhouette.Pix[i+2], silhouette.Pix[i+3] = v, v, v, 255
		}
	}
	uneven, _ := unevenPage(480, 320, 0.3, math.Pi/4)
	even, _ := unevenPage(480, 320, 1, 0)
	for _, c := range []struct {
		name         string
		img          *image.NRGBA
		wantAdaptive bool
	}{
		{"a page in uneven light is thresholded locally", uneven, true},
		{"an evenly lit page keeps the global threshold", even, false},
		{"a silhouette wider than the window keeps the global threshold", silhouette, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := AutoThreshold(c.img, 128, 15, 0.2)
			want := Threshold(c.img, 128)
			if c.wantAdaptive {
				want = AdaptiveThreshold(c.img, 15, 0.2)
			}
			if !same(got, want) {
				t.Errorf("auto chose the other bitmap; adaptive wanted: %v", c.wantAdaptive)
			}
		})
	}
}
