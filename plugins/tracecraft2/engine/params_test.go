package engine_test

import (
	"bytes"
	"context"
	"errors"
	"image/color"
	"regexp"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft2/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func TestDescriptor(t *testing.T) {
	d := engine.New().Describe()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.Name != "tracecraft2" || d.Stability != sdk.Experimental {
		t.Errorf("name %q stability %v, want tracecraft2 experimental", d.Name, d.Stability)
	}
}

// TestBadParamsAreErrors: values the host would reject return an sdk.Error, not a
// panic, when they reach Trace anyway.
func TestBadParamsAreErrors(t *testing.T) {
	img := enginetest.FlatShapes(40, 30)
	for _, p := range []engine.Params{{}} {
		_, err := engine.New().Trace(context.Background(), img, p)
		var se *sdk.Error
		if !errors.As(err, &se) {
			t.Errorf("zero params: %v, want an sdk.Error", err)
		}
	}
}

// TestCircleBecomesElement: a disc on a plain background is written as a circle
// element; the background, whose outline is the image border, stays a four-line path
// (shorter than a rect element).
func TestCircleBecomesElement(t *testing.T) {
	img := enginetest.Fill(120, 100, color.NRGBA{255, 255, 255, 255})
	for y := range 100 {
		for x := range 120 {
			dx, dy := float64(x)+0.5-60, float64(y)+0.5-50
			if dx*dx+dy*dy <= 35*35 {
				img.SetNRGBA(x, y, color.NRGBA{200, 0, 0, 255})
			}
		}
	}
	doc, err := engine.New().Trace(context.Background(), img, sdk.Defaults[engine.Params]())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte("<circle")) || regexp.MustCompile(` d="[^"]*[CcSs]`).Match(doc) {
		t.Errorf("want a circle and no curve:\n%s", doc)
	}
	p, _ := sdk.Decode[engine.Params](map[string]any{"primitives": false})
	doc, _ = engine.New().Trace(context.Background(), img, p)
	if strings.Contains(string(doc), "<circle") {
		t.Errorf("primitives false still writes a circle:\n%s", doc)
	}
}

// TestTransparencyStays: transparent pixels are never painted.
func TestTransparencyStays(t *testing.T) {
	img := enginetest.Fill(64, 64, color.NRGBA{})
	for y := 16; y < 48; y++ {
		for x := 16; x < 48; x++ {
			img.SetNRGBA(x, y, color.NRGBA{0, 90, 200, 255})
		}
	}
	doc, err := engine.New().Trace(context.Background(), img, sdk.Defaults[engine.Params]())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `<rect id="c-005ac8" x="16" y="16" width="32" height="32" fill="#005ac8"/>`) {
		t.Errorf("want exactly the square:\n%s", doc)
	}
}
