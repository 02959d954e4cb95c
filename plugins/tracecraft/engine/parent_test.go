package engine_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/svgraster"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/testimg"
	"github.com/tracecraft/tracecraft/sdk"
)

// nesting returns, for each path of doc in order, its fill and the ids of the groups
// holding it, outermost first ("white in g-1 g-2").
func nesting(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var groups, out []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch e.Name.Local {
			case "g":
				groups = append(groups, attr["id"])
			case "path":
				out = append(out, fmt.Sprintf("%s %s in %s", attr["id"], attr["fill"], strings.Join(groups, " ")))
			}
		case xml.EndElement:
			if e.Name.Local == "g" {
				groups = groups[:len(groups)-1]
			}
		}
	}
}

// TestGroupByParentNestsEachShapeUnderTheOneEnclosingIt traces a white background
// holding a blue square that holds a red one that holds a green one, and a red bar
// beside the blue square: with groupBy parent every shape that encloses others is in a
// <g> with them, and the drawing is the one groupBy none gives.
func TestGroupByParentNestsEachShapeUnderTheOneEnclosingIt(t *testing.T) {
	img := testimg.Nested(40, 32)
	trace := func(params map[string]any) []byte {
		p, problems := sdk.Decode[engine.Params](params)
		if problems != nil {
			t.Fatal(problems)
		}
		doc, err := engine.New().Trace(context.Background(), img, p)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	for _, stacking := range []string{"stacked", "cutouts"} {
		t.Run(stacking, func(t *testing.T) {
			doc := trace(map[string]any{"groupBy": "parent", "shapeStacking": stacking})
			got := strings.Join(nesting(t, doc), "; ")
			want := "p-1 #fff in g-1; p-2 #1e3cc8 in g-1 g-2; p-3 #c81e28 in g-1 g-2 g-3; p-4 #148c3c in g-1 g-2 g-3; p-5 #c81e28 in g-1"
			if got != want {
				t.Errorf("paths and their groups:\n got %s\nwant %s\n%s", got, want, doc)
			}
			flat := trace(map[string]any{"shapeStacking": stacking})
			a, err := svgraster.Render(doc, 40, 32, svgraster.Over)
			if err != nil {
				t.Fatal(err)
			}
			b, err := svgraster.Render(flat, 40, 32, svgraster.Over)
			if err != nil {
				t.Fatal(err)
			}
			ia, ib := svgraster.OverBackground(a, color.NRGBA{0, 0, 0, 255}), svgraster.OverBackground(b, color.NRGBA{0, 0, 0, 255})
			for i := range ia.Pix {
				if d := int(ia.Pix[i]) - int(ib.Pix[i]); d > 2 || d < -2 {
					t.Fatalf("the nested drawing differs from groupBy none's at byte %d: %d vs %d\n%s\n%s", i, ia.Pix[i], ib.Pix[i], doc, flat)
				}
			}
		})
	}
}
