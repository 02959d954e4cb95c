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

// TestAutoCandidates checks, on generated images measured by package analysis, that
// auto traces a second setting exactly where the measures leave Choose in doubt.
func TestAutoCandidates(t *testing.T) {
	const w, h = 200, 160
	paint := func(transparent bool, fn func(x, y int) (r, g, b uint8, in bool)) *image.NRGBA {
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				r, g, b, in := fn(x, y)
				i := y*img.Stride + 4*x
				if !in && transparent {
					continue
				}
				if !in {
					r, g, b = 255, 255, 255
				}
				img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = r, g, b, 255
			}
		}
		return img
	}
	disc := func(x, y int) bool { return (x-100)*(x-100)+(y-80)*(y-80) < 60*60 }
	rng := rand.New(rand.NewSource(3))
	grain := func() uint8 { return uint8(rng.Intn(14)) }
	for _, tt := range []struct {
		name string
		img  *image.NRGBA
		want []string // categories, in order
	}{
		{"two-colour logo: logo alone", paint(false, func(x, y int) (uint8, uint8, uint8, bool) {
			return 200, 20, 40, disc(x, y)
		}), []string{Logo}},
		{"filled gray glyph on a transparent canvas (an icon): logo alone", paint(true, func(x, y int) (uint8, uint8, uint8, bool) {
			return 0x2e, 0x34, 0x36, disc(x, y) && !(x > 90 && x < 110)
		}), []string{Logo}},
		{"gray line drawing: line art, then the logo preset", paint(false, func(x, y int) (uint8, uint8, uint8, bool) {
			return 0x2e, 0x34, 0x36, x%8 < 2 || y%10 < 2
		}), []string{Lineart, Logo}},
		{"grainy colour photograph: photo alone", paint(false, func(x, y int) (uint8, uint8, uint8, bool) {
			return uint8(x) + grain(), uint8(y) + grain(), uint8(255-x) + grain(), true
		}), []string{Photo}},
		{"smooth drawn gradient behind a shape: poster, then photo", paint(false, func(x, y int) (uint8, uint8, uint8, bool) {
			if disc(x, y) && x < 100 {
				return 250, 200, 0, true
			}
			return uint8(x), uint8(y), 180, true
		}), []string{Poster, Photo}},
		{"gray photograph: photo, then line art (its shaded variant)", paint(false, func(x, y int) (uint8, uint8, uint8, bool) {
			v := uint8(x/2+y/3) + grain()
			return v, v, v, true
		}), []string{Photo, Lineart, Poster}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range AutoCandidates(analysis.Measure(tt.img)) {
				got = append(got, c.Category)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("AutoCandidates = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestUnambiguousNeedsTheNewMeasures: features from an engine built with an older sdk
// (no texture, no 6-bit colours) are never unambiguous, so auto compares two traces
// rather than trust a measure it lacks.
func TestUnambiguousNeedsTheNewMeasures(t *testing.T) {
	for _, f := range []map[string]float64{
		{analysis.Top4Share: 1, analysis.GradientShare: 0.01},
		{analysis.Top4Share: 0.1, analysis.Top16Share: 0.3, analysis.GradientShare: 0.8},
	} {
		if Unambiguous(f) || len(AutoCandidates(f)) < 2 {
			t.Errorf("features %v: unambiguous %v, candidates %v; want two candidates", f, Unambiguous(f), AutoCandidates(f))
		}
	}
}
