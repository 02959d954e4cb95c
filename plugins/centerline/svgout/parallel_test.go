package svgout

import (
	"bytes"
	"image/color"
	"math/rand/v2"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/fit"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// documentPlain is Document writing its strokes one after another on one path, as it
// did before they were written in parallel.
func documentPlain(w, h int, groups []Group, travel float64) ([]byte, int) {
	var b bytes.Buffer
	extra := ""
	if travel > 0 {
		extra = ` ` + svg.TravelLength + `="` + svg.Num(travel, 1) + `"`
	}
	svg.Header(&b, w, h, false, extra)
	p := svg.NewPath(Precision)
	segments := 0
	var ids svg.IDs
	for _, g := range groups {
		if len(g.Strokes) == 0 && len(g.Fills) == 0 {
			continue
		}
		b.WriteString(`<g` + svg.IDAttr(ids.Colour(g.Color)) + ` fill="none"` + svg.Paint("stroke", g.Color) + ` stroke-linecap="round" stroke-linejoin="round">`)
		if len(g.Fills) > 0 {
			p.Reset()
			for _, f := range g.Fills {
				writeSegments(p, f, true)
			}
			segments += p.Segments()
			b.WriteString(`<path` + svg.IDAttr(ids.Shape()) + svg.Paint("fill", g.Color) + ` stroke="none" fill-rule="evenodd" d="`)
			b.Write(p.Bytes())
			b.WriteString(`"/>`)
		}
		for _, s := range g.Strokes {
			if len(s.Segments) == 0 {
				continue
			}
			p.Reset()
			writeSegments(p, s.Segments, s.Closed)
			segments += p.Segments()
			b.WriteString(`<path` + svg.IDAttr(ids.Shape()) + ` stroke-width="` + svg.Num(s.Width, 2) + `" d="`)
			b.Write(p.Bytes())
			b.WriteString(`"/>`)
		}
		b.WriteString("</g>\n")
	}
	svg.Footer(&b)
	return b.Bytes(), segments
}

// randomSegments returns n joined segments, lines and curves, from a random point.
func randomSegments(rng *rand.Rand, n int) []fit.Segment {
	pt := func() fit.Vec { return fit.Vec{X: rng.Float64() * 100, Y: rng.Float64() * 100} }
	segs := make([]fit.Segment, n)
	p := pt()
	for i := range segs {
		segs[i] = fit.Segment{Line: rng.IntN(2) == 0, P0: p, P1: pt(), P2: pt(), P3: pt()}
		p = segs[i].P3
	}
	return segs
}

func TestDocumentWritesManyStrokesAsOneAfterAnotherWould(t *testing.T) {
	tests := []struct {
		name    string
		strokes []int // strokes per group
		fills   int
	}{
		{"one stroke", []int{1}, 0},
		{"fewer strokes than a worker takes", []int{30}, 2},
		{"many strokes in several groups", []int{500, 0, 130}, 5},
		{"many strokes, some empty", []int{1000}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(tt.name)), 3))
			var groups []Group
			for gi, n := range tt.strokes {
				g := Group{Color: color.NRGBA{R: uint8(40 * gi), A: 255}}
				for range n {
					k := rng.IntN(6)
					if tt.name == "one stroke" {
						k = 3
					}
					g.Strokes = append(g.Strokes, Stroke{Segments: randomSegments(rng, k), Width: rng.Float64() * 9, Closed: rng.IntN(4) == 0})
				}
				for range tt.fills {
					g.Fills = append(g.Fills, randomSegments(rng, 1+rng.IntN(5)))
				}
				groups = append(groups, g)
			}
			got, gotSegs := Document(100, 100, groups, 7)
			want, wantSegs := documentPlain(100, 100, groups, 7)
			if !bytes.Equal(got, want) || gotSegs != wantSegs {
				t.Errorf("got %d segments and\n%s\nwant %d and\n%s", gotSegs, got, wantSegs, want)
			}
		})
	}
}
