// Command testengine is an engine plugin for the tests of the sdk and the host: it traces
// an image into one rectangle of its mean colour, and can be told to sleep, hang, panic,
// exit or start a child process (in its process group, or escaping it), so that the host's handling of slow, stuck and crashing
// engines is tested with real processes. Build-time variables make variants:
//
//	go build -ldflags "-X main.name=other -X main.variant=badschema" ./internal/testengine
//
// variant "badschema" describes an invalid schema; "protocol9" speaks an unknown
// protocol version; "version2" reports version 2.0.0; "experimental" is marked
// experimental.
package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

var (
	name    = "testengine"
	variant = ""
)

func main() {
	if variant == "protocol9" {
		hs := pluginhost.Handshake
		hs.ProtocolVersion = 9
		plugin.Serve(&plugin.ServeConfig{HandshakeConfig: hs, VersionedPlugins: map[int]plugin.PluginSet{9: {}}, GRPCServer: plugin.DefaultGRPCServer})
		return
	}
	sdk.Serve[params](engine{})
}

type engine struct{}

// params are the test engine's parameters.
type params struct {
	Action string               `param:"action" enum:"ok,sleep,hang,panic,exit,spawn,escape,fail" default:"ok" desc:"what to do: trace, sleep then trace, hang ignoring cancellation, panic, exit, start a child and hang, start a child in a session of its own (out of the process group) and hang, or fail with an engine error"`
	Ms     int                  `param:"ms" min:"0" max:"600000" default:"0" desc:"milliseconds to sleep or hang"`
	Color  sdk.Explicit[string] `param:"color" format:"color" desc:"a colour to draw instead of the mean"`
}

func (engine) Describe() sdk.Descriptor {
	d := sdk.Descriptor{
		Name: name, Version: "1.0.0", Stability: sdk.Stable,
		Description: "A test engine that draws the image's mean colour and misbehaves on request.",
		Params:      sdk.Describe[params](),
	}
	switch variant {
	case "badschema":
		d.Params[1].Min, d.Params[1].Max = 10, 1
	case "version2":
		d.Version = "2.0.0"
	case "experimental":
		d.Stability = sdk.Experimental
	}
	return d
}

func (engine) Trace(ctx context.Context, img *image.NRGBA, p params) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ms := time.Duration(p.Ms) * time.Millisecond
	switch p.Action {
	case "sleep":
		select {
		case <-time.After(ms):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "hang":
		time.Sleep(ms)
	case "panic":
		panic("testengine: asked to panic")
	case "exit":
		os.Exit(3)
	case "spawn", "escape":
		// A child that outlives the engine unless something kills it: "escape" puts it
		// in a new session, so killing the engine's process group misses it.
		cmd := exec.Command("sleep", "600")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: p.Action == "escape"}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		time.Sleep(ms)
	case "fail":
		return nil, sdk.Errorf(sdk.CodeInvalidSettings, "asked to fail")
	}
	return draw(img, p), nil
}

// draw returns an SVG with one rectangle of the mean colour of the opaque pixels, or of
// the colour parameter; nothing for a fully transparent image.
func draw(img *image.NRGBA, p params) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var r, g, b, n int
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i+3] >= 128 {
			r, g, b, n = r+int(img.Pix[i]), g+int(img.Pix[i+1]), b+int(img.Pix[i+2]), n+1
		}
	}
	var out bytes.Buffer
	svg.Header(&out, w, h, false, "")
	if n > 0 {
		c := color.NRGBA{R: uint8(r / n), G: uint8(g / n), B: uint8(b / n), A: 255}
		if p.Color.Given {
			c, _ = sdk.ParseColor(p.Color.Value)
		}
		path := svg.NewPath(0)
		path.MoveTo(0, 0)
		path.LineTo(float64(w), 0)
		path.LineTo(float64(w), float64(h))
		path.LineTo(0, float64(h))
		path.Close()
		out.WriteString(`<path fill="` + svg.Hex(c) + `" d="` + path.String() + `"/>`)
	}
	svg.Footer(&out)
	return out.Bytes()
}
