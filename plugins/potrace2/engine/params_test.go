package engine_test

import (
	"context"
	"errors"
	"image/color"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/potrace2/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func TestDescriptor(t *testing.T) {
	d := engine.New().Describe()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.Name != "potrace2" || d.Stability != sdk.Experimental {
		t.Errorf("name %q stability %v, want potrace2 experimental", d.Name, d.Stability)
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

// TestTransparencyStays: transparent pixels are never painted, and the square is one
// layer.
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
	if got := string(doc); strings.Count(got, "<path") != 1 || !strings.Contains(got, `fill="#005ac8"`) {
		t.Errorf("want one blue layer:\n%s", doc)
	}
}
