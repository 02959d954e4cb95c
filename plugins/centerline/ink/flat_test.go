package ink

import (
	"math"
	"slices"
	"testing"
)

// page returns a w x h darkness image of paper lit by bright(x, y) (0..255), with
// vertical ink lines (ink reflecting a tenth of the light) three pixels wide every 20
// pixels and, when blob, a black square of a third of the height in the middle.
func page(w, h int, bright func(x, y int) float64, blob bool) *Image {
	g := &Image{W: w, H: h, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			b := bright(x, y)
			if x%20 < 3 {
				b *= 0.1
			}
			if blob && abs(x-w/2) < h/6 && abs(y-h/2) < h/6 {
				b = 0
			}
			g.Pix[y*w+x] = uint8(255 - b)
		}
	}
	return g
}

func abs(v int) int { return max(v, -v) }

func TestFlattenEvensOutDimPaperAndLeavesWhitePaperAlone(t *testing.T) {
	const w, h = 400, 300
	tests := []struct {
		name   string
		bright func(x, y int) float64
		blob   bool
		dim    bool
	}{
		{"white paper", func(x, y int) float64 { return 255 }, false, false},
		{"white paper with a black square", func(x, y int) float64 { return 255 }, true, false},
		{"paper a little grey", func(x, y int) float64 { return 230 }, false, false},
		{"grey paper", func(x, y int) float64 { return 150 }, false, true},
		{"light falling off across the page", func(x, y int) float64 { return 250 - 0.4*float64(x) }, false, true},
		{"light falling off, with a black square", func(x, y int) float64 { return 250 - 0.4*float64(x) }, true, true},
		{"a soft shadow over half the page", func(x, y int) float64 {
			return 240 - 110/(1+math.Exp(-float64(y-h/2)/15))
		}, false, true},
	}
	for _, tt := range tests {
		g := page(w, h, tt.bright, tt.blob)
		f, dim := Flatten(g)
		if dim != tt.dim {
			t.Errorf("%s: dim %v, want %v", tt.name, dim, tt.dim)
			continue
		}
		if !dim {
			if f != g {
				t.Errorf("%s: not dim, yet the image was replaced", tt.name)
			}
			continue
		}
		m := Threshold(f, Fixed, 128)
		for _, p := range [][2]int{{30, 20}, {370, 280}, {50, 150}, {350, 150}} {
			x, y := p[0], p[1]
			if m.Pix[y*w+x] {
				t.Errorf("%s: paper at (%d, %d) (darkness %d, flattened %d) is ink", tt.name, x, y, g.Pix[y*w+x], f.Pix[y*w+x])
			}
			if x -= x % 20; !m.Pix[y*w+x+1] {
				t.Errorf("%s: the line at (%d, %d) (darkness %d, flattened %d) is not ink", tt.name, x+1, y, g.Pix[y*w+x+1], f.Pix[y*w+x+1])
			}
		}
		if tt.blob && !m.Pix[h/2*w+w/2] {
			t.Errorf("%s: the black square's middle is not ink", tt.name)
		}
	}
}

func TestStretchMakesFaintInkBlack(t *testing.T) {
	tests := []struct {
		name      string
		ink, want uint8
	}{
		{"grey ink is stretched to black", 120, 255},
		{"faint ink gains at most maxStretch", 50, 150},
		{"black ink stays", 255, 255},
	}
	for _, tt := range tests {
		g := &Image{W: 10, H: 1, Pix: []uint8{0, 0, 2, 0, 1, 0, 0, tt.ink, tt.ink, tt.ink}}
		Stretch(g)
		if got := g.Pix[8]; got != tt.want {
			t.Errorf("%s: ink %d became %d, want %d", tt.name, tt.ink, got, tt.want)
		}
		if g.Pix[0] != 0 {
			t.Errorf("%s: paper became %d, want 0", tt.name, g.Pix[0])
		}
	}
}

func TestPaperTilesAreThe95thPercentileOfBrightness(t *testing.T) {
	// Tiles of 400 pixels: in the top row, the first 0, 380 (a twentieth left
	// paper), 381, 390 and 400 marked; below, about half and about 96 % marked at random.
	const w, h, side = 100, 60, 20
	g := &Image{W: w, H: h, Pix: make([]uint8, w*h)}
	marked := [5]int{0, 380, 381, 390, 400}
	seed := uint32(11)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			seed = seed*1664525 + 1013904223
			v := uint8(seed>>20) | 1
			var on bool
			switch j := y / side; j {
			case 0:
				on = (y%side)*side+x%side < marked[x/side]
			default:
				on = seed>>8%100 < []uint32{50, 96}[j-1]
			}
			if on {
				g.Pix[y*w+x] = v
			}
		}
	}
	tw, th := w/side, h/side
	est := paperTiles(g, side, tw, th, nil, 0)
	for j := 0; j < th; j++ {
		for i := 0; i < tw; i++ {
			var bright []int
			for y := j * side; y < (j+1)*side; y++ {
				for x := i * side; x < (i+1)*side; x++ {
					bright = append(bright, 255-int(g.Pix[y*w+x]))
				}
			}
			slices.Sort(bright)
			want := float64(bright[len(bright)*95/100])
			if est[j*tw+i] != want {
				t.Errorf("tile (%d,%d): %v, want %v", i, j, est[j*tw+i], want)
			}
		}
	}
}

func TestFlattenDividesEachPixelByTheInterpolatedPaper(t *testing.T) {
	// A dim page whose sides are not whole tiles, with a black square: each pixel's
	// brightness over the paper interpolated between the four tile centres around it.
	const w, h = 331, 257
	g := page(w, h, func(x, y int) float64 { return 240 - 0.3*float64(x) - 0.2*float64(y) }, true)
	f, dim := Flatten(g)
	if !dim {
		t.Fatal("the page is not found dim")
	}
	ts := tileSide(w, h)
	tw, th := (w+ts-1)/ts, (h+ts-1)/ts
	est := paperTiles(g, ts, tw, th, nil, 0)
	trusted := litTiles(est, tw, th)
	fillTiles(est, trusted, tw, th)
	for y := range h {
		fy := math.Max(0, math.Min(float64(th-1), (float64(y)+0.5)/float64(ts)-0.5))
		j0 := int(fy)
		j1, wy := min(j0+1, th-1), fy-float64(j0)
		for x := range w {
			fx := math.Max(0, math.Min(float64(tw-1), (float64(x)+0.5)/float64(ts)-0.5))
			i0 := int(fx)
			i1, wx := min(i0+1, tw-1), fx-float64(i0)
			a := est[j0*tw+i0]*(1-wx) + est[j0*tw+i1]*wx
			b := est[j1*tw+i0]*(1-wx) + est[j1*tw+i1]*wx
			paper := a*(1-wy) + b*wy
			v := math.Min(255, math.Round((255-float64(g.Pix[y*w+x]))*255/math.Max(paper, 1)))
			if want := uint8(255 - v); f.Pix[y*w+x] != want {
				t.Fatalf("pixel (%d,%d): %d, want %d", x, y, f.Pix[y*w+x], want)
			}
		}
	}
}

func TestStretchScalesByTheMeanInkOfAWholeImage(t *testing.T) {
	// An image of more pixels than one band of the histogram: faint ink on grey paper.
	const w, h = 400, 300
	g := &Image{W: w, H: h, Pix: make([]uint8, w*h)}
	seed := uint32(17)
	for i := range g.Pix {
		seed = seed*1664525 + 1013904223
		g.Pix[i] = uint8(seed>>24) / 4 // paper 0..63
		if seed>>8%10 == 0 {
			g.Pix[i] = 90 + uint8(seed>>16)%40 // ink 90..129
		}
	}
	var hist [256]int
	for _, v := range g.Pix {
		hist[v]++
	}
	got := histogram(g)
	for v, c := range hist {
		if got[v] != float64(c) {
			t.Fatalf("histogram[%d] = %v, want %d", v, got[v], c)
		}
	}
	// Stretch's definition: the gain that makes the mean darkness above Otsu's level 255.
	lv := OtsuLevel(g)
	var sum, n float64
	for _, v := range g.Pix {
		if v > lv {
			sum += float64(v)
			n++
		}
	}
	gain := math.Min(maxStretch, 255*n/sum)
	want := make([]uint8, len(g.Pix))
	for i, v := range g.Pix {
		want[i] = uint8(math.Min(255, math.Round(float64(v)*gain)))
	}
	Stretch(g)
	if !slices.Equal(g.Pix, want) {
		t.Errorf("Stretch differs from its definition (gain %v)", gain)
	}
}

func TestBinariseAutoIsTheFixedThresholdOfTheFlattenedImage(t *testing.T) {
	white := func(x, y int) float64 { return 255 }
	falling := func(x, y int) float64 { return 250 - 0.4*float64(x) }
	tests := []struct {
		name   string
		g      *Image
		levels []float64
	}{
		{"white paper with a black square (its mask found while flattening)", page(400, 300, white, true), []float64{0, 1, 128, 254.5, 255, 300, math.NaN()}},
		{"light falling off (flattened, then thresholded)", page(400, 300, falling, true), []float64{128, 255, 300}},
		{"too small to flatten", page(30, 20, white, true), []float64{128, 300}},
	}
	for _, tt := range tests {
		for _, level := range tt.levels {
			gotG, got := Binarise(&Image{W: tt.g.W, H: tt.g.H, Pix: slices.Clone(tt.g.Pix)}, Auto, level)
			f, dim := Flatten(&Image{W: tt.g.W, H: tt.g.H, Pix: slices.Clone(tt.g.Pix)})
			if dim {
				Stretch(f)
			}
			want := Threshold(f, Fixed, level)
			if !slices.Equal(gotG.Pix, f.Pix) || !slices.Equal(got.Pix, want.Pix) {
				t.Errorf("%s, level %v: the darkness or the mask differs from Flatten's and Threshold's", tt.name, level)
			}
		}
	}
}
