package ink

import "testing"

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
