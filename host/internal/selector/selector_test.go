package selector

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/imagecheck"

	"github.com/tracecraft/tracecraft/sdk/analysis"
)

func TestChoose(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    map[string]float64
		want string
	}{
		{"black ink on white", map[string]float64{analysis.GrayShare: 1, analysis.Top4Share: 0.98, analysis.EdgeShare: 0.05, analysis.GradientShare: 0.01}, Lineart},
		{"scanned page with shading", map[string]float64{analysis.GrayShare: 1, analysis.Top4Share: 0.5, analysis.EdgeShare: 0.15, analysis.GradientShare: 0.5}, Lineart},
		{"gray photograph", map[string]float64{analysis.GrayShare: 1, analysis.Top4Share: 0.6, analysis.EdgeShare: 0.03, analysis.GradientShare: 0.5}, Photo},
		{"line drawing on transparency", map[string]float64{analysis.GrayShare: 1, analysis.Top4Share: 0.96, analysis.EdgeShare: 0.05, analysis.TransparentShare: 0.5}, Lineart},
		{"black glyph icon on transparency", map[string]float64{analysis.GrayShare: 1, analysis.Top4Share: 1, analysis.EdgeShare: 0.017, analysis.TransparentShare: 0.63}, Logo},
		{"two-colour logo", map[string]float64{analysis.GrayShare: 0.2, analysis.Top4Share: 0.99, analysis.EdgeShare: 0.02, analysis.GradientShare: 0.01}, Logo},
		{"flat illustration", map[string]float64{analysis.Top4Share: 0.7, analysis.Top16Share: 0.95, analysis.GradientShare: 0.05}, Poster},
		{"colour photograph", map[string]float64{analysis.Top4Share: 0.15, analysis.Top16Share: 0.4, analysis.GradientShare: 0.6}, Photo},
		{"flat but shaded", map[string]float64{analysis.Top4Share: 0.5, analysis.Top16Share: 0.83, analysis.GradientShare: 0.22}, Photo},
		{"fully transparent: flat, nothing to shade", map[string]float64{analysis.TransparentShare: 1}, Poster},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Choose(tt.f); got != tt.want {
				t.Errorf("Choose = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestLikelyEngines(t *testing.T) {
	encode := func(img image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	noise := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	rand.New(rand.NewSource(1)).Read(noise.Pix)
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, noise, nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"flat RGBA PNG", encode(image.NewNRGBA(image.Rect(0, 0, 64, 64))), "tracecraft"},
		{"gray PNG", encode(image.NewGray(image.Rect(0, 0, 64, 64))), "potrace"},
		{"noisy PNG", encode(noise), "vtracer"},
		{"JPEG", jpg.Bytes(), "vtracer"},
		{"not an image", []byte("hello"), "tracecraft"},
	} {
		info, _ := imagecheck.Check(tt.data, imagecheck.Limits{})
		if got := LikelyEngines(tt.data, info); got[0] != tt.want {
			t.Errorf("%s: %v, want %s first", tt.name, got, tt.want)
		}
	}
}
