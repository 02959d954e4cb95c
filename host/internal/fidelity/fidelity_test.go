package fidelity_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fidelity"
)

const w, h = 37, 23

func build(f func(x, y int) color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, f(x, y))
		}
	}
	return img
}

func base(x, y int) color.NRGBA {
	return color.NRGBA{uint8((x*7 + y*3) % 256), uint8((x * y) % 256), uint8(((x/4+y/4)%2)*200 + 20), 255}
}

func clampByte(v int) uint8 { return uint8(max(0, min(255, v))) }

// The expected values were computed by the bench's own code (../shared/bench/lib/metrics.mjs
// and img.mjs's flatten, under Node) on the same four images, built by the same formulas.
func TestScoresMatchTheBenchsOwnCode(t *testing.T) {
	a := build(base)
	seed := 1
	noise := func() int { seed = (seed*75 + 74) % 65537; return seed%41 - 20 }
	cases := []struct {
		name       string
		b          *image.NRGBA
		ssim, psnr float64
	}{
		{"identical images score 1 and the PSNR cap", a, 1, 100},
		{"an image shifted by one pixel", build(func(x, y int) color.NRGBA { return base(max(0, x-1), y) }), 0.7209070199467402, 11.736825258698499},
		{"an image with noise added", build(func(x, y int) color.NRGBA {
			p := base(x, y)
			return color.NRGBA{clampByte(int(p.R) + noise()), clampByte(int(p.G) + noise()), clampByte(int(p.B) + noise()), 255}
		}), 0.9605497418985207, 26.916669940771953},
		{"a translucent image is composited over white", build(func(x, y int) color.NRGBA {
			p := base(x, y)
			p.A = uint8((x*11 + y*5) % 256)
			return p
		}), 0.4207037731833727, 8.583381037792195},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := fidelity.Measure(a, c.b)
			if s.SSIM == nil || math.Abs(*s.SSIM-c.ssim) > 1e-9 || math.Abs(s.PSNR-c.psnr) > 1e-9 {
				t.Errorf("got %s, want ssim %v psnr %v", show(s), c.ssim, c.psnr)
			}
		})
	}
}

func show(s fidelity.Score) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestIdenticalImagesGiveFiniteJSON(t *testing.T) {
	a := build(base)
	got := show(fidelity.Measure(a, a))
	if want := `{"ssim":1,"psnr":100}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestAnImageSmallerThanTheWindowHasNoSSIM(t *testing.T) {
	for _, size := range []image.Point{{10, 40}, {40, 10}, {1, 1}} {
		a := image.NewNRGBA(image.Rect(0, 0, size.X, size.Y))
		b := image.NewNRGBA(image.Rect(0, 0, size.X, size.Y))
		b.Pix[3] = 255 // one black pixel
		s := fidelity.Measure(a, b)
		wantPSNR := 10 * math.Log10(255*255/(3*255*255/float64(3*size.X*size.Y)))
		if s.SSIM != nil || math.Abs(s.PSNR-wantPSNR) > 1e-9 {
			t.Errorf("%v: got %s, want no ssim and psnr %v", size, show(s), wantPSNR)
		}
	}
}

// bruteSSIM computes the mean SSIM the textbook way: for every 11 x 11 window inside the
// image, the Gaussian-weighted means, variances and covariance summed directly.
func bruteSSIM(a, b []float64, w, h int) float64 {
	var g [11]float64
	s := 0.0
	for i := range g {
		g[i] = math.Exp(-float64((i-5)*(i-5)) / 4.5)
		s += g[i]
	}
	c1, c2 := math.Pow(0.01*255, 2), math.Pow(0.03*255, 2)
	total, n := 0.0, 0
	for y := 0; y+11 <= h; y++ {
		for x := 0; x+11 <= w; x++ {
			var ma, mb float64
			for j := 0; j < 11; j++ {
				for i := 0; i < 11; i++ {
					wt := g[i] * g[j] / (s * s)
					ma += wt * a[(y+j)*w+x+i]
					mb += wt * b[(y+j)*w+x+i]
				}
			}
			var va, vb, cab float64
			for j := 0; j < 11; j++ {
				for i := 0; i < 11; i++ {
					wt := g[i] * g[j] / (s * s)
					da, db := a[(y+j)*w+x+i]-ma, b[(y+j)*w+x+i]-mb
					va += wt * da * da
					vb += wt * db * db
					cab += wt * da * db
				}
			}
			total += (2*ma*mb + c1) * (2*cab + c2) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			n++
		}
	}
	return total / float64(n)
}

func TestSSIMAgreesWithADirectSumOverEveryWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []image.Point{{11, 11}, {30, 17}, {64, 40}} {
		a := image.NewNRGBA(image.Rect(0, 0, size.X, size.Y))
		b := image.NewNRGBA(image.Rect(0, 0, size.X, size.Y))
		la, lb := make([]float64, size.X*size.Y), make([]float64, size.X*size.Y)
		for i := range la {
			v := uint8(r.IntN(256))
			u := clampByte(int(v) + r.IntN(61) - 30)
			copy(a.Pix[i*4:], []uint8{v, v, v, 255})
			copy(b.Pix[i*4:], []uint8{u, u, u, 255})
			// Gray: luma is the value itself, up to float32 rounding.
			la[i] = float64(float32(float64(v) * (0.299 + 0.587 + 0.114)))
			lb[i] = float64(float32(float64(u) * (0.299 + 0.587 + 0.114)))
		}
		got := fidelity.Measure(a, b)
		want := bruteSSIM(la, lb, size.X, size.Y)
		if got.SSIM == nil || math.Abs(*got.SSIM-want) > 1e-9 {
			t.Errorf("%v: got %s, want ssim %v", size, show(got), want)
		}
	}
}

func TestATraceIsScoredByItsRender(t *testing.T) {
	// A pixel-aligned drawing renders to exactly its pixels: a black square on white.
	ref := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	for y := 0; y < 30; y++ {
		for x := 0; x < 40; x++ {
			c := color.NRGBA{255, 255, 255, 255}
			if x >= 10 && x < 20 && y >= 5 && y < 25 {
				c = color.NRGBA{0, 0, 0, 255}
			}
			ref.SetNRGBA(x, y, c)
		}
	}
	square := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 30"><path d="M10 5h10v20h-10z"/></svg>`
	moved := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 30"><path d="M11 5h10v20h-10z"/></svg>`
	for _, c := range []struct {
		name, svg string
		want      func(fidelity.Score) bool
	}{
		{"the same drawing scores 1", square, func(s fidelity.Score) bool { return s.SSIM != nil && *s.SSIM == 1 && s.PSNR == 100 }},
		{"a drawing one pixel off scores below 1", moved, func(s fidelity.Score) bool {
			// 40 of 1200 pixels differ fully: MSE = 40/1200 x 255².
			return s.SSIM != nil && *s.SSIM < 0.95 && math.Abs(s.PSNR-10*math.Log10(1200.0/40)) < 1e-9
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := fidelity.ScoreSVG(context.Background(), ref, []byte(c.svg))
			if err != nil || !c.want(s) {
				t.Errorf("got %s, %v", show(s), err)
			}
		})
	}
}

// Painting in bands samples the same points as painting the whole image at once.
func TestBandsScoreLikeOneRender(t *testing.T) {
	const bw, bh = 300, 200
	ref := image.NewNRGBA(image.Rect(0, 0, bw, bh))
	for y := 0; y < bh; y++ {
		for x := 0; x < bw; x++ {
			ref.SetNRGBA(x, y, base(x/8, y/8))
		}
	}
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 200"><path fill="#c33" d="M33 22C200 0 300 90 340 200L50 210z"/>` +
		`<circle cx="180" cy="110" r="64" fill="none" stroke="#136" stroke-width="25"/><path d="M0 0h150v100h-150z" fill="#3c3" fill-opacity=".5"/></svg>`)
	whole, err := fidelity.ScoreSVG(context.Background(), ref, svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range []int{1, 16, 50, 199} {
		t.Run(fmt.Sprintf("bands of %d rows", rows), func(t *testing.T) {
			defer fidelity.SetBandPixels(rows * bw)()
			banded, err := fidelity.ScoreSVG(context.Background(), ref, svg)
			if err != nil || *banded.SSIM != *whole.SSIM || banded.PSNR != whole.PSNR {
				t.Errorf("got %s, want %s (%v)", show(banded), show(whole), err)
			}
		})
	}
}
