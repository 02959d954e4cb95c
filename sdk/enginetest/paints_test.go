package enginetest_test

import (
	"image/color"
	"slices"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func TestPaintsListsEveryColourAShapeIsPaintedWith(t *testing.T) {
	const head = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4">`
	tests := []struct {
		name    string
		body    string
		want    []color.NRGBA
		wantErr string
	}{
		{"the default fill is black", `<path d="M0 0h1v1z"/>`, []color.NRGBA{{0, 0, 0, 255}}, ""},
		{"fill and stroke, each once", `<path fill="#f00" stroke="navy" d="M0 0h1v1z"/><rect fill="red" width="1" height="1"/>`,
			[]color.NRGBA{{255, 0, 0, 255}, {0, 0, 128, 255}}, ""},
		{"a group's fill is inherited", `<g fill="#00ff00" fill-opacity=".5"><path d="M0 0h1v1z"/></g><path fill="none" d="M0 0h1v1z"/>`,
			[]color.NRGBA{{0, 255, 0, 255}}, ""},
		{"a gradient is no colour", `<path fill="url(#g)" d="M0 0h1v1z"/>`, nil, `fill "url(#g)" is not a colour`},
		{"a style attribute is refused", `<path style="fill:red" d="M0 0h1v1z"/>`, nil, "style attribute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := enginetest.Paints([]byte(head + tt.body + `</svg>`))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Paints: error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("Paints = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
