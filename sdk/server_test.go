package sdk

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strconv"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
)

// styledParams are styledEngine's parameters: none.
type styledParams struct{}

// styledEngine answers every image with an SVG that svg.Check refuses: a <style> element.
type styledEngine struct{}

func (styledEngine) Describe() Descriptor {
	return Descriptor{Name: "styled", Version: "1.0.0", Stability: Stable, Description: "an engine whose SVG the host refuses", Params: Describe[styledParams]()}
}

func (styledEngine) Trace(_ context.Context, img *image.NRGBA, _ styledParams) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `)
	b.WriteString(strconv.Itoa(img.Rect.Dx()) + " " + strconv.Itoa(img.Rect.Dy()))
	b.WriteString(`"><style>path{fill:red}</style></svg>`)
	return b.Bytes(), nil
}

// TestTheServerLeavesTheOutputCheckToAHostThatChecks: the server refuses an SVG that
// svg.Check refuses with CodeBadOutput, unless the request says the host checks the SVG
// itself; it then answers the SVG as the engine made it, for the host to refuse.
func TestTheServerLeavesTheOutputCheckToAHostThatChecks(t *testing.T) {
	b, err := bind[styledParams](styledEngine{})
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(b, hclog.NewNullLogger())
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewNRGBA(image.Rect(0, 0, 4, 3))); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name        string
		hostChecks  bool
		wantFailure string
	}{
		{"a host that does not say it checks", false, CodeBadOutput},
		{"a host that checks", true, ""},
	} {
		r, err := s.Trace(context.Background(), &tracev1.TraceRequest{Image: img.Bytes(), HostChecksOutput: tt.hostChecks})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := r.GetFailure().GetCode(); got != tt.wantFailure {
			t.Errorf("%s: failure %q, want %q", tt.name, got, tt.wantFailure)
		}
		if tt.wantFailure == "" && !bytes.Contains(r.GetSvg(), []byte("<style>")) {
			t.Errorf("%s: the SVG %q is not the engine's", tt.name, r.GetSvg())
		}
	}
}
