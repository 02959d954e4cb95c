package enginetest

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk"
)

// shapes are the elements whose fill and stroke put paint on the canvas.
var shapes = []string{"path", "rect", "circle", "ellipse", "polygon", "polyline", "line"}

// Paints returns the colours doc's shapes are painted with, opaque (an opacity is not
// part of the colour), each once, in order of first use: each shape's fill and stroke,
// as given on it or inherited from its ancestors, with SVG's defaults (fill black,
// stroke none). An engine with a palette parameter tests with it that its output holds
// no other colour. A paint it cannot read as a CSS colour (a url(), currentColor, a
// style attribute setting fill or stroke) is an error.
func Paints(doc []byte) ([]color.NRGBA, error) {
	type paint struct{ fill, stroke string }
	stack := []paint{{fill: "black", stroke: "none"}}
	var out []color.NRGBA
	add := func(elem, attr, v string) error {
		if v == "none" {
			return nil
		}
		c, err := sdk.ParseColor(v)
		if err != nil {
			return fmt.Errorf("<%s> %s %q is not a colour", elem, attr, v)
		}
		c.A = 255
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
		return nil
	}
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("not well-formed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			p := stack[len(stack)-1]
			for _, a := range t.Attr {
				v := strings.TrimSpace(a.Value)
				switch a.Name.Local {
				case "fill":
					p.fill = v
				case "stroke":
					p.stroke = v
				case "style":
					if strings.Contains(v, "fill") || strings.Contains(v, "stroke") {
						return nil, fmt.Errorf("<%s> sets its paint in a style attribute %q", t.Name.Local, v)
					}
				}
			}
			stack = append(stack, p)
			if slices.Contains(shapes, t.Name.Local) {
				if err := add(t.Name.Local, "fill", p.fill); err != nil {
					return nil, err
				}
				if err := add(t.Name.Local, "stroke", p.stroke); err != nil {
					return nil, err
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

// CheckPalette traces each image (a file LoadPNG reads) with palettes, each given as the
// engine's parameter "palette" together with one of styles (other parameters, in turn;
// nil or empty means the defaults alone), and fails the test when an SVG paints with a
// colour that is not one of its palette's (Paints) or when two traces of one setting
// differ. An engine with a palette parameter runs it over images it meets, with
// palettes that fit them badly.
func CheckPalette[P any](t *testing.T, e sdk.Engine[P], images []string, palettes [][]string, styles []map[string]any) {
	t.Helper()
	if len(styles) == 0 {
		styles = []map[string]any{{}}
	}
	for n, path := range images {
		img := LoadPNG(t, path)
		for i, pal := range palettes {
			allowed := make([]color.NRGBA, len(pal))
			for k, s := range pal {
				c, err := sdk.ParseColor(s)
				if err != nil {
					t.Fatalf("palette %v: %v", pal, err)
				}
				allowed[k] = c
			}
			given := map[string]any{"palette": pal}
			for k, v := range styles[(n+i)%len(styles)] {
				given[k] = v
			}
			label := fmt.Sprintf("%s with %v", Name(path), given)
			p, err := sdk.Decode[P](given)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			doc, err := e.Trace(context.Background(), img, p)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			paints, err := Paints(doc)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			for _, c := range paints {
				if !slices.Contains(allowed, c) {
					t.Errorf("%s paints with %v, not in the palette", label, c)
				}
			}
			if again, _ := e.Trace(context.Background(), img, p); !bytes.Equal(doc, again) {
				t.Errorf("%s: two traces differ", label)
			}
		}
	}
}
