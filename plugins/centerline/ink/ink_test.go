package ink

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

func TestOtsuSplitsTwoLevels(t *testing.T) {
	g := &Image{W: 10, H: 1, Pix: []uint8{10, 12, 8, 11, 9, 200, 210, 190, 205, 199}}
	l := OtsuLevel(g)
	if l < 12 || l >= 190 {
		t.Errorf("level %d, want between 12 and 190", l)
	}
	m := Threshold(g, Otsu, 0)
	if m.Count() != 5 {
		t.Errorf("%d ink pixels, want 5", m.Count())
	}
}

func TestAdaptiveFindsInkUnderAShadow(t *testing.T) {
	// Paper darkening from left to right, with a darker stroke column in each half.
	w, h := 60, 20
	g := &Image{W: w, H: h, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 20 + x*3
			if x == 10 || x == 50 {
				v += 60
			}
			g.Pix[y*w+x] = uint8(v)
		}
	}
	m := Threshold(g, Adaptive, 0)
	if !m.Pix[5*w+10] || !m.Pix[5*w+50] || m.Pix[5*w+40] {
		t.Errorf("strokes %v %v, shaded paper %v; want true true false", m.Pix[5*w+10], m.Pix[5*w+50], m.Pix[5*w+40])
	}
	f := Threshold(g, Fixed, 128)
	if !f.Pix[5*w+40] {
		t.Errorf("the fixed threshold should see the shaded paper as ink (the reason for adaptive)")
	}
}

func TestFixedThresholdIsDarknessAbove255LessLevel(t *testing.T) {
	g := &Image{W: 256, H: 1, Pix: make([]uint8, 256)}
	for i := range g.Pix {
		g.Pix[i] = uint8(i)
	}
	for _, level := range []float64{0, 0.5, 1, 127.5, 128, 200.25, 255, 256, -3, math.Inf(1), math.Inf(-1), math.NaN()} {
		m := Threshold(g, Fixed, level)
		for v, on := range m.Pix {
			if want := float64(v) > 255-level; on != want {
				t.Fatalf("level %v: darkness %d ink %v, want %v", level, v, on, want)
			}
		}
	}
}

func TestDarknessIsLumaOverWhite(t *testing.T) {
	tests := []struct {
		name string
		c    color.NRGBA
		want uint8
	}{
		{"white", color.NRGBA{255, 255, 255, 255}, 0},
		{"black", color.NRGBA{0, 0, 0, 255}, 255},
		{"transparent black is paper", color.NRGBA{0, 0, 0, 0}, 0},
		{"half-transparent black", color.NRGBA{0, 0, 0, 128}, 128},
		{"pure red", color.NRGBA{255, 0, 0, 255}, 255 - 76},
		{"pure green", color.NRGBA{0, 255, 0, 255}, 255 - 150},
	}
	for _, tt := range tests {
		img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
		for i := 0; i < len(img.Pix); i += 4 {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = tt.c.R, tt.c.G, tt.c.B, tt.c.A
		}
		for i, v := range Darkness(img).Pix {
			if v != tt.want {
				t.Errorf("%s: pixel %d darkness %d, want %d", tt.name, i, v, tt.want)
			}
		}
	}
}

func TestBilinearInterpolatesBetweenPixelCentres(t *testing.T) {
	// 3 x 2: darkness 0, 51, 102 / 153, 204, 255.
	g := &Image{W: 3, H: 2, Pix: []uint8{0, 51, 102, 153, 204, 255}}
	tests := []struct {
		name string
		x, y float64
		want float64
	}{
		{"a pixel centre", 1.5, 0.5, 0.2},
		{"between two centres across", 1, 0.5, 0.1},
		{"between two centres down", 0.5, 1, 0.3},
		{"between four centres", 2, 1, 0.6},
		{"past the left border (paper outside)", 0, 0.5, 0},
		{"past the bottom right corner", 3, 2, 0.25},
		{"far outside", -5, 40, 0},
	}
	for _, tt := range tests {
		if got := g.Bilinear(tt.x, tt.y); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Bilinear(%v, %v) = %v, want %v", tt.name, tt.x, tt.y, got, tt.want)
		}
	}
}

// bilinearByFloors is Bilinear by its definition: the floors of the coordinates, and
// each of the four pixels read with At (paper outside the image).
func bilinearByFloors(m *Image, x, y float64) float64 {
	x, y = x-0.5, y-0.5
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := x-x0, y-y0
	i, j := int(x0), int(y0)
	a := float64(m.At(i, j))*(1-fx) + float64(m.At(i+1, j))*fx
	b := float64(m.At(i, j+1))*(1-fx) + float64(m.At(i+1, j+1))*fx
	return (a*(1-fy) + b*fy) / 255
}

func TestBilinearInsideIsTheSameNumberAsByItsDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := &Image{W: 7, H: 5, Pix: make([]uint8, 35)}
	for i := range g.Pix {
		g.Pix[i] = uint8(r.IntN(256))
	}
	// Points across the image and a pixel beyond it, and the pixel centres and edges
	// where the fast path starts and stops.
	var pts [][2]float64
	for range 2000 {
		pts = append(pts, [2]float64{r.Float64()*9 - 1, r.Float64()*7 - 1})
	}
	for x := -1.0; x <= 8; x += 0.5 {
		for y := -1.0; y <= 6; y += 0.5 {
			pts = append(pts, [2]float64{x, y}, [2]float64{math.Nextafter(x, -10), math.Nextafter(y, 10)})
		}
	}
	for _, p := range pts {
		if got, want := g.Bilinear(p[0], p[1]), bilinearByFloors(g, p[0], p[1]); got != want {
			t.Fatalf("Bilinear(%v, %v) = %v, want %v", p[0], p[1], got, want)
		}
	}
}

// darknessOf is overWhite's definition for one pixel: 255 less the lightness (luma in
// 1/1000ths, or the darkest channel) of c composited over white.
func darknessOf(c color.NRGBA, luma bool) uint8 {
	r, g, b, a := float64(c.R), float64(c.G), float64(c.B), int(c.A)
	if a == 0 {
		return 0
	}
	var l int
	switch {
	case luma:
		l = int(math.Floor((299*r + 587*g + 114*b + 500) / 1000))
	default:
		l = int(min(r, g, b))
	}
	if a != 255 {
		l = (l*a + 255*(255-a) + 127) / 255
	}
	return uint8(255 - l)
}

func TestDarknessAndStrengthMatchTheirDefinitionPixelByPixel(t *testing.T) {
	// Paper (transparent, opaque white), greys, colours, every alpha.
	var cs []color.NRGBA
	for a := 0; a < 256; a++ {
		cs = append(cs, color.NRGBA{255, 255, 255, uint8(a)}, color.NRGBA{0, 0, 0, uint8(a)},
			color.NRGBA{uint8(a), uint8(a), uint8(a), 255}, color.NRGBA{200, uint8(a), 17, uint8(a)})
	}
	for range 9 { // runs of solid black, white and transparent paper, and pairs of them
		cs = append(cs, color.NRGBA{0, 0, 0, 255}, color.NRGBA{0, 0, 0, 255}, color.NRGBA{0, 0, 0, 255},
			color.NRGBA{255, 255, 255, 255}, color.NRGBA{255, 255, 255, 255}, color.NRGBA{255, 255, 255, 255},
			color.NRGBA{9, 0, 0, 0}, color.NRGBA{0, 0, 0, 0}, color.NRGBA{0, 0, 0, 0}, color.NRGBA{0, 0, 0, 255})
	}
	white, clear, ink := color.NRGBA{255, 255, 255, 255}, color.NRGBA{40, 90, 7, 0}, color.NRGBA{30, 60, 90, 200}
	for n := 1; n <= 30; n++ { // runs of paper of every length around eight and sixteen pixels
		for _, paper := range [][]color.NRGBA{{white}, {clear}, {white, clear}, {clear, clear, clear, white}} {
			for k := range n {
				cs = append(cs, paper[k%len(paper)])
			}
			cs = append(cs, ink)
		}
	}
	black := color.NRGBA{0, 0, 0, 255}
	for n := 1; n <= 30; n++ { // runs of solid black of every length around eight pixels
		for k := range n {
			cs = append(cs, black)
			if k == n/2 && n%3 == 0 {
				cs = append(cs, color.NRGBA{0, 0, 1, 255}) // near black in the run
			}
		}
		cs = append(cs, white)
	}
	for v := range 37 { // a run of opaque greys, and near-greys between greys
		grey := color.NRGBA{uint8(7 * v), uint8(7 * v), uint8(7 * v), 255}
		cs = append(cs, grey)
		if v%9 == 0 {
			for _, c := range []color.NRGBA{{grey.R, grey.G + 1, grey.B, 255}, {grey.R, grey.G, grey.B + 30, 255}, {grey.R, grey.G, grey.B, 254}} {
				cs = append(cs, c, grey, grey, c, grey)
			}
		}
	}
	seed := uint32(7)
	for range 2000 {
		seed = seed*1664525 + 1013904223
		cs = append(cs, color.NRGBA{uint8(seed >> 8), uint8(seed >> 16), uint8(seed >> 24), uint8(seed>>24) | 0xc0})
	}
	img := image.NewNRGBA(image.Rect(0, 0, 37, (len(cs)+36)/37))
	for i, c := range cs {
		img.SetNRGBA(i%37, i/37, c)
	}
	for _, luma := range []bool{true, false} {
		g := Strength(img)
		if luma {
			g = Darkness(img)
		}
		for i, c := range cs {
			if want := darknessOf(c, luma); g.Pix[i] != want {
				t.Fatalf("luma %v: %v gives %d, want %d", luma, c, g.Pix[i], want)
			}
		}
	}
}

func TestFixedThresholdOnPaperRuns(t *testing.T) {
	// Runs of paper (darkness 0) of every length around a word of eight, between ink.
	var pix []uint8
	for n := 0; n < 40; n++ {
		pix = append(pix, make([]uint8, n)...)
		pix = append(pix, uint8(n*6+1), 255)
	}
	g := &Image{W: len(pix), H: 1, Pix: pix}
	for _, level := range []float64{0, 1, 128, 254, 255, 256, 300} {
		m := Threshold(g, Fixed, level)
		for i, v := range pix {
			if want := float64(v) > 255-level; m.Pix[i] != want {
				t.Fatalf("level %v: pixel %d darkness %d ink %v, want %v", level, i, v, m.Pix[i], want)
			}
		}
	}
}
