package engine

import (
	"context"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/plugins/tracecraft2/primitive"
	"github.com/tracecraft/tracecraft/sdk"
)

// drawShape draws the shape inside(x, y) onto img in c, anti-aliased by 8x8 supersampling.
func drawShape(img *image.NRGBA, c color.NRGBA, inside func(x, y float64) bool) {
	const ss = 8
	b := img.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			n := 0
			for j := range ss {
				for i := range ss {
					if inside(float64(x)+(float64(i)+0.5)/ss, float64(y)+(float64(j)+0.5)/ss) {
						n++
					}
				}
			}
			if n == 0 {
				continue
			}
			t := float64(n) / ss / ss
			o := img.PixOffset(x, y)
			for k, v := range []uint8{c.R, c.G, c.B} {
				img.Pix[o+k] = uint8(math.Round(float64(img.Pix[o+k])*(1-t) + float64(v)*t))
			}
			img.Pix[o+3] = 255
		}
	}
}

func white(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	return img
}

// insideShape is the point-in-shape test of a primitive.Shape.
func insideShape(s primitive.Shape) func(x, y float64) bool {
	return func(x, y float64) bool { return s.Distance(fit.Point{X: x, Y: y}) <= 0 }
}

// recognized traces img with the default parameters and returns the basic shapes
// found for its drawn regions.
func recognized(t *testing.T, img *image.NRGBA) []primitive.Shape {
	t.Helper()
	s, err := options(sdk.Defaults[Params]())
	if err != nil {
		t.Fatal(err)
	}
	res, plan, out, err := s.trace(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	w := writer{res: res, plan: plan, out: out, s: s}
	var found []primitive.Shape
	var pts []fit.Point
	for _, g := range plan.Groups() {
		for _, r := range g.Regions {
			outer := res.Ring(int(res.Seg.Planar.RegionRings[r][0]))
			sh, _ := w.recognize(r, outer, &pts)
			if sh.Kind == primitive.None {
				continue
			}
			found = append(found, sh)
		}
	}
	return found
}

func angleOff(a, b, period float64) float64 {
	d := math.Mod(math.Abs(a-b), period)
	return math.Min(d, period-d)
}

// TestPrimitivesRecognised draws each basic shape anti-aliased, traces it and checks
// that it comes out as that shape: position, sizes and radii within 0.5 px, angle within
// 1 degree.
func TestPrimitivesRecognised(t *testing.T) {
	shapes := []primitive.Shape{
		{Kind: primitive.Circle, Center: fit.Point{X: 70.3, Y: 80.6}, R: 40.2},
		{Kind: primitive.Ellipse, Center: fit.Point{X: 200.4, Y: 75.2}, RX: 55, RY: 25.5, Angle: 30},
		{Kind: primitive.Ellipse, Center: fit.Point{X: 330, Y: 80}, RX: 45, RY: 30},
		{Kind: primitive.Rect, Center: fit.Point{X: 70, Y: 200}, W: 80, H: 60},
		{Kind: primitive.Rect, Center: fit.Point{X: 200.5, Y: 200.2}, W: 90.4, H: 50.6, Angle: 20},
		{Kind: primitive.Rect, Center: fit.Point{X: 330, Y: 200}, W: 90, H: 70, R: 15},
		{Kind: primitive.Rect, Center: fit.Point{X: 70, Y: 320}, W: 80, H: 50, R: 12, Angle: -25},
		{Kind: primitive.Circle, Center: fit.Point{X: 200, Y: 320}, R: 8.3},
	}
	colors := []color.NRGBA{{200, 30, 40, 255}, {30, 60, 200, 255}, {20, 150, 60, 255}, {240, 160, 20, 255},
		{120, 40, 160, 255}, {20, 20, 20, 255}, {0, 160, 170, 255}, {230, 90, 150, 255}}
	for i, want := range shapes {
		img := white(400, 400)
		drawShape(img, colors[i], insideShape(want))
		found := recognized(t, img)
		var got *primitive.Shape
		for k := range found {
			if found[k].Center.Sub(want.Center).Len() < 2 {
				got = &found[k]
			}
		}
		if got == nil {
			t.Errorf("%v %+v not recognised (found %+v)", want.Kind, want, found)
			continue
		}
		const px, deg = 0.5, 1.0
		bad := got.Kind != want.Kind || math.Abs(got.Center.X-want.Center.X) > px || math.Abs(got.Center.Y-want.Center.Y) > px
		switch want.Kind {
		case primitive.Circle:
			bad = bad || math.Abs(got.R-want.R) > px
		case primitive.Ellipse:
			a, b, ang := got.RX, got.RY, got.Angle
			if math.Abs(a-want.RX) > px { // the same ellipse a quarter turn on
				a, b, ang = b, a, ang+90
			}
			bad = bad || math.Abs(a-want.RX) > px || math.Abs(b-want.RY) > px || angleOff(ang, want.Angle, 180) > deg
		case primitive.Rect:
			w, h, ang := got.W, got.H, got.Angle
			if math.Abs(w-want.W) > px {
				w, h, ang = h, w, ang+90
			}
			bad = bad || math.Abs(w-want.W) > px || math.Abs(h-want.H) > px || angleOff(ang, want.Angle, 180) > deg ||
				math.Abs(got.R-want.R) > px
		}
		if bad {
			t.Errorf("%v:\n got %+v\nwant %+v", want.Kind, *got, want)
		}
	}
}

// TestNonPrimitivesStayPaths: a star and a blob are not basic shapes.
func TestNonPrimitivesStayPaths(t *testing.T) {
	lobes := func(cx, cy, r1, r2 float64, k int) func(x, y float64) bool {
		return func(x, y float64) bool {
			a := math.Atan2(y-cy, x-cx)
			r := r2 + (r1-r2)*(0.5+0.5*math.Cos(float64(k)*a))
			return math.Hypot(x-cx, y-cy) <= r
		}
	}
	tests := []struct {
		name   string
		inside func(x, y float64) bool
	}{
		{"star", lobes(100, 100, 80, 35, 5)},
		{"blob", lobes(100, 100, 70, 60, 3)},
		{"half disc", func(x, y float64) bool { return math.Hypot(x-100, y-100) <= 70 && y <= 100 }},
		{"triangle", func(x, y float64) bool { return y <= 170 && y >= 30+1.6*math.Abs(x-100) }},
	}
	for _, tc := range tests {
		img := white(200, 200)
		drawShape(img, color.NRGBA{200, 30, 40, 255}, tc.inside)
		for _, s := range recognized(t, img) {
			if s.Center.Sub(fit.Point{X: 100, Y: 100}).Len() < 40 && !(s.Kind == primitive.Rect && s.W > 190) {
				t.Errorf("%s recognised as %+v", tc.name, s)
			}
		}
	}
}
