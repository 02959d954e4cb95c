package api

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/background"
	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// TestQualityIsAnsweredWhenAsked checks that output.quality adds the trace's score to the
// JSON answer (with its time) and to a bare answer's header, and nothing otherwise. The
// in-memory engine paints a red triangle over half the pixel at 0,0 of a transparent canvas; the score expected
// is measured here on that picture drawn by hand.
func TestQualityIsAnsweredWhenAsked(t *testing.T) {
	s, _ := newTestServer(t, &memEngines{}, 4)
	h := s.Handler()
	const w, hgt = 24, 16
	img := pngOf(t, w, hgt)
	decoded, err := png.Decode(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	// M0 0H1V1Z covers 10 of the 16 points the pixel at 0,0 is sampled at (those with
	// x >= y: a point on an edge counts as inside on its left side): red at 10/16 over white.
	drawn := image.NewRGBA(image.Rect(0, 0, w, hgt))
	drawn.SetRGBA(0, 0, color.RGBA{160, 0, 0, 160})
	want := fidelity.Measure(decoded, drawn).Round()
	if want.SSIM == nil || *want.SSIM >= 1 {
		t.Fatalf("the test's images should differ: %v", want)
	}
	// With the background removed, the trace is scored against the image the engine
	// traced: the upload without its background.
	bare, _, err := raster.Decode(img, 0)
	if err != nil {
		t.Fatal(err)
	}
	if background.Remove(bare) == 0 {
		t.Fatal("the test's image should have a background to remove")
	}
	wantBare := fidelity.Measure(bare, drawn).Round()
	if *wantBare.SSIM == *want.SSIM && wantBare.PSNR == want.PSNR {
		t.Fatalf("removing the background should change the score: %v", want)
	}

	tests := []struct {
		name, settings, accept string
		wantQuality            bool
		want                   *fidelity.Score
	}{
		{"JSON with quality", `{"engine":"mem","output":{"quality":true}}`, "", true, nil},
		{"JSON with quality and the background removed", `{"engine":"mem","background":"remove","output":{"quality":true}}`, "", true, &wantBare},
		{"JSON of a PNG with quality", `{"engine":"mem","output":{"quality":true,"format":"png"}}`, "", true, nil},
		{"JSON without quality", `{"engine":"mem"}`, "", false, nil},
		{"JSON with quality off", `{"engine":"mem","output":{"quality":false}}`, "", false, nil},
		{"a bare SVG with quality", `{"engine":"mem","output":{"quality":true}}`, "image/svg+xml", true, nil},
		{"a bare PDF with quality", `{"engine":"mem","output":{"quality":true,"format":"pdf"}}`, "application/pdf", true, nil},
		{"a bare SVG without quality", `{"engine":"mem"}`, "image/svg+xml", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := want
			if tt.want != nil {
				want = *tt.want
			}
			var header []string
			if tt.accept != "" {
				header = []string{"Accept", tt.accept}
			}
			rec := post(t, h, img, tt.settings, header...)
			if rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			got := rec.Header().Get(QualityHeader)
			if tt.accept != "" {
				if wantHeader := map[bool]string{true: want.String()}[tt.wantQuality]; got != wantHeader {
					t.Errorf("%s: %q, want %q", QualityHeader, got, wantHeader)
				}
				return
			}
			if got != "" {
				t.Errorf("a JSON answer has %s: %q", QualityHeader, got)
			}
			var body struct {
				Quality *fidelity.Score
				Timings struct{ QualityMs *float64 }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			switch {
			case !tt.wantQuality && (body.Quality != nil || body.Timings.QualityMs != nil):
				t.Errorf("quality %v and qualityMs %v, want neither", body.Quality, body.Timings.QualityMs)
			case tt.wantQuality && (body.Quality == nil || body.Timings.QualityMs == nil):
				t.Errorf("quality %v and qualityMs %v, want both", body.Quality, body.Timings.QualityMs)
			case tt.wantQuality && (*body.Quality.SSIM != *want.SSIM || body.Quality.PSNR != want.PSNR):
				t.Errorf("quality %s, want %s", body.Quality, want)
			}
		})
	}
}
