package svgout

import (
	"image/color"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/fit"
)

func TestDocumentGroupsStrokesPerPen(t *testing.T) {
	line := []fit.Segment{{Line: true, P0: fit.Vec{X: 1, Y: 1}, P3: fit.Vec{X: 9, Y: 1}}}
	curve := []fit.Segment{{P0: fit.Vec{X: 1, Y: 5}, P1: fit.Vec{X: 3, Y: 3}, P2: fit.Vec{X: 6, Y: 7}, P3: fit.Vec{X: 9, Y: 5}}}
	doc, segs := Document(10, 10, []Group{
		{Color: color.NRGBA{A: 255}, Strokes: []Stroke{{Segments: line, Width: 2.5}}},
		{Color: color.NRGBA{R: 255, A: 255}, Strokes: []Stroke{{Segments: curve, Width: 1}}},
		{Color: color.NRGBA{G: 255, A: 255}},
	}, 12.34)
	want := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" data-travel-length="12.3">` +
		`<g id="c-000000" fill="none" stroke="#000" stroke-linecap="round" stroke-linejoin="round"><path id="p-1" stroke-width="2.5" d="M1 1H9"/></g>` + "\n" +
		`<g id="c-ff0000" fill="none" stroke="#f00" stroke-linecap="round" stroke-linejoin="round"><path id="p-2" stroke-width="1" d="M1 5C3 3 6 7 9 5"/></g>` + "\n</svg>\n"
	if string(doc) != want || segs != 4 {
		t.Errorf("got %d segments and\n%s\nwant 4 and\n%s", segs, doc, want)
	}
	if doc, _ := Document(10, 10, nil, 0); strings.Contains(string(doc), "travel") {
		t.Errorf("no travel was written as %s", doc)
	}
}
