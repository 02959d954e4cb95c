package engine_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/potrace/engine"
	"github.com/tracecraft/tracecraft/plugins/potrace/trace"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func TestConformance(t *testing.T) {
	enginetest.Run[engine.Params](t, engine.New)
}

// TestTraceCorpus writes the corpus SVGs for the bench when TRACECRAFT_SVG_OUT is set.
func TestTraceCorpus(t *testing.T) { enginetest.TraceCorpusFromEnv(t, engine.New()) }

func TestDescribeHasTheSpecParameters(t *testing.T) {
	d := engine.New().Describe()
	if d.Name != "potrace" || d.Stability != sdk.Stable {
		t.Errorf("name %q stability %v, want potrace stable", d.Name, d.Stability)
	}
	type spec struct {
		name     string
		typ      sdk.ParamType
		min, max float64
		def      any
		step     float64
		values   []string
	}
	want := []spec{
		{"threshold", sdk.Number, 0, 255, 128.0, 0, nil},
		{"turdSize", sdk.Number, 0, 100, 2.0, 0, nil},
		{"turnPolicy", sdk.Enum, 0, 0, "minority", 0, []string{"black", "white", "left", "right", "minority", "majority"}},
		{"alphaMax", sdk.Number, 0, 1.334, 1.0, 0.01, nil},
		{"optCurve", sdk.Boolean, 0, 0, true, 0, nil},
		{"optTolerance", sdk.Number, 0, 1, 0.2, 0.01, nil},
		{"thresholdMode", sdk.Enum, 0, 0, "global", 0, []string{"global", "adaptive", "auto"}},
		{"adaptiveWindow", sdk.Number, 3, 255, 15.0, 0, nil},
		{"adaptiveK", sdk.Number, 0.01, 1, 0.2, 0.01, nil},
		{"ink", sdk.Enum, 0, 0, "black", 0, []string{"black", "image"}},
	}
	if len(d.Params) != len(want) {
		t.Fatalf("%d parameters, want %d", len(d.Params), len(want))
	}
	for i, w := range want {
		p := d.Params[i]
		got := spec{p.Name, p.Type, p.Min, p.Max, p.Default, p.Step, p.Values}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("parameter %d = %+v, want %+v", i, got, w)
		}
	}
}

// square returns a w x h white image with a black s x s square at (x0, y0).
func square(w, h, x0, y0, s int) *image.NRGBA {
	img := enginetest.Fill(w, h, color.NRGBA{255, 255, 255, 255})
	for y := y0; y < y0+s; y++ {
		for x := x0; x < x0+s; x++ {
			img.SetNRGBA(x, y, color.NRGBA{A: 255})
		}
	}
	return img
}

// pathData returns the d attributes of an SVG, joined.
func pathData(svg string) string {
	var ds []string
	for _, part := range strings.Split(svg, ` d="`)[1:] {
		ds = append(ds, part[:strings.IndexByte(part, '"')])
	}
	return strings.Join(ds, " ")
}

func traceWith(t *testing.T, img *image.NRGBA, given map[string]any) string {
	t.Helper()
	e := engine.New()
	params, problems := sdk.Decode[engine.Params](given)
	if problems != nil {
		t.Fatalf("%v", problems)
	}
	out, err := e.Trace(context.Background(), img, params)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestParametersReachTheTracer(t *testing.T) {
	sq := square(30, 30, 5, 5, 20)
	tests := []struct {
		name  string
		img   *image.NRGBA
		given map[string]any
		check func(svg string) bool
		want  string
	}{
		{"defaults: a square with sharp corners", sq, nil,
			func(s string) bool {
				return strings.Contains(s, `<path id="p-1" d="M`) && !strings.ContainsAny(pathData(s), "cCsS")
			},
			"one path of lines"},
		{"alphaMax 1.334 rounds the corners", sq, map[string]any{"alphaMax": 1.334},
			func(s string) bool { return strings.ContainsAny(pathData(s), "cCsS") }, "curves"},
		{"turdSize 100 keeps a 400-pixel square", sq, map[string]any{"turdSize": 100.0},
			func(s string) bool { return strings.Contains(s, "<path") }, "a path"},
		{"turdSize 100 drops a 10x10 square", square(30, 30, 5, 5, 10), map[string]any{"turdSize": 100.0},
			func(s string) bool { return !strings.Contains(s, "<path") }, "no path"},
		{"threshold 0 makes everything white", sq, map[string]any{"threshold": 0.0},
			func(s string) bool { return !strings.Contains(s, "<path") }, "no path"},
		{"adaptive thresholding ignores threshold", sq, map[string]any{"threshold": 0.0, "thresholdMode": "adaptive"},
			func(s string) bool { return strings.Contains(s, "<path") }, "a path"},
		{"holes are subpaths of their outer path", enginetest.Ring(40), nil,
			func(s string) bool { return strings.Count(s, "<path") == 1 && strings.Count(s, "Z") == 2 }, "one path, two subpaths"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := traceWith(t, tt.img, tt.given); !tt.check(got) {
				t.Errorf("want %s, got:\n%s", tt.want, got)
			}
		})
	}
}

func TestOptCurveFalseGivesMoreSegments(t *testing.T) {
	img := enginetest.Ring(120)
	on := traceWith(t, img, nil)
	off := traceWith(t, img, map[string]any{"optCurve": false})
	if !(len(off) > len(on)) {
		t.Errorf("optCurve false: %d bytes, true: %d bytes; want more without optimisation", len(off), len(on))
	}
}

func TestTraceEqualsThePackagesDocument(t *testing.T) {
	img := enginetest.Lines(50, 50)
	got := traceWith(t, img, map[string]any{"turnPolicy": "black", "turdSize": 0.0})
	opts := trace.DefaultOptions()
	opts.TurnPolicy, opts.TurdSize = trace.TurnBlack, 0
	roots, err := trace.Trace(context.Background(), trace.Threshold(img, 128), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := trace.Document(50, 50, roots, engine.Precision); !bytes.Equal([]byte(got), want) {
		t.Errorf("engine SVG differs from trace + Document:\n%s\n%s", got, want)
	}
}

func BenchmarkTrace_Lineart(b *testing.B) {
	e := engine.New()
	params := sdk.Defaults[engine.Params]()
	for _, path := range enginetest.CorpusImages(b, "lineart") {
		img := enginetest.LoadPNG(b, path)
		b.Run(enginetest.Name(path), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Trace(context.Background(), img, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// glyph is a w x w image of a disc of colour ink with an anti-aliased rim on a
// transparent (or, when paper is set, white) canvas.
func glyph(w int, ink color.NRGBA, paper bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, w))
	c, r := float64(w)/2, float64(w)*0.35
	for y := 0; y < w; y++ {
		for x := 0; x < w; x++ {
			dx, dy := float64(x)+0.5-c, float64(y)+0.5-c
			cover := min(max(r-math.Sqrt(dx*dx+dy*dy)+0.5, 0), 1)
			p := color.NRGBA{ink.R, ink.G, ink.B, uint8(math.Round(cover * 255))}
			if paper {
				mix := func(v uint8) uint8 { return uint8(math.Round(float64(v)*cover + 255*(1-cover))) }
				p = color.NRGBA{mix(ink.R), mix(ink.G), mix(ink.B), 255}
			}
			img.SetNRGBA(x, y, p)
		}
	}
	return img
}

// TestInkPaintsTheImagesInkColour: ink "image" paints a glyph in the colour of its core,
// not of its lighter rim; ink "black" (the default) paints it black, as Potrace does.
func TestInkPaintsTheImagesInkColour(t *testing.T) {
	for _, tc := range []struct {
		name  string
		img   *image.NRGBA
		ink   string
		color string
	}{
		{"gray glyph, transparent canvas, image ink", glyph(48, color.NRGBA{0x2e, 0x34, 0x36, 255}, false), "image", `fill="#2e3436"`},
		{"gray glyph on white, image ink", glyph(48, color.NRGBA{0x2e, 0x34, 0x36, 255}, true), "image", `fill="#2e3436"`},
		{"red glyph, image ink", glyph(32, color.NRGBA{0x80, 0x10, 0x10, 255}, false), "image", `fill="#801010"`},
		{"gray glyph, black ink", glyph(48, color.NRGBA{0x2e, 0x34, 0x36, 255}, false), "black", `fill="#000"`},
		{"black glyph, image ink", glyph(48, color.NRGBA{0, 0, 0, 255}, false), "image", `fill="#000"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := sdk.Defaults[engine.Params]()
			p.Ink = tc.ink
			doc, err := engine.New().Trace(context.Background(), tc.img, p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(doc), tc.color) || strings.Count(string(doc), "fill=") != 1 {
				t.Errorf("want one group with %s, got %s", tc.color, doc)
			}
		})
	}
}

// TestInkBlackIsTheDocumentPotraceWrites: the default ink leaves the SVG byte-identical
// to the package's black Document.
func TestInkBlackIsTheDocumentPotraceWrites(t *testing.T) {
	img := glyph(40, color.NRGBA{0x2e, 0x34, 0x36, 255}, false)
	p := sdk.Defaults[engine.Params]()
	got, err := engine.New().Trace(context.Background(), img, p)
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := engine.Options(p)
	roots, err := trace.Trace(context.Background(), trace.Threshold(img, 128), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := trace.Document(40, 40, roots, engine.Precision); !bytes.Equal(got, want) {
		t.Errorf("default ink changed the document:\n%s\nwant\n%s", got, want)
	}
}
