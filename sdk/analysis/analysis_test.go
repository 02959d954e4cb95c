package analysis

import (
	"image"
	"math/rand"
	"testing"
)

func TestMeasureFlatAndNoise(t *testing.T) {
	flat := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	for i := 0; i < len(flat.Pix); i += 4 {
		flat.Pix[i], flat.Pix[i+1], flat.Pix[i+2], flat.Pix[i+3] = 200, 20, 20, 255
	}
	f := Measure(flat)
	if f[Colors] != 1 || f[Top1Share] != 1 || f[FlatShare] != 1 || f[EdgeShare] != 0 || f[TransparentShare] != 0 || f[Megapixels] != 0.06 {
		t.Errorf("flat image: %v", f)
	}
	noise := image.NewNRGBA(image.Rect(0, 0, 2000, 1000))
	rand.New(rand.NewSource(1)).Read(noise.Pix)
	for i := 3; i < len(noise.Pix); i += 4 {
		noise.Pix[i] = 255
	}
	f = Measure(noise)
	if f[Colors] < 4000 || f[Top16Share] > 0.05 || f[EdgeShare] < 0.6 || f[GrayShare] > 0.2 {
		t.Errorf("noise image: %v", f)
	}
}

func BenchmarkMeasure(b *testing.B) {
	for _, size := range []int{512, 2000} {
		img := image.NewNRGBA(image.Rect(0, 0, size, size))
		rand.New(rand.NewSource(1)).Read(img.Pix)
		b.Run(map[int]string{512: "0.26MP", 2000: "4MP"}[size], func(b *testing.B) {
			for b.Loop() {
				Measure(img)
			}
		})
	}
}

// TestTextureAndFineColours checks the two measures that tell drawn art from
// photographs where colour counts at 4 bits cannot: flat art has no texture and few
// colours at 6 bits; a smooth drawn gradient many 6-bit colours but no texture; a
// grainy photograph-like image both.
func TestTextureAndFineColours(t *testing.T) {
	const w, h = 240, 160
	paint := func(fn func(x, y int) (r, g, b uint8)) *image.NRGBA {
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				r, g, b := fn(x, y)
				i := y*img.Stride + 4*x
				img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = r, g, b, 255
			}
		}
		return img
	}
	rng := rand.New(rand.NewSource(2))
	for _, tt := range []struct {
		name                   string
		img                    *image.NRGBA
		minTexture, maxTexture float64
		minFine, maxFine       float64
	}{
		{"flat shapes", paint(func(x, y int) (uint8, uint8, uint8) {
			if (x-120)*(x-120)+(y-80)*(y-80) < 50*50 {
				return 200, 30, 30
			}
			return 20, 40, 200
		}), 0, 0.02, 0.99, 1},
		{"smooth drawn gradient", paint(func(x, y int) (uint8, uint8, uint8) {
			return uint8(x), uint8(y), uint8(255 - x)
		}), 0, 0.05, 0, 0.3},
		{"grainy photograph", paint(func(x, y int) (uint8, uint8, uint8) {
			n := func() uint8 { return uint8(rng.Intn(12)) }
			return uint8(x/2) + n(), uint8(y/2) + n(), 100 + n()
		}), 0.5, 1, 0, 0.3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := Measure(tt.img)
			if tex := f[TextureShare]; tex < tt.minTexture || tex > tt.maxTexture {
				t.Errorf("texture share %.3f, want %.2f..%.2f", tex, tt.minTexture, tt.maxTexture)
			}
			if fine := f[Top16FineShare]; fine < tt.minFine || fine > tt.maxFine {
				t.Errorf("top-16 share at 6 bits %.3f, want %.2f..%.2f", fine, tt.minFine, tt.maxFine)
			}
		})
	}
}
