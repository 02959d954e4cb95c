package engine_test

import (
	"bytes"
	"context"
	"image"
	"regexp"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/svgraster"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/testimg"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func trace(t *testing.T, img *image.NRGBA, params map[string]any) []byte {
	t.Helper()
	e := engine.New()
	p, problems := sdk.Decode[engine.Params](params)
	if problems != nil {
		t.Fatal(problems)
	}
	doc, err := e.Trace(context.Background(), img, p)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func count(doc []byte, re string) int { return len(regexp.MustCompile(re).FindAll(doc, -1)) }

// TestDescriptor checks the parameters of spec section 2.5: names, types, ranges,
// defaults and values, in order.
func TestDescriptor(t *testing.T) {
	d := engine.New().Describe()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name     string
		typ      sdk.ParamType
		min, max float64
		def      any
		values   string
	}{
		{"maxColors", sdk.Number, 2, 256, 16.0, ""},
		{"minRegion", sdk.Number, 0, 1024, 25.0, ""},
		{"palette", sdk.List, 0, 0, nil, ""},
		{"tolerance", sdk.Number, 0, 5, 0.5, ""},
		{"drawStyle", sdk.Enum, 0, 0, "fill", "fill,strokeShapes,strokeEdges"},
		{"shapeStacking", sdk.Enum, 0, 0, "cutouts", "cutouts,stacked"},
		{"groupBy", sdk.Enum, 0, 0, "none", "none,color,parent"},
		{"fixedSize", sdk.Boolean, 0, 0, false, ""},
		{"gapFiller", sdk.Enum, 0, 0, "auto", "auto,on,off"},
		{"gapFillerWidth", sdk.Number, 0.05, 4, 0.25, ""},
		{"strokeWidth", sdk.Number, 0.05, 20, 1.0, ""},
		{"overrideColor", sdk.String, 0, 0, nil, ""},
		{"nonScalingStroke", sdk.Boolean, 0, 0, false, ""},
	}
	if len(d.Params) != len(want) {
		t.Fatalf("%d parameters, want %d", len(d.Params), len(want))
	}
	for i, w := range want {
		p := d.Params[i]
		if p.Name != w.name || p.Type != w.typ || p.Min != w.min || p.Max != w.max || p.Default != w.def || strings.Join(p.Values, ",") != w.values {
			t.Errorf("parameter %d is %+v, want %+v", i, p, w)
		}
	}
}

// TestParams checks that each parameter of spec section 2.5 does what it says.
func TestParams(t *testing.T) {
	shapes := enginetest.FlatShapes(96, 64)
	nested := testimg.Nested(40, 32)
	tests := []struct {
		name   string
		img    *image.NRGBA
		params map[string]any
		check  func(t *testing.T, doc []byte)
	}{
		{"maxColors 2 leaves two fills", shapes, map[string]any{"maxColors": 2.0, "gapFiller": "off"}, func(t *testing.T, doc []byte) {
			if n := count(doc, `fill="#`); n != 2 {
				t.Errorf("%d fills, want 2", n)
			}
		}},
		{"fixedSize adds width and height", shapes, map[string]any{"fixedSize": true}, func(t *testing.T, doc []byte) {
			if !bytes.Contains(doc, []byte(`width="96" height="64"`)) {
				t.Errorf("no width and height: %.200s", doc)
			}
		}},
		{"no fixedSize: viewBox only", shapes, map[string]any{}, func(t *testing.T, doc []byte) {
			if bytes.Contains(doc, []byte(` width=`)) || !bytes.Contains(doc, []byte(`viewBox="0 0 96 64"`)) {
				t.Errorf("want a viewBox and no size: %.200s", doc)
			}
		}},
		{"groupBy color: one g per colour, a path per shape", nested, map[string]any{"groupBy": "color"}, func(t *testing.T, doc []byte) {
			if g, p := count(doc, `<g `), count(doc, `<path `); g != 4 || p != 5 {
				t.Errorf("%d groups and %d paths, want 4 colours and 5 shapes", g, p)
			}
		}},
		{"groupBy none: one path per colour", nested, map[string]any{}, func(t *testing.T, doc []byte) {
			if g, p := count(doc, `<g `), count(doc, `<path `); g != 0 || p != 4 {
				t.Errorf("%d groups and %d paths, want 0 and 4", g, p)
			}
		}},
		{"strokeShapes with strokeWidth, overrideColor and nonScalingStroke", nested, map[string]any{"drawStyle": "strokeShapes", "strokeWidth": 2.5, "overrideColor": "rgb(10 20 30 / 50%)", "nonScalingStroke": true}, func(t *testing.T, doc []byte) {
			for _, s := range []string{`fill="none"`, `stroke-width="2.5"`, `stroke="#0a141e"`, `stroke-opacity=".502"`, `vector-effect="non-scaling-stroke"`} {
				if !bytes.Contains(doc, []byte(s)) {
					t.Errorf("no %s in %.300s", s, doc)
				}
			}
		}},
		{"strokeShapes keeps each shape's colour by default", nested, map[string]any{"drawStyle": "strokeShapes"}, func(t *testing.T, doc []byte) {
			if n := count(doc, `stroke="#`); n != 4 || bytes.Contains(doc, []byte(`vector-effect`)) {
				t.Errorf("%d stroke colours, want 4, and no vector-effect", n)
			}
		}},
		{"gapFiller off: no strokes", nested, map[string]any{"gapFiller": "off"}, func(t *testing.T, doc []byte) {
			if bytes.Contains(doc, []byte("stroke")) {
				t.Errorf("strokes without gap filler: %s", doc)
			}
		}},
		// The gap filler is the lower shape's own fill reaching under the upper one: the
		// white background's hole under the blue square (4..28) shrinks by its width.
		{"gapFiller on with gapFillerWidth", nested, map[string]any{"gapFiller": "on", "gapFillerWidth": 0.5}, func(t *testing.T, doc []byte) {
			if !bytes.Contains(doc, []byte(`M27.5 4.5v23H4.5V4.5Z`)) || bytes.Contains(doc, []byte("stroke")) {
				t.Errorf("no 0.5 px gap filler drawn as fill: %.300s", doc)
			}
		}},
		{"gapFiller auto: on at 1 px for flat shapes", nested, map[string]any{}, func(t *testing.T, doc []byte) {
			if !bytes.Contains(doc, []byte(`M27 5V27H5V5Z`)) || bytes.Contains(doc, []byte("stroke")) {
				t.Errorf("no 1 px gap filler drawn as fill: %.300s", doc)
			}
		}},
		{"gapFiller auto: off for hairlines", enginetest.Lines(96, 64), map[string]any{}, func(t *testing.T, doc []byte) {
			if bytes.Contains(doc, []byte("stroke")) {
				t.Errorf("gap filler on hairlines: %.300s", doc)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, trace(t, tt.img, tt.params)) })
	}
}

// TestAlpha checks that transparent areas stay transparent and half-transparent ones
// keep their opacity: an opaque band, a half-transparent one and a transparent one.
func TestAlpha(t *testing.T) {
	img := enginetest.Alpha(90, 30)
	for _, stacking := range []string{"cutouts", "stacked"} {
		doc := trace(t, img, map[string]any{"shapeStacking": stacking})
		if n := count(doc, `<path `); n != 2 {
			t.Errorf("%s: %d paths, want 2 (opaque and half-transparent band)\n%s", stacking, n, doc)
		}
		if !bytes.Contains(doc, []byte(`fill="#0000c8" fill-opacity=".502"`)) {
			t.Errorf("%s: no half-transparent blue band in %s", stacking, doc)
		}
		c, err := svgraster.Render(doc, 90, 30, svgraster.Over)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []int{15, 45, 75} {
			got := c.Pix[4*(15*90+x)+3]
			want := []float32{255, 128, 0}[x/30]
			if got < want-3 || got > want+3 {
				t.Errorf("%s: alpha at x = %d is %v, want %v", stacking, x, got, want)
			}
		}
	}
}

// TestTolerance checks that a looser tolerance gives fewer path commands on a curved shape.
func TestTolerance(t *testing.T) {
	img := enginetest.FlatShapes(160, 120)
	prev := -1
	for _, tol := range []float64{0, 0.5, 2, 5} {
		doc := trace(t, img, map[string]any{"tolerance": tol})
		info, err := enginetest.Inspect(doc)
		if err != nil {
			t.Fatal(err)
		}
		n := len(doc)
		t.Logf("tolerance %v: %d bytes, %d elements", tol, n, info.DrawingElements())
		if prev >= 0 && n > prev {
			t.Errorf("tolerance %v: %d bytes, more than %d at a smaller tolerance", tol, n, prev)
		}
		prev = n
	}
}

// TestMinRegion checks that specks smaller than minRegion disappear.
func TestMinRegion(t *testing.T) {
	img := enginetest.Noise(24, 24, 7)
	small := count(trace(t, img, map[string]any{"minRegion": 0.0, "groupBy": "color"}), `<path `)
	big := count(trace(t, img, map[string]any{"minRegion": 100.0, "groupBy": "color"}), `<path `)
	if big >= small || big > 24*24/100+1 {
		t.Errorf("minRegion 0: %d shapes, 100: %d shapes; want at most %d with 100", small, big, 24*24/100+1)
	}
}

// TestUnvalidatedParams checks that Params that did not come through validation (here
// with no values at all: every number 0, every string empty) still trace without a panic.
func TestUnvalidatedParams(t *testing.T) {
	e := engine.New()
	doc, err := e.Trace(context.Background(), testimg.Nested(40, 32), engine.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enginetest.Inspect(doc); err != nil {
		t.Errorf("bad SVG: %v", err)
	}
}
