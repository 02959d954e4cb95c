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
