package main

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// exportHost is a host with the bundled tracecraft and potrace engines.
func exportHost(t *testing.T) *host {
	dir := t.TempDir()
	for _, e := range []string{"tracecraft", "potrace"} {
		testbin.Install(t, testbin.Build(t, "./plugins/"+e), dir, e)
	}
	return startHost(t, dir, "", "--workers", "2")
}

// logoPNG draws a w x h logo: a red disc and a blue bar on white.
func logoPNG(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{255, 255, 255, 255}
			dx, dy := float64(x-w/3), float64(y-h/2)
			if math.Hypot(dx, dy) < float64(h)/3 {
				c = color.NRGBA{220, 30, 30, 255}
			} else if x > w*2/3 && x < w*5/6 && y > h/5 && y < h*4/5 {
				c = color.NRGBA{20, 40, 200, 255}
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

func TestOutputFormatsByAcceptAndSettings(t *testing.T) {
	t.Parallel()
	h := exportHost(t)
	img := logoPNG(t, 90, 60)
	magic := map[string]string{"svg": "<svg", "pdf": "%PDF-1.4", "eps": "%!PS-Adobe-3.0 EPSF-3.0", "png": "\x89PNG", "dxf": "0\nSECTION\n2\nHEADER"}

	// The JSON answer names its format and, beside the svg, carries the file in base64.
	for _, f := range []string{"svg", "pdf", "eps", "dxf", "png"} {
		r := h.vectorize(img, `{"engine":"tracecraft","output":{"format":"`+f+`"}}`)
		if r.status != 200 || r.json["format"] != f || r.json["fileName"] != "trace."+f {
			t.Fatalf("%s as JSON: %s", f, r)
		}
		svg, _ := r.json["svg"].(string)
		if !strings.HasPrefix(svg, "<svg") {
			t.Errorf("%s as JSON: no svg", f)
		}
		file := []byte(svg)
		if f != "svg" {
			var err error
			file, err = base64.StdEncoding.DecodeString(r.json["file"].(string))
			if err != nil {
				t.Fatalf("%s: file is not base64: %v", f, err)
			}
		}
		if !bytes.HasPrefix(file, []byte(magic[f])) || r.json["fileSize"] != float64(len(file)) {
			t.Errorf("%s as JSON: file starts %q, size %v of %d", f, file[:min(12, len(file))], r.json["fileSize"], len(file))
		}
	}

	// Accept alone chooses the format; q-values count; a tie goes to JSON.
	tests := []struct {
		settings, accept, ctype, format string
	}{
		{`{"engine":"potrace"}`, "application/pdf", "application/pdf", "pdf"},
		{`{"engine":"potrace"}`, "application/postscript", "application/postscript", "eps"},
		{`{"engine":"potrace"}`, "image/png;q=0.9, application/json;q=0.5", "image/png", "png"},
		{`{"engine":"potrace"}`, "image/svg+xml", "image/svg+xml", "svg"},
		{`{"engine":"potrace"}`, "application/dxf", "application/dxf", "dxf"},
		{`{"engine":"potrace","output":{"format":"dxf"}}`, "image/vnd.dxf", "image/vnd.dxf", "dxf"},
		{`{"engine":"potrace","output":{"format":"pdf"}}`, "image/*, application/pdf;q=0.8, application/json;q=0.5", "application/pdf", "pdf"},
		{`{"engine":"potrace","output":{"format":"png"}}`, "image/*", "image/png", "png"},
		{`{"engine":"potrace","output":{"format":"pdf"}}`, "application/pdf, application/json", "application/json; charset=utf-8", ""},
		{`{"engine":"potrace"}`, "*/*", "application/json; charset=utf-8", ""},
	}
	for _, tt := range tests {
		r := h.vectorize(img, tt.settings, "Accept", tt.accept)
		if r.status != 200 || r.header.Get("Content-Type") != tt.ctype {
			t.Errorf("%s, Accept %s: %d %s, want %s", tt.settings, tt.accept, r.status, r.header.Get("Content-Type"), tt.ctype)
			continue
		}
		if tt.format == "" {
			continue
		}
		if cd := r.header.Get("Content-Disposition"); cd != `inline; filename="trace.`+tt.format+`"` {
			t.Errorf("Accept %s: Content-Disposition %q", tt.accept, cd)
		}
		if !bytes.HasPrefix(r.body, []byte(magic[tt.format])) || r.header.Get("X-Tracecraft-Engine") != "potrace" {
			t.Errorf("Accept %s: body starts %q", tt.accept, r.body[:min(12, len(r.body))])
		}
		if tt.format == "png" {
			p, err := png.Decode(bytes.NewReader(r.body))
			if err != nil || p.Bounds().Dx() != 90 || p.Bounds().Dy() != 60 {
				t.Errorf("PNG: %v, %v", err, p.Bounds())
			}
		}
	}
}

func TestAcceptThatNothingSatisfiesIs406(t *testing.T) {
	t.Parallel()
	h := exportHost(t)
	img := logoPNG(t, 30, 20)
	tests := []struct {
		settings, accept string
		offers           []string
	}{
		{`{"engine":"potrace"}`, "text/html", []string{"application/json", "image/svg+xml", "application/pdf", "application/postscript", "image/vnd.dxf", "application/dxf", "image/png"}},
		{`{"engine":"potrace","output":{"format":"pdf"}}`, "image/svg+xml", []string{"application/json", "application/pdf"}},
		{`{"engine":"potrace"}`, "application/json;q=0, image/*;q=0", []string{"application/json", "image/svg+xml", "application/pdf", "application/postscript", "image/vnd.dxf", "application/dxf", "image/png"}},
	}
	for _, tt := range tests {
		r := h.vectorize(img, tt.settings, "Accept", tt.accept)
		if r.status != 406 || r.errorCode() != "not_acceptable" || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("Accept %s: %s", tt.accept, r)
			continue
		}
		e := r.json["error"].(map[string]any)
		d := e["details"].([]any)[0].(map[string]any)
		var got []string
		for _, v := range d["value"].([]any) {
			got = append(got, v.(string))
		}
		if d["field"] != "Accept" || !slices.Equal(got, tt.offers) {
			t.Errorf("Accept %s: details %v, want the offers %v", tt.accept, d, tt.offers)
		}
	}
}

func TestInvalidOutputSettingsListEveryProblem(t *testing.T) {
	t.Parallel()
	h := exportHost(t)
	img := logoPNG(t, 30, 20)
	tests := []struct {
		settings string
		fields   []string
	}{
		{`{"output":"pdf"}`, []string{"output"}},
		{`{"output":{"format":"PDF","colour":1}}`, []string{"output.format", "output.colour"}},
		{`{"output":{"format":7,"size":{"width":-1,"height":"9","unit":"ft","dpi":1e6,"x":1}}}`,
			[]string{"output.format", "output.size.width", "output.size.height", "output.size.unit", "output.size.dpi", "output.size.x"}},
		{`{"output":{"size":{}}}`, []string{"output.size"}},
		{`{"output":{"size":{"width":200000}}}`, []string{"output.size.width"}},
		// A PNG over the pixel cap is refused before the trace.
		{`{"output":{"format":"png","size":{"width":100,"unit":"in","dpi":600}}}`, []string{"output.size"}},
	}
	for _, tt := range tests {
		r := h.vectorize(img, tt.settings)
		if r.status != 400 || r.errorCode() != "invalid_settings" || !slices.Equal(r.details(), tt.fields) {
			t.Errorf("%s: %s; want invalid_settings on %v", tt.settings, r, tt.fields)
		}
	}
}

func TestOutputSizeSetsTheSVGsUnits(t *testing.T) {
	t.Parallel()
	h := exportHost(t)
	img := logoPNG(t, 90, 60)
	r := h.vectorize(img, `{"engine":"potrace","output":{"size":{"width":30,"unit":"mm"}}}`, "Accept", "image/svg+xml")
	root := regexp.MustCompile(`<svg[^>]*>`).Find(r.body)
	if r.status != 200 || !bytes.Contains(root, []byte(`width="30mm" height="20mm"`)) || !bytes.Contains(root, []byte(`viewBox="0 0 90 60"`)) {
		t.Errorf("SVG root %s (%s)", root, r)
	}
	r = h.vectorize(img, `{"engine":"potrace","output":{"format":"png","size":{"height":2,"unit":"cm","dpi":127}}}`, "Accept", "image/png")
	p, err := png.Decode(bytes.NewReader(r.body))
	if err != nil || p.Bounds().Dx() != 150 || p.Bounds().Dy() != 100 {
		t.Errorf("PNG of 2 cm at 127 dpi: %v %v, want 150 x 100", err, p)
	}
}

func TestTraceCommandWritesTheFormatOfTheFileName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testbin.Install(t, testbin.Build(t, "./plugins/potrace"), dir, "potrace")
	work := t.TempDir()
	in := filepath.Join(work, "in.png")
	if err := os.WriteFile(in, logoPNG(t, 90, 60), 0o644); err != nil {
		t.Fatal(err)
	}
	magic := map[string]string{"svg": "<svg", "pdf": "%PDF-1.4", "eps": "%!PS-Adobe-3.0 EPSF-3.0", "png": "\x89PNG", "dxf": "0\nSECTION\n2\nHEADER"}
	for f, m := range magic {
		out := filepath.Join(work, "logo."+f)
		_, errOut, code := tracecraft(t, nil, "trace", "--settings", `{"engine":"potrace"}`, "--plugins-dir", dir, "-o", out, in)
		data, _ := os.ReadFile(out)
		if code != 0 || !bytes.HasPrefix(data, []byte(m)) {
			t.Errorf("-o logo.%s: exit %d, %s, file starts %q", f, code, errOut, data[:min(12, len(data))])
		}
	}
	// A name that disagrees with output.format is refused.
	_, errOut, code := tracecraft(t, nil, "trace", "--settings", `{"engine":"potrace","output":{"format":"png"}}`, "--plugins-dir", dir, "-o", filepath.Join(work, "x.pdf"), in)
	if code == 0 || !strings.Contains(errOut, "output.format") {
		t.Errorf("-o x.pdf with format png: exit %d, %s", code, errOut)
	}
}
