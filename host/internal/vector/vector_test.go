package vector

import (
	"bytes"
	"context"
	"image/color"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const sample = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 20" width="40" height="20">
<title>t</title>
<g transform="translate(10 0)" fill="#00f" opacity=".5">
  <rect x="0" y="0" width="10" height="10" fill="red" fill-opacity="0.5"/>
</g>
<circle cx="5" cy="15" r="4" style="fill:rgb(0,128,0)"/>
<path d="m20 10h5v5h-5z M30 10 a5 5 0 0 1 5 5" fill="none" stroke="black" stroke-width="2" stroke-linecap="round"/>
<polygon points="0,0 2,0 2,2" fill-rule="evenodd" display="none"/>
<line x1="0" y1="19" x2="40" y2="19" stroke="currentColor" color="#123456"/>
</svg>`

func TestParseResolvesStylesAndTransforms(t *testing.T) {
	d, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if d.Width != 40 || d.Height != 20 || len(d.Shapes) != 4 {
		t.Fatalf("viewBox %gx%g, %d shapes; want 40x20 and 4 shapes", d.Width, d.Height, len(d.Shapes))
	}
	rect := d.Shapes[0]
	if rect.Fill == nil || *rect.Fill != (color.NRGBA{255, 0, 0, 64}) || rect.Path[0].P[0] != (Point{10, 0}) {
		t.Errorf("rect: fill %v, first point %v; want red at alpha 64, at 10,0", rect.Fill, rect.Path[0].P[0])
	}
	if c := d.Shapes[1].Fill; c == nil || *c != (color.NRGBA{0, 128, 0, 255}) {
		t.Errorf("circle fill %v", c)
	}
	p := d.Shapes[2]
	if p.Fill != nil || p.Stroke == nil || p.StrokeWidth != 2 || p.Cap != RoundCap {
		t.Errorf("path: %+v", p)
	}
	if end := p.Path[len(p.Path)-1].End(); math.Abs(end.X-35) > 1e-9 || math.Abs(end.Y-15) > 1e-9 {
		t.Errorf("the arc ends at %v, want 35,15", end)
	}
	if c := d.Shapes[3].Stroke; c == nil || *c != (color.NRGBA{0x12, 0x34, 0x56, 255}) || d.Shapes[3].Fill != nil {
		t.Errorf("line: stroke %v fill %v", c, d.Shapes[3].Fill)
	}
}

func TestPathDataForms(t *testing.T) {
	tests := []struct {
		d   string
		ops string
		end Point
	}{
		{"M0 0L10 0 10 10z", "MLLZ", Point{0, 0}},
		{"m1 1 2 0 0 2", "MLL", Point{3, 3}},
		{"M0,0C1,1 2,2 3,3S5,5 6,6", "MCC", Point{6, 6}},
		{"M0 0Q5 5 10 0T20 0", "MCC", Point{20, 0}},
		{"M0 0A5 5 0 1 1 10 0", "MCC", Point{10, 0}},
		{"M0 0a5 5 0 0010 0", "MCC", Point{10, 0}},
		{"M.5.5-1-1", "ML", Point{-1, -1}},
		{"M0 0H5V5h-5v-5", "MLLLL", Point{0, 0}},
	}
	for _, tt := range tests {
		p, err := parsePathData(tt.d)
		if err != nil {
			t.Errorf("%s: %v", tt.d, err)
			continue
		}
		var ops strings.Builder
		for _, s := range p {
			ops.WriteByte("MLCZ"[s.Op])
		}
		last := p[len(p)-1]
		if last.Op == Close {
			last = p[0]
		}
		if ops.String() != tt.ops || math.Abs(last.End().X-tt.end.X) > 1e-9 || math.Abs(last.End().Y-tt.end.Y) > 1e-9 {
			t.Errorf("%s: ops %s ending %v, want %s ending %v", tt.d, ops.String(), last.End(), tt.ops, tt.end)
		}
	}
	for _, bad := range []string{"0 0", "M0", "M0 0 L", "Z 1", "M0 0A5 5 0 2 1 1 1"} {
		if _, err := parsePathData(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestRasterizePaintsWhereTheSVGDoes(t *testing.T) {
	d, err := Parse([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10"><rect x="10" width="10" height="10" fill="#f00"/>` +
		`<path d="M0 0h10v10H0z M2 2h6v6H2z" fill-rule="evenodd" fill="#00f"/></svg>`))
	if err != nil {
		t.Fatal(err)
	}
	img, err := Rasterize(context.Background(), d, 40, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		x, y int
		want color.RGBA
	}{{30, 10, color.RGBA{255, 0, 0, 255}}, {1, 1, color.RGBA{0, 0, 255, 255}}, {10, 10, color.RGBA{}}} {
		if got := img.RGBAAt(tt.x, tt.y); got != tt.want {
			t.Errorf("pixel %d,%d is %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

func TestPDFCrossReferenceIsExact(t *testing.T) {
	d, _ := Parse([]byte(sample))
	var b bytes.Buffer
	if err := WritePDF(&b, d, 300, 150); err != nil {
		t.Fatal(err)
	}
	pdf := b.Bytes()
	m := regexp.MustCompile(`startxref\n(\d+)\n`).FindSubmatch(pdf)
	off, _ := strconv.Atoi(string(m[1]))
	if !bytes.HasPrefix(pdf[off:], []byte("xref\n")) {
		t.Fatalf("startxref %d does not point at the xref table", off)
	}
	entries := regexp.MustCompile(`(\d{10}) 00000 n `).FindAllSubmatch(pdf, -1)
	for i, e := range entries {
		o, _ := strconv.Atoi(string(e[1]))
		if want := strconv.Itoa(i+1) + " 0 obj"; !bytes.HasPrefix(pdf[o:], []byte(want)) {
			t.Errorf("xref entry %d points at %q", i+1, pdf[o:o+10])
		}
	}
	if !bytes.Contains(pdf, []byte("/MediaBox [0 0 300 150]")) {
		t.Error("the page is not 300 x 150 points")
	}
	var again bytes.Buffer
	WritePDF(&again, d, 300, 150)
	if !bytes.Equal(pdf, again.Bytes()) {
		t.Error("two writes of one document differ")
	}
}

func TestSetSizeReplacesWidthAndHeightOnly(t *testing.T) {
	in := `<svg xmlns="http://www.w3.org/2000/svg" width="40" viewBox="0 0 40 20" height='20'><rect width="3"/></svg>`
	got := string(SetSize([]byte(in), "10mm", "5mm"))
	want := `<svg width="10mm" height="5mm" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 20"><rect width="3"/></svg>`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestDXFHasALayerPerColourAndClosedOutlines(t *testing.T) {
	d, err := Parse([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10">` +
		`<path d="M0 0h10v10H0z M2 2h6v6H2z" fill="#00f" stroke="#00f"/><circle cx="15" cy="5" r="4" fill="#f00"/>` +
		`<path d="M0 10L20 0" stroke="#0f0" fill="none"/></svg>`))
	if err != nil {
		t.Fatal(err)
	}
	lines := d.Polylines(200, 100)
	count := map[string][2]int{}
	for _, l := range lines {
		c := count[DXFLayer(l.Color)]
		if l.Closed {
			c[0]++
		} else {
			c[1]++
		}
		count[DXFLayer(l.Color)] = c
		for _, p := range l.Points {
			if p.X < -1e-9 || p.X > 200+1e-9 || p.Y < -1e-9 || p.Y > 100+1e-9 {
				t.Errorf("point %v outside the 200 x 100 drawing", p)
			}
		}
	}
	want := map[string][2]int{"C-0000FF": {2, 0}, "C-FF0000": {1, 0}, "C-00FF00": {0, 1}}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("closed/open polylines per layer %v, want %v", count, want)
	}
	// The circle's flattened points are within the tolerance of its radius (40 units).
	for _, l := range lines {
		if DXFLayer(l.Color) != "C-FF0000" {
			continue
		}
		for _, p := range l.Points {
			if r := math.Hypot(p.X-150, p.Y-50); math.Abs(r-40) > 0.05 {
				t.Errorf("circle point at radius %g, want 40 (the Bézier circle is within 0.03%%)", r)
			}
		}
	}
	var b bytes.Buffer
	if err := WriteDXF(&b, d, 200, 100, UnitsMM); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("$INSUNITS\n70\n4\n")) || !bytes.HasSuffix(b.Bytes(), []byte("0\nEOF\n")) {
		t.Error("no $INSUNITS 4 or no EOF")
	}
}

// TestPaintSamplesSixteenPointsAPixel checks Paint's anti-aliasing: a pixel covered at n
// of its 4 x 4 sample points gets n/16 of the colour, as resvg's rasteriser gives it, and
// strokes up to a pixel wide are hairlines.
func TestPaintSamplesSixteenPointsAPixel(t *testing.T) {
	for _, c := range []struct {
		name, shape string
		want        uint8 // the red channel of pixel 0,0 (white is 255, black 0)
	}{
		{"a whole pixel is the colour", `<path d="M0 0H1V1H0Z"/>`, 0},
		{"a pixel's left 0.3 covers one column of samples", `<path d="M0 0H.3V1H0Z"/>`, 191},
		{"its left half covers two", `<path d="M0 0H.5V1H0Z"/>`, 127},
		{"a strip between samples covers none", `<path d="M.13 0H.37V1H.13Z"/>`, 255},
		{"a translucent fill scales the coverage", `<path fill-opacity=".5" d="M0 0H.5V1H0Z"/>`, 191},
		{"an even-odd hole leaves its samples", `<path fill-rule="evenodd" d="M0 0H1V1H0ZM0 0H.5V1H0Z"/>`, 127},
		{"a non-zero hole of the same direction fills them", `<path d="M0 0H1V1H0ZM0 0H.5V1H0Z"/>`, 0},
		{"a one-pixel stroke along a row's middle is a hairline filling that row", `<path fill="none" stroke="#000" d="M0 .5H2"/>`, 0},
		{"a half-pixel stroke is a hairline of half the colour", `<path fill="none" stroke="#000" stroke-width=".5" d="M0 .5H2"/>`, 128},
		{"a hairline between two rows covers each by half", `<path fill="none" stroke="#000" d="M0 1H1"/>`, 128},
	} {
		t.Run(c.name, func(t *testing.T) {
			svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2">` + c.shape + `</svg>`
			doc, err := Parse([]byte(svg))
			if err != nil {
				t.Fatal(err)
			}
			img, err := Paint(context.Background(), doc, 2, 2, 0, 2, color.RGBA{255, 255, 255, 255})
			if err != nil {
				t.Fatal(err)
			}
			if got := img.RGBAAt(0, 0); got.R != c.want || got.A != 255 {
				t.Errorf("pixel 0,0 is %v, want red %d, opaque", got, c.want)
			}
			if got := img.RGBAAt(1, 1); got != (color.RGBA{255, 255, 255, 255}) {
				t.Errorf("pixel 1,1 is %v, want white", got)
			}
		})
	}
}

// TestPaintBlendsOverTransparency checks Paint on a transparent raster, as the PNG is
// written: premultiplied channels, a shape's coverage and alpha become the pixel's alpha,
// and a shape over another blends source over.
func TestPaintBlendsOverTransparency(t *testing.T) {
	for _, c := range []struct {
		name, shape string
		want        color.RGBA // pixel 0,0, premultiplied
	}{
		{"nothing drawn stays transparent", ``, color.RGBA{}},
		{"a whole pixel is the colour, opaque", `<path fill="#f00" d="M0 0H1V1H0Z"/>`, color.RGBA{255, 0, 0, 255}},
		{"half its samples give half the alpha", `<path fill="#f00" d="M0 0H.5V1H0Z"/>`, color.RGBA{128, 0, 0, 128}},
		{"a translucent fill gives its alpha", `<path fill="#00f" fill-opacity=".5" d="M0 0H1V1H0Z"/>`, color.RGBA{0, 0, 128, 128}},
		{"a translucent fill over an opaque one blends", `<path fill="#f00" d="M0 0H1V1H0Z"/><path fill="#00f" fill-opacity=".5" d="M0 0H1V1H0Z"/>`, color.RGBA{127, 0, 128, 255}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Parse([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2">` + c.shape + `</svg>`))
			if err != nil {
				t.Fatal(err)
			}
			img, err := Rasterize(context.Background(), doc, 2, 2)
			if err != nil {
				t.Fatal(err)
			}
			if got := img.RGBAAt(0, 0); got != c.want {
				t.Errorf("pixel 0,0 is %v, want %v", got, c.want)
			}
			if got := img.RGBAAt(1, 1); got != (color.RGBA{}) {
				t.Errorf("pixel 1,1 is %v, want transparent", got)
			}
		})
	}
}
