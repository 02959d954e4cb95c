package engine_test

import (
	"context"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/svgraster"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/render"
	"github.com/tracecraft/tracecraft/sdk"
)

// seamColors are the flat colours of seamImage: dark, so that any white showing through a
// seam stands out.
var seamColors = []color.NRGBA{{20, 30, 80, 255}, {150, 20, 30, 255}, {20, 110, 40, 255}}

// seamImage draws flat abutting regions as an SVG renderer draws stacked shapes, exactly
// anti-aliased and without seams: a background, a slanted band across it and a disc
// overlapping the band.
func seamImage(w, h int) *image.NRGBA {
	c := render.NewCanvas(w, h)
	full := image.Rect(0, 0, w, h)
	pm := func(k int) [4]float32 {
		col := seamColors[k]
		return [4]float32{float32(col.R), float32(col.G), float32(col.B), 255}
	}
	c.Over([]fit.Path{{From: fit.Point{}, Segs: []fit.Segment{{To: fit.Point{X: float64(w)}}, {To: fit.Point{X: float64(w), Y: float64(h)}}, {To: fit.Point{Y: float64(h)}}}}}, full, pm(0))
	band := fit.Path{From: fit.Point{X: -5, Y: 0.3 * float64(h)}, Segs: []fit.Segment{
		{To: fit.Point{X: float64(w) + 5, Y: 0.55 * float64(h)}},
		{To: fit.Point{X: float64(w) + 5, Y: 0.75 * float64(h)}},
		{To: fit.Point{X: -5, Y: 0.5 * float64(h)}}}}
	c.Over([]fit.Path{band}, full, pm(2))
	cx, cy, r := 0.37*float64(w), 0.45*float64(h), 0.22*float64(h)
	disc := fit.Path{From: fit.Point{X: cx + r, Y: cy}}
	for k := 1; k <= 256; k++ {
		a := 2 * math.Pi * float64(k) / 256
		disc.Segs = append(disc.Segs, fit.Segment{To: fit.Point{X: cx + r*math.Cos(a), Y: cy + r*math.Sin(a)}})
	}
	c.Over([]fit.Path{disc}, full, pm(1))
	return c.NRGBA()
}

// hullDistance returns how far (in 0..255 RGB units) c lies from every blend of the flat
// colours: the distance to the triangle they span.
func hullDistance(c color.NRGBA, flat []color.NRGBA) float64 {
	v := func(k color.NRGBA) [3]float64 { return [3]float64{float64(k.R), float64(k.G), float64(k.B)} }
	p := v(c)
	best := math.Inf(1)
	for i := range flat {
		for j := i + 1; j < len(flat); j++ {
			best = math.Min(best, segmentDistance(p, v(flat[i]), v(flat[j])))
		}
	}
	if len(flat) == 3 {
		best = math.Min(best, triangleDistance(p, v(flat[0]), v(flat[1]), v(flat[2])))
	}
	return best
}

func sub3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot3(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func segmentDistance(p, a, b [3]float64) float64 {
	ab, ap := sub3(b, a), sub3(p, a)
	t := math.Max(0, math.Min(1, dot3(ap, ab)/dot3(ab, ab)))
	d := sub3(ap, [3]float64{ab[0] * t, ab[1] * t, ab[2] * t})
	return math.Sqrt(dot3(d, d))
}

// triangleDistance returns the distance from p to triangle abc when p projects inside
// it, and +Inf otherwise (the edges are measured separately).
func triangleDistance(p, a, b, c [3]float64) float64 {
	u, v, w := sub3(b, a), sub3(c, a), sub3(p, a)
	uu, uv, vv, wu, wv := dot3(u, u), dot3(u, v), dot3(v, v), dot3(w, u), dot3(w, v)
	den := uu*vv - uv*uv
	s := (vv*wu - uv*wv) / den
	t := (uu*wv - uv*wu) / den
	if s < 0 || t < 0 || s+t > 1 {
		return math.Inf(1)
	}
	q := [3]float64{a[0] + s*u[0] + t*v[0], a[1] + s*u[1] + t*v[1], a[2] + s*u[2] + t*v[2]}
	d := sub3(p, q)
	return math.Sqrt(dot3(d, d))
}

// worstSeam renders doc over white and returns the largest distance of any pixel from the
// blends of the flat colours, and where it is.
func worstSeam(t *testing.T, doc []byte, w, h int) (float64, image.Point) {
	t.Helper()
	c, err := svgraster.Render(doc, w, h, svgraster.Over)
	if err != nil {
		t.Fatal(err)
	}
	img := svgraster.OverBackground(c, color.NRGBA{255, 255, 255, 255})
	worst, at := 0.0, image.Point{}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if d := hullDistance(img.NRGBAAt(x, y), seamColors); d > worst {
				worst, at = d, image.Pt(x, y)
			}
		}
	}
	return worst, at
}

// maxBlendError is the largest distance from the blends of the flat colours that
// anti-aliasing and 8-bit rounding explain.
const maxBlendError = 6.0

// TestGapFillerHidesSeams traces flat abutting regions and renders the SVG as an SVG
// renderer paints it (each shape over the ones before, over white). Without the gap
// filler, white shows through the anti-aliased shared edges; with it, every pixel is a
// blend of the neighbouring colours, as anti-aliasing of one edge gives.
func TestGapFillerHidesSeams(t *testing.T) {
	const w, h = 120, 90
	img := seamImage(w, h)
	e := engine.New()
	// A stroke narrower than a pixel only narrows the seam: the shape below reaches
	// gapFillerWidth under the one above, and a pixel the boundary crosses can reach
	// up to about a pixel from it.
	tests := []struct {
		name      string
		params    map[string]any
		wantSeams bool
	}{
		{"gap filler off shows the seam", map[string]any{"gapFiller": "off"}, true},
		{"gap filler on, 0.25 px (the default width) narrows it", map[string]any{"gapFiller": "on"}, true},
		{"gap filler on, 1 px wide, hides it", map[string]any{"gapFiller": "on", "gapFillerWidth": 1.0}, false},
		{"gap filler on, 2 px wide, hides it", map[string]any{"gapFiller": "on", "gapFillerWidth": 2.0}, false},
		{"gap filler auto (the default) hides it", map[string]any{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, problems := sdk.Decode[engine.Params](tt.params)
			if problems != nil {
				t.Fatal(problems)
			}
			doc, err := e.Trace(context.Background(), img, p)
			if err != nil {
				t.Fatal(err)
			}
			if dir := os.Getenv("TRACECRAFT_SEAM_OUT"); dir != "" {
				// For checking by hand with resvg.
				_ = os.WriteFile(filepath.Join(dir, sanitize(tt.name)+".svg"), doc, 0o644)
			}
			worst, at := worstSeam(t, doc, w, h)
			if tt.wantSeams && worst <= 3*maxBlendError {
				t.Errorf("worst pixel %v is %.1f from the blends of its neighbours, want a visible seam (> %v)", at, worst, 3*maxBlendError)
			}
			if !tt.wantSeams && worst > maxBlendError {
				t.Errorf("worst pixel %v is %.1f from the blends of its neighbours, want at most %v (no seam)", at, worst, maxBlendError)
			}
			t.Logf("worst pixel %v: %.1f", at, worst)
		})
	}
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}
