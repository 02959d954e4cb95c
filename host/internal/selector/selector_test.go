package selector

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/settings"

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

func TestVariantSendsShadedGrayImagesUnderLineartToColour(t *testing.T) {
	for _, tt := range []struct {
		name   string
		preset string
		f      map[string]float64
		want   string
	}{
		{"ink on white paper", Lineart, map[string]float64{analysis.GrayShare: 1, analysis.GradientShare: 0.02}, ""},
		{"a page photographed in uneven light", Lineart, map[string]float64{analysis.GrayShare: 1, analysis.GradientShare: 0.5}, Shaded},
		{"a colour photograph under lineart stays black and white", Lineart, map[string]float64{analysis.GrayShare: 0.3, analysis.GradientShare: 0.6}, ""},
		{"other presets have no variant", Photo, map[string]float64{analysis.GrayShare: 1, analysis.GradientShare: 0.5}, ""},
	} {
		if got := Variant(tt.preset, tt.f); got != tt.want {
			t.Errorf("%s: Variant = %q, want %q", tt.name, got, tt.want)
		}
	}
	for _, p := range Presets() {
		for _, v := range p.Variants {
			if v.Name != Shaded || p.Name != Lineart {
				t.Errorf("preset %s has variant %s, which Variant never returns", p.Name, v.Name)
			}
		}
	}
}

func TestCandidatesStartWithChooseAndAddItsNeighbour(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    map[string]float64
		want []settings.Choice
	}{
		{"ink drawing", map[string]float64{analysis.GrayShare: 1, analysis.Top4Share: 0.98, analysis.GradientShare: 0.01},
			[]settings.Choice{{Category: Lineart}, {Category: Logo}}},
		{"photographed page", map[string]float64{analysis.GrayShare: 1, analysis.Top4Share: 0.9, analysis.GradientShare: 0.7},
			[]settings.Choice{{Category: Lineart, Variant: Shaded}, {Category: Logo}}},
		{"colour logo", map[string]float64{analysis.GrayShare: 0.2, analysis.Top4Share: 0.99, analysis.GradientShare: 0.01},
			[]settings.Choice{{Category: Logo}, {Category: Poster}, {Category: Photo}}},
		{"colour photograph", map[string]float64{analysis.Top4Share: 0.15, analysis.GradientShare: 0.6},
			[]settings.Choice{{Category: Photo}, {Category: Poster}}},
		{"gray photograph", map[string]float64{analysis.GrayShare: 1, analysis.Top4Share: 0.6, analysis.EdgeShare: 0.03, analysis.GradientShare: 0.5},
			[]settings.Choice{{Category: Photo}, {Category: Lineart, Variant: Shaded}, {Category: Poster}}},
	} {
		if got := Candidates(tt.f); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Candidates = %v, want %v", tt.name, got, tt.want)
		}
	}
}
