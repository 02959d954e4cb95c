package enginetest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"io"
	"slices"
	"strings"

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
