package engine_test

import (
	"context"
	"image"
	"image/color"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/vtracer/engine"
	"github.com/tracecraft/tracecraft/plugins/vtracer/trace"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func TestConformance(t *testing.T) {
	enginetest.Run[engine.Params](t, engine.New)
}

func TestTraceCorpus(t *testing.T) { enginetest.TraceCorpusFromEnv(t, engine.New()) }

func params(t *testing.T, given map[string]any) engine.Params {
	t.Helper()
	p, problems := sdk.Decode[engine.Params](given)
	if problems != nil {
		t.Fatalf("%v", problems)
	}
	return p
}

// TestDescriptor checks the schema against the service specification, section 2.6.
func TestDescriptor(t *testing.T) {
	d := engine.New().Describe()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	type spec struct {
		name     string
		typ      sdk.ParamType
		min, max float64
		values   string
		def      any
		meaning  string
	}
	want := []spec{
		{"colorMode", sdk.Enum, 0, 0, "color,bw", "color", ""},
		{"hierarchical", sdk.Enum, 0, 0, "stacked,cutout", "stacked", ""},
		{"mode", sdk.Enum, 0, 0, "spline,polygon,pixel", "spline", ""},
		{"preset", sdk.Enum, 0, 0, "none,bw,poster,photo", "none", ""},
		{"filterSpeckle", sdk.Number, 0, 128, "", 4.0, "suppress speckles up to this pixel size"},
		{"colorPrecision", sdk.Number, 1, 8, "", 6.0, "significant bits for color quantization"},
		{"gradientStep", sdk.Number, 0, 256, "", 16.0, "color difference between gradient layers"},
		{"cornerThreshold", sdk.Number, 0, 180, "", 60.0, "angle threshold for corners, degrees"},
		{"segmentLength", sdk.Number, 3.5, 10, "", 4.0, "max segment length before subdivision"},
		{"spliceThreshold", sdk.Number, 0, 180, "", 45.0, "angle threshold for splicing"},
		{"pathPrecision", sdk.Number, 1, 8, "", 8.0, "decimal precision for path coordinates"},
		{"palette", sdk.List, 0, 0, "", nil, "the only colours the output may use"},
	}
	if len(d.Params) != len(want) {
		t.Fatalf("%d parameters, want %d", len(d.Params), len(want))
	}
	for i, w := range want {
		p := d.Params[i]
		if p.Name != w.name || p.Type != w.typ || p.Min != w.min || p.Max != w.max ||
			strings.Join(p.Values, ",") != w.values || p.Default != w.def || p.Step != 0 ||
			!strings.HasPrefix(p.Description, w.meaning) {
			t.Errorf("parameter %d = %+v, want %+v", i, p, w)
		}
	}
}

func TestPresets(t *testing.T) {
	def := trace.DefaultOptions()
	poster := def
	poster.ColorPrecision = 8
	photo := poster
	photo.FilterSpeckle, photo.LayerDifference, photo.CornerThreshold = 10, 48, 180
	bw := def
	bw.BW = true
	tests := []struct {
		name  string
		given map[string]any
		want  trace.Options
	}{
		{"defaults are VTracer's", nil, def},
		{"preset none", map[string]any{"preset": "none"}, def},
		{"preset bw", map[string]any{"preset": "bw"}, bw},
		{"preset poster", map[string]any{"preset": "poster"}, poster},
		{"preset photo", map[string]any{"preset": "photo"}, photo},
		{"explicit parameters win over the preset",
			map[string]any{"preset": "photo", "filterSpeckle": 2.0, "cornerThreshold": 90.0, "colorMode": "bw"},
			func() trace.Options { o := photo; o.FilterSpeckle, o.CornerThreshold, o.BW = 2, 90, true; return o }()},
		{"an explicit default still wins",
			map[string]any{"preset": "photo", "gradientStep": 16.0},
			func() trace.Options { o := photo; o.LayerDifference = 16; return o }()},
		{"every parameter",
			map[string]any{"colorMode": "color", "hierarchical": "cutout", "mode": "polygon", "filterSpeckle": 0.0,
				"colorPrecision": 3.0, "gradientStep": 0.0, "cornerThreshold": 10.0, "segmentLength": 3.5,
				"spliceThreshold": 180.0, "pathPrecision": 1.0},
			trace.Options{Cutout: true, Mode: trace.Polygon, FilterSpeckle: 0, ColorPrecision: 3, LayerDifference: 0,
				CornerThreshold: 10, LengthThreshold: 3.5, MaxIterations: 10, SpliceThreshold: 180, PathPrecision: 1}},
		{"pixel mode", map[string]any{"mode": "pixel"},
			func() trace.Options { o := def; o.Mode = trace.Pixel; return o }()},
		{"a palette, opaque", map[string]any{"palette": []any{"navy", "#ff000080"}},
			func() trace.Options {
				o := def
				o.Palette = []color.NRGBA{{0, 0, 128, 255}, {255, 0, 0, 255}}
				return o
			}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := engine.Options(params(t, tt.given))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Options = %+v\nwant      %+v", got, tt.want)
			}
		})
	}
}

func TestBadParamsGiveAnError(t *testing.T) {
	// Params that bypassed the host's validation (the zero value has no values at all).
	_, err := engine.New().Trace(context.Background(), enginetest.FlatShapes(8, 8), engine.Params{})
	if err == nil || sdk.ErrorCode(err) != sdk.CodeInvalidSettings {
		t.Errorf("err = %v, want an %s error", err, sdk.CodeInvalidSettings)
	}
}

// halfTransparent is w x h: transparent on the left half (stored as RGB 0,0,0, which
// VTracer's bw mode reads as black), the right half pink with a black square.
func halfTransparent(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := w / 2; x < w; x++ {
			c := color.NRGBA{R: 250, G: 200, B: 200, A: 255}
			if x >= w*5/8 && x < w*7/8 && y >= h/4 && y < h*3/4 {
				c = color.NRGBA{A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

var number = regexp.MustCompile(`-?[0-9]*\.?[0-9]+`)

// pathBounds returns the smallest and largest x of every point (end and control) of
// every path in svg, following relative commands.
func pathBounds(t *testing.T, svg []byte) (minX, maxX float64, paths int) {
	t.Helper()
	minX, maxX = 1e9, -1e9
	for _, m := range regexp.MustCompile(` d="([^"]*)"`).FindAllSubmatch(svg, -1) {
		paths++
		d := string(m[1])
		var cx, cy, sx, sy float64
		cmds := regexp.MustCompile(`[MmLlHhVvCcZz][^MmLlHhVvCcZz]*`).FindAllString(d, -1)
		for _, c := range cmds {
			op := c[0]
			var nums []float64
			for _, s := range number.FindAllString(c[1:], -1) {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatal(err)
				}
				nums = append(nums, v)
			}
			see := func(x float64) { minX, maxX = min(minX, x), max(maxX, x) }
			rel := op >= 'a'
			switch op | 0x20 {
			case 'm', 'l':
				for i := 0; i+1 < len(nums); i += 2 {
					if rel {
						cx, cy = cx+nums[i], cy+nums[i+1]
					} else {
						cx, cy = nums[i], nums[i+1]
					}
					if op|0x20 == 'm' && i == 0 {
						sx, sy = cx, cy
					}
					see(cx)
				}
			case 'h':
				for _, v := range nums {
					if rel {
						cx += v
					} else {
						cx = v
					}
					see(cx)
				}
			case 'v':
				for _, v := range nums {
					if rel {
						cy += v
					} else {
						cy = v
					}
				}
			case 'c':
				for i := 0; i+5 < len(nums); i += 6 {
					ox, oy := 0.0, 0.0
					if rel {
						ox, oy = cx, cy
					}
					see(ox + nums[i])
					see(ox + nums[i+2])
					cx, cy = ox+nums[i+4], oy+nums[i+5]
					see(cx)
				}
			case 'z':
				cx, cy = sx, sy
			}
		}
	}
	return minX, maxX, paths
}

// TestTransparentPixelsDrawNothing: no shape reaches into the transparent half, in
// colour and in bw mode, stacked and cut out, in every mode.
func TestTransparentPixelsDrawNothing(t *testing.T) {
	const w, h = 64, 32
	img := halfTransparent(w, h)
	for _, given := range []map[string]any{
		{},
		{"hierarchical": "cutout"},
		{"mode": "polygon"},
		{"mode": "pixel"},
		{"preset": "photo"},
		{"colorMode": "bw"},
		{"preset": "bw"},
		{"colorMode": "bw", "mode": "pixel"},
	} {
		out, err := engine.New().Trace(context.Background(), img, params(t, given))
		if err != nil {
			t.Fatalf("%v: %v", given, err)
		}
		minX, maxX, n := pathBounds(t, out)
		if n == 0 {
			t.Errorf("%v: nothing drawn", given)
			continue
		}
		// Splines may bow out a little past the pixels they follow; without corners
		// (the photo preset's corner threshold of 180) the corners of the image round
		// off, VTracer's way, bulging further.
		margin := 0.5
		if given["preset"] == "photo" {
			margin = 6
		}
		if minX < w/2-margin || maxX > w+margin {
			t.Errorf("%v: paths span x %v..%v, want within %d..%d\n%s", given, minX, maxX, w/2, w, out)
		}
		if given["colorMode"] == "bw" || given["preset"] == "bw" {
			// Only the black square is dark: it spans x 40..56.
			if minX < 40-0.5 || maxX > 56+0.5 || n != 1 || !regexp.MustCompile(`fill="#000(000)?"`).Match(out) {
				t.Errorf("%v: want one black path over x 40..56, got %d paths over %v..%v", given, n, minX, maxX)
			}
		}
	}
}

func TestModes(t *testing.T) {
	img := enginetest.FlatShapes(48, 32)
	trace := func(given map[string]any) string {
		out, err := engine.New().Trace(context.Background(), img, params(t, given))
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	d := regexp.MustCompile(` d="([^"]*)"`)
	commands := func(svg string) string {
		var all string
		for _, m := range d.FindAllStringSubmatch(svg, -1) {
			all += regexp.MustCompile(`[^A-Za-z]`).ReplaceAllString(m[1], "")
		}
		return all
	}
	if c := commands(trace(map[string]any{"mode": "pixel"})); strings.ContainsAny(c, "CcLlSsQq") || c == "" {
		t.Errorf("pixel mode draws %q, want only moves, horizontal and vertical lines", c)
	}
	if c := commands(trace(map[string]any{"mode": "polygon"})); strings.ContainsAny(c, "CcSsQq") || c == "" {
		t.Errorf("polygon mode draws %q, want no curves", c)
	}
	if c := commands(trace(nil)); !strings.ContainsAny(c, "Cc") {
		t.Errorf("spline mode draws %q, want curves", c)
	}
	// Cut-out shapes never overlap: the picture has the same shapes, so at least as
	// many subpaths (holes) as stacked.
	if s, c := strings.Count(commands(trace(nil)), "M")+strings.Count(commands(trace(nil)), "m"),
		strings.Count(commands(trace(map[string]any{"hierarchical": "cutout"})), "M")+
			strings.Count(commands(trace(map[string]any{"hierarchical": "cutout"})), "m"); c <= s {
		t.Errorf("cutout has %d subpaths, stacked %d: want more holes cut out", c, s)
	}
}

func TestPathPrecision(t *testing.T) {
	img := enginetest.Ring(40)
	decimals := regexp.MustCompile(`\.([0-9]+)`)
	for _, prec := range []float64{1, 2, 3, 8} {
		out, err := engine.New().Trace(context.Background(), img, params(t, map[string]any{"pathPrecision": prec}))
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for _, m := range decimals.FindAllStringSubmatch(regexp.MustCompile(` d="[^"]*"`).FindString(string(out)), -1) {
			longest = max(longest, len(m[1]))
		}
		if longest > int(prec) || longest == 0 {
			t.Errorf("pathPrecision %v: longest fraction has %d digits", prec, longest)
		}
	}
}
