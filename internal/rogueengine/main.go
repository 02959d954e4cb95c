// Command rogueengine is an engine plugin for the host's tests that answers with the SVG
// it is told to: a harmless one, one of many hostile ones (a script, an event attribute,
// an external reference, a DOCTYPE with entities, bytes that are not UTF-8, ...), or a
// harmless one of a given size. Built as usual, the sdk's own output check refuses the
// hostile ones in the engine process; built with
//
//	go build -ldflags "-X github.com/tracecraft/tracecraft/sdk.skipOutputCheck=yes" ./internal/rogueengine
//
// they reach the host, which must refuse them itself.
package main

import (
	"bytes"
	"context"
	"image"
	"strconv"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

var name = "rogue"

// outputs maps each value of the output parameter to the SVG made for a w x h image.
var outputs = map[string]func(w, h int) []byte{
	"ok":     func(w, h int) []byte { return wrap(w, h, `<path fill="#123" d="M0 0H1V1Z"/>`) },
	"script": func(w, h int) []byte { return wrap(w, h, `<script>alert(document.domain)</script>`) },
	"foreignObject": func(w, h int) []byte {
		return wrap(w, h, `<foreignObject width="9" height="9"><p xmlns="http://www.w3.org/1999/xhtml">x</p></foreignObject>`)
	},
	"style": func(w, h int) []byte { return wrap(w, h, `<style>path{fill:url(https://example.com/track)}</style>`) },
	"styleURL": func(w, h int) []byte {
		return wrap(w, h, `<path style="fill:url(https://example.com/track)" d="M0 0H1V1Z"/>`)
	},
	"onload": func(w, h int) []byte {
		return []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + size(w, h) + `" onload="alert(1)"></svg>`)
	},
	"href": func(w, h int) []byte { return wrap(w, h, `<g href="https://example.com/"><path d="M0 0H1V1Z"/></g>`) },
	"xxe": func(w, h int) []byte {
		return append([]byte(`<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>`), wrap(w, h, `<title>&x;</title>`)...)
	},
	"laughs": func(w, h int) []byte {
		return append([]byte(`<!DOCTYPE svg [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>`),
			wrap(w, h, `<title>&c;</title>`)...)
	},
	"latin1":   func(w, h int) []byte { return wrap(w, h, "<title>caf\xe9</title>") },
	"viewBox":  func(w, h int) []byte { return wrap(w+1, h, "") },
	"unclosed": func(w, h int) []byte { return bytes.TrimSuffix(wrap(w, h, "<g>"), []byte("</svg>\n")) },
}

func main() { sdk.Serve[params](engine{}) }

type engine struct{}

// params are the rogue engine's parameters; output's values are the keys of outputs, and
// big.
type params struct {
	Output string `param:"output" enum:"foreignObject,href,laughs,latin1,ok,onload,script,style,styleURL,unclosed,viewBox,xxe,big" default:"ok" desc:"the SVG to answer with"`
	MB     int    `param:"mb" min:"0" max:"1024" default:"1" desc:"the size of the big SVG, in MiB"`
}

func (engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name: name, Version: "1.0.0", Stability: sdk.Experimental,
		Description: "A test engine that answers with the SVG it is told to, harmless, hostile or big.",
		Params:      sdk.Describe[params](),
	}
}

func (engine) Trace(ctx context.Context, img *image.NRGBA, p params) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if p.Output != "big" {
		return outputs[p.Output](w, h), nil
	}
	return big(w, h, p.MB<<20), nil
}

// big returns a harmless SVG of n bytes or a few more: paths of 1 KiB.
func big(w, h, n int) []byte {
	var b bytes.Buffer
	b.Grow(n + 1024)
	svg.Header(&b, w, h, false, "")
	seg := []byte("L1 1")
	for b.Len() < n {
		b.WriteString(`<path fill="#123" d="M0 0`)
		for i := 0; i < 245; i++ {
			b.Write(seg)
		}
		b.WriteString(`Z"/>`)
	}
	svg.Footer(&b)
	return b.Bytes()
}

func wrap(w, h int, body string) []byte {
	return []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + size(w, h) + `">` + body + "</svg>\n")
}

func size(w, h int) string { return strconv.Itoa(w) + " " + strconv.Itoa(h) }
