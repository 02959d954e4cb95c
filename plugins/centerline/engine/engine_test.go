package engine_test

import (
	"context"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func TestConformance(t *testing.T) {
	enginetest.Run[engine.Params](t, engine.New)
}

// TestTraceCorpus writes the corpus SVGs for the bench when TRACECRAFT_SVG_OUT is set.
func TestTraceCorpus(t *testing.T) { enginetest.TraceCorpusFromEnv(t, engine.New()) }

func traceWith(t *testing.T, img *image.NRGBA, given map[string]any) (string, error) {
	t.Helper()
	e := engine.New()
	params, err := sdk.Decode[engine.Params](given)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Trace(context.Background(), img, params)
	return string(out), err
}

// bars returns a white image with black horizontal bars of the given heights, 10 px
// apart.
func bars(heights ...int) *image.NRGBA {
	img := enginetest.Fill(100, 20+20*len(heights), color.NRGBA{255, 255, 255, 255})
	y := 10
	for _, h := range heights {
		for yy := y; yy < y+h; yy++ {
			for x := 10; x < 90; x++ {
				img.SetNRGBA(x, yy, color.NRGBA{A: 255})
			}
		}
		y += h + 10
	}
	return img
}

func TestStrokeWidthRejectsWhatIsNotAWidth(t *testing.T) {
	for _, v := range []string{"wide", "0", "101", "-1", ""} {
		_, err := traceWith(t, bars(3), map[string]any{"strokeWidth": v})
		if sdk.ErrorCode(err) != sdk.CodeInvalidSettings || !strings.Contains(err.Error(), "auto, variable or a number") {
			t.Errorf("strokeWidth %q: error %v, want invalid_settings saying what to give", v, err)
		}
	}
}

func TestParametersReachTheTracer(t *testing.T) {
	tests := []struct {
		name  string
		img   *image.NRGBA
		given map[string]any
		want  []string
		not   []string
	}{
		{"defaults: a 3 px bar is one open stroke 3 px wide", bars(3), nil,
			[]string{`stroke-width="3"`, `fill="none"`, `stroke-linecap="round"`}, []string{"Z"}},
		{"a number forces the width", bars(3), map[string]any{"strokeWidth": "1.25"}, []string{`stroke-width="1.25"`}, nil},
		{"threshold 0 sees no ink", bars(3), map[string]any{"threshold": 0.0}, nil, []string{"<path"}},
		{"minLength longer than the bar drops it", bars(3), map[string]any{"minLength": 200.0}, nil, []string{"<path"}},
		{"a solid block beside a line is a filled outline", bars(3, 30), nil, []string{`fill-rule="evenodd"`}, nil},
		{"hatch draws a solid block as strokes", bars(3, 30), map[string]any{"fillMode": "hatch"}, []string{"stroke-width"}, []string{`fill-rule`}},
		{"otsu finds the bar", bars(3), map[string]any{"thresholdMode": "otsu"}, []string{`stroke-width="3"`}, nil},
		{"adaptive finds the bar", bars(3), map[string]any{"thresholdMode": "adaptive"}, []string{`<path`}, nil},
		{"a ring is closed", enginetest.Ring(60), nil, []string{"Z"}, nil},
		{"closeLoops false leaves the ring open", enginetest.Ring(60), map[string]any{"closeLoops": false}, []string{"<path"}, []string{"Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := traceWith(t, tt.img, tt.given)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("want %s in:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("want no %s in:\n%s", n, got)
				}
			}
		})
	}
}

func TestColorsGroupsStrokesPerInk(t *testing.T) {
	img := bars(3, 3)
	for y := 23; y < 26; y++ {
		for x := 10; x < 90; x++ {
			img.SetNRGBA(x, y, color.NRGBA{R: 220, A: 255})
		}
	}
	one, _ := traceWith(t, img, nil)
	two, _ := traceWith(t, img, map[string]any{"colors": 2.0})
	if strings.Count(one, "<g") != 1 || strings.Count(two, "<g") != 2 || !strings.Contains(two, `stroke="#dc0000"`) {
		t.Errorf("colors 1:\n%s\ncolors 2:\n%s\nwant one group, then a black and a red group", one, two)
	}
}

func TestJoinGapsBridgesADash(t *testing.T) {
	img := bars(3)
	for y := 10; y < 13; y++ {
		for x := 48; x < 52; x++ {
			img.SetNRGBA(x, y, color.NRGBA{255, 255, 255, 255})
		}
	}
	apart, _ := traceWith(t, img, nil)
	joined, _ := traceWith(t, img, map[string]any{"joinGaps": 10.0})
	if strings.Count(apart, "<path") != 2 || strings.Count(joined, "<path") != 1 {
		t.Errorf("joinGaps 0: %d paths, 10: %d paths; want 2 then 1", strings.Count(apart, "<path"), strings.Count(joined, "<path"))
	}
}

func TestVariableSplitsAStrokeThatWidens(t *testing.T) {
	img := enginetest.Fill(200, 40, color.NRGBA{255, 255, 255, 255})
	for x := 10; x < 190; x++ {
		h := 2
		if x >= 100 {
			h = 8
		}
		for y := 20 - h/2; y < 20-h/2+h; y++ {
			img.SetNRGBA(x, y, color.NRGBA{A: 255})
		}
	}
	auto, _ := traceWith(t, img, nil)
	variable, _ := traceWith(t, img, map[string]any{"strokeWidth": "variable"})
	if strings.Count(auto, "<path") != 1 || strings.Count(variable, "<path") != 2 {
		t.Errorf("auto:\n%s\nvariable:\n%s\nwant one path, then two", auto, variable)
	}
}

func TestToleranceTradesSegmentsForAccuracy(t *testing.T) {
	img := enginetest.Ring(200)
	fine, _ := traceWith(t, img, map[string]any{"tolerance": 0.05})
	coarse, _ := traceWith(t, img, map[string]any{"tolerance": 5.0})
	if !(len(fine) > len(coarse)) {
		t.Errorf("tolerance 0.05: %d bytes, 5: %d bytes; want more for the finer fit", len(fine), len(coarse))
	}
}
