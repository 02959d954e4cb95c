// Command tracecraft-engine-silhouette is an engine drawing an image's opaque pixels in one colour.
package main

import (
	"bytes"
	"context"
	"fmt"
	"image"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Params are the engine's parameters, as clients see them in /api/schema.
type Params struct {
	Alpha int    `param:"alpha" min:"1" max:"255" default:"128" desc:"a pixel is drawn when its alpha is at least this"`
	Fill  string `param:"fill" format:"color" default:"#000000" desc:"the colour of the silhouette, any CSS colour"`
}

type engine struct{} // Describe's Name gives the file name: tracecraft-engine-silhouette
func (engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{Name: "silhouette", Version: "0.1.0", Stability: sdk.Experimental,
		Description: "one-colour silhouette of the opaque pixels", Params: sdk.Describe[Params]()}
}

func (engine) Trace(ctx context.Context, img *image.NRGBA, p Params) ([]byte, error) {
	fill, _ := sdk.ParseColor(p.Fill) // valid: the sdk checked the format
	var b bytes.Buffer
	w, h := img.Rect.Dx(), img.Rect.Dy()
	svg.Header(&b, w, h, false, ` fill="`+svg.Hex(fill)+`"`)
	for y := 0; y < h; y++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for x := 0; x < w; {
			start := x
			for x < w && int(img.NRGBAAt(img.Rect.Min.X+x, img.Rect.Min.Y+y).A) >= p.Alpha {
				x++
			}
			if x > start {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="1"/>`, start, y, x-start)
			}
			x++
		}
	}
	svg.Footer(&b)
	return b.Bytes(), nil
}
func main() { sdk.Serve[Params](engine{}) }
