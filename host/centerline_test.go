package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/tracecraft/tracecraft/internal/testbin"
	clengine "github.com/tracecraft/tracecraft/plugins/centerline/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// lineArt draws what every centerline parameter acts on: pen lines of two widths, a
// line that widens, a dashed line with a 6 px gap, a ring, a solid block, a red line,
// specks, and paper that darkens to the right, below the fixed threshold at the right edge (for the
// threshold modes), a 12 px dash (for minLength).
func lineArt(t *testing.T) []byte {
	const w, h = 240, 160
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(250 - x*2/3)
			c := color.NRGBA{v, v, v, 255}
			ink := color.NRGBA{20, 20, 20, 255}
			switch {
			case y >= 20 && y < 23 && x >= 20 && x < 220:
				c = ink
			case x >= 30 && x < 35 && y >= 30 && y < 140:
				c = ink
			case y >= 50 && x >= 50 && x < 200 && math.Abs(float64(y)-55) < 1+float64(x-50)/40:
				c = ink
			case y >= 80 && y < 83 && x >= 50 && x < 200 && (x < 120 || x >= 126):
				c = ink
			case y >= 120 && y < 150 && x >= 60 && x < 100:
				c = ink
			case y >= 100 && y < 103 && x >= 120 && x < 220:
				c = color.NRGBA{210, 30, 30, 255}
			case (x == 10 && y == 150) || (x == 230 && y == 5):
				c = ink
			case y >= 10 && y < 13 && x >= 100 && x < 112:
				c = ink
			}
			if d := math.Hypot(float64(x-140), float64(y-130)); d > 15 && d < 18 {
				c = ink
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCenterlineParametersThroughTheService sets each centerline parameter in turn
// through HTTP with the real host and plugin: each changes the SVG from the defaults'
// and gives exactly what the engine package gives; the JSON answer carries the pen-up
// travel the SVG states.
func TestCenterlineParametersThroughTheService(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testbin.Install(t, testbin.Build(t, "./plugins/centerline"), dir, "centerline")
	h := startHost(t, dir, "")
	img := lineArt(t)
	decoded, _, err := raster.Decode(img, 0)
	if err != nil {
		t.Fatal(err)
	}
	e := clengine.New()
	trace := func(params string) string {
		t.Helper()
		r := h.vectorize(img, `{"engine":"centerline","centerline":`+params+`}`)
		if r.status != 200 {
			t.Fatalf("%s: %s", params, r)
		}
		p, err := sdk.Decode[clengine.Params](jsonObject(t, params))
		if err != nil {
			t.Fatal(err)
		}
		want, err := e.Trace(context.Background(), decoded, p)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := r.json["svg"].(string)
		if got != string(want) {
			t.Errorf("%s: the service's SVG (%d bytes) differs from the package's (%d bytes)", params, len(got), len(want))
		}
		travel, ok := r.json["travelLength"].(float64)
		if !ok || travel <= 0 {
			t.Errorf("%s: travelLength = %v, want a positive number", params, r.json["travelLength"])
		}
		return got
	}
	def := trace(`{}`)
	for _, params := range []string{
		`{"thresholdMode":"fixed"}`, `{"thresholdMode":"otsu"}`, `{"thresholdMode":"adaptive"}`, `{"threshold":60}`, `{"minLength":30}`,
		`{"tolerance":3}`, `{"strokeWidth":"2"}`, `{"strokeWidth":"variable"}`, `{"joinGaps":10}`,
		`{"fillMode":"hatch"}`, `{"closeLoops":false}`, `{"colors":2}`,
	} {
		if got := trace(params); got == def {
			t.Errorf("%s gives the same SVG as the defaults", params)
		}
	}
	r := h.vectorize(img, `{"engine":"centerline","centerline":{"strokeWidth":"thick"}}`)
	if r.status != 400 || r.errorCode() != "invalid_settings" {
		t.Errorf("strokeWidth thick: %s, want 400 invalid_settings", r)
	}
	r = h.vectorize(img, `{"engine":"potrace"}`)
	if _, ok := r.json["travelLength"]; ok {
		t.Errorf("a potrace answer has a travelLength: %s", r)
	}
}
