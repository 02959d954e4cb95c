package output

import (
	"errors"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

func TestNegotiateWeighsQValues(t *testing.T) {
	pdf := Options{Format: PDF, FormatGiven: true}
	tests := []struct {
		accept string
		opts   Options
		bare   bool
		format Format
		mt     string
	}{
		{"", Default(), false, SVG, JSON},
		{"*/*", Default(), false, SVG, JSON},
		{"image/svg+xml", Default(), true, SVG, "image/svg+xml"},
		{"image/svg+xml, application/json", Default(), false, SVG, JSON},
		{"application/json;q=0.5, image/svg+xml", Default(), true, SVG, "image/svg+xml"},
		{"image/svg+xml;q=0.4, application/json;q=0.9", Default(), false, SVG, JSON},
		{"application/pdf", Default(), true, PDF, "application/pdf"},
		{"image/png;q=0.8, application/pdf;q=0.9", Default(), true, PDF, "application/pdf"},
		{"application/postscript", Default(), true, EPS, "application/postscript"},
		{"application/dxf", Default(), true, DXF, "application/dxf"},
		{"image/vnd.dxf", Default(), true, DXF, "image/vnd.dxf"},
		{"IMAGE/PNG", Default(), true, PNG, "image/png"},
		{"image/*", Default(), true, SVG, "image/svg+xml"},
		{"image/*", Options{Format: PNG, FormatGiven: true}, true, PNG, "image/png"},
		{"*/*", pdf, false, PDF, JSON},
		{"application/pdf", pdf, true, PDF, "application/pdf"},
		{"application/pdf, application/json", pdf, false, PDF, JSON},
		{"image/png, */*;q=0.1", pdf, false, PDF, JSON},
		{"text/html, application/*;q=0.2", pdf, false, PDF, JSON},
		{"image/png;q=0, */*", Default(), false, SVG, JSON},
	}
	for _, tt := range tests {
		got, err := Negotiate(tt.accept, tt.opts)
		if err != nil {
			t.Errorf("Accept %q, %+v: %v", tt.accept, tt.opts, err)
			continue
		}
		if got.Bare != tt.bare || got.Format != tt.format || got.MediaType != tt.mt {
			t.Errorf("Accept %q, format %q: got %+v, want bare %v format %s type %s", tt.accept, tt.opts.Format, got, tt.bare, tt.format, tt.mt)
		}
	}
}

func TestNegotiateRefusesWhatNothingSatisfies(t *testing.T) {
	tests := []struct {
		accept string
		opts   Options
		offers string
	}{
		{"text/html", Default(), "application/json,image/svg+xml,application/pdf,application/postscript,image/vnd.dxf,application/dxf,image/png"},
		{"application/json;q=0, image/svg+xml;q=0", Default(), "application/json,image/svg+xml,application/pdf,application/postscript,image/vnd.dxf,application/dxf,image/png"},
		{"image/svg+xml", Options{Format: PDF, FormatGiven: true}, "application/json,application/pdf"},
		{"garbage", Default(), "application/json,image/svg+xml,application/pdf,application/postscript,image/vnd.dxf,application/dxf,image/png"},
	}
	for _, tt := range tests {
		_, err := Negotiate(tt.accept, tt.opts)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.NotAcceptable || fault.Status(fe.Code) != 406 {
			t.Errorf("Accept %q: got %v, want not_acceptable (406)", tt.accept, err)
			continue
		}
		var got []string
		for _, v := range fe.Details[0].Value.([]any) {
			got = append(got, v.(string))
		}
		if strings.Join(got, ",") != tt.offers {
			t.Errorf("Accept %q: details list %v, want %s", tt.accept, got, tt.offers)
		}
	}
}

func TestSizesKeepTheAspectAndConvertUnits(t *testing.T) {
	tests := []struct {
		size       *Size
		wPt, hPt   float64
		wPix, hPix int
	}{
		{nil, 150, 75, 200, 100},
		{&Size{Width: 100, Unit: "px", DPI: 96}, 75, 37.5, 100, 50},
		{&Size{Height: 50, Unit: "mm", DPI: 96}, 2 * 50 / 25.4 * 72, 50 / 25.4 * 72, 378, 189},
		{&Size{Width: 2, Height: 3, Unit: "in", DPI: 300}, 144, 216, 600, 900},
		{&Size{Width: 10, Unit: "cm", DPI: 254}, 10 / 2.54 * 72, 5 / 2.54 * 72, 1000, 500},
		{&Size{Width: 72, Unit: "pt", DPI: 96}, 72, 36, 96, 48},
	}
	for _, tt := range tests {
		w, h := tt.size.Points(200, 100)
		if abs(w-tt.wPt) > 1e-9 || abs(h-tt.hPt) > 1e-9 {
			t.Errorf("%+v: %g x %g pt, want %g x %g", tt.size, w, h, tt.wPt, tt.hPt)
		}
		pw, ph := tt.size.Pixels(200, 100)
		if pw != tt.wPix || ph != tt.hPix {
			t.Errorf("%+v: %d x %d px, want %d x %d", tt.size, pw, ph, tt.wPix, tt.hPix)
		}
	}
	if err := Check(PNG, &Size{Width: 10000, Unit: "px", DPI: 96}, 100, 100); err == nil {
		t.Error("a 10000 x 10000 PNG passed the pixel cap")
	}
	if err := Check(PDF, &Size{Width: 10000, Unit: "px", DPI: 96}, 100, 100); err != nil {
		t.Errorf("a large PDF page was refused: %v", err)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
