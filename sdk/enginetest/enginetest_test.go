package enginetest

import (
	"bytes"
	"context"
	"image"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// pixelParams are parameters of each type, unused.
type pixelParams struct {
	Scale float64 `param:"scale" min:"1" max:"2" default:"1" desc:"unused"`
	Mode  string  `param:"mode" enum:"a,b" default:"a" desc:"unused"`
	Color string  `param:"color" format:"color" desc:"unused"`
}

// pixelEngine draws one square per opaque pixel: the simplest conforming engine.
type pixelEngine struct{}

func (pixelEngine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name: "pixels", Version: "1.0.0", Stability: sdk.Experimental,
		Description: "one square per pixel",
		Params:      sdk.Describe[pixelParams](),
	}
}

func (pixelEngine) Trace(ctx context.Context, img *image.NRGBA, _ pixelParams) ([]byte, error) {
	var b bytes.Buffer
	w, h := img.Rect.Dx(), img.Rect.Dy()
	svg.Header(&b, w, h, false, "")
	for y := 0; y < h; y++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for x := 0; x < w; x++ {
			c := img.NRGBAAt(x, y)
			if c.A < 128 {
				continue
			}
			p := svg.NewPath(0)
			p.MoveTo(float64(x), float64(y))
			p.LineTo(float64(x+1), float64(y))
			p.LineTo(float64(x+1), float64(y+1))
			p.LineTo(float64(x), float64(y+1))
			p.Close()
			b.WriteString(`<path fill="` + svg.Hex(c) + `" d="` + p.String() + `"/>`)
		}
	}
	svg.Footer(&b)
	return b.Bytes(), nil
}

func TestRunPassesAConformingEngine(t *testing.T) {
	Run[pixelParams](t, func() pixelEngine { return pixelEngine{} })
}

func TestInspectFindsEveryProblem(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"valid", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 3 2"><path d="M0 0h1"/></svg>`, nil},
		{"no namespace", `<svg viewBox="0 0 3 2"></svg>`, []string{"xmlns"}},
		{"bad viewBox", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="1 0 3 2"></svg>`, []string{"viewBox"}},
		{"script and handler", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 3 2" onload="x()"><script>x</script></svg>`, []string{"<script>", "event attribute"}},
		{"external reference", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 3 2"><path fill="url(http://x/y)" d=""/><use href="http://e/x"/></svg>`, []string{"refers outside", "external reference"}},
		{"doctype", `<!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 3 2"></svg>`, []string{"directive"}},
		{"not xml", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 3 2">`, []string{"well-formed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Inspect([]byte(tt.doc))
			if len(tt.want) == 0 && err != nil {
				t.Fatalf("unexpected problems: %v", err)
			}
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("problems %v, want one mentioning %q", err, w)
				}
			}
		})
	}
}

// styledEngine is pixelEngine with a style element in its SVG, which the host refuses.
type styledEngine struct{ pixelEngine }

func (e styledEngine) Trace(ctx context.Context, img *image.NRGBA, p pixelParams) ([]byte, error) {
	out, err := e.pixelEngine.Trace(ctx, img, p)
	return bytes.Replace(out, []byte("</svg>"), []byte("<style>path{fill:red}</style></svg>"), 1), err
}

// TestRunFailsAnEngineWhoseSVGTheHostRefuses runs the suite on styledEngine in a child
// test process (a failing suite fails its test) and reads the child's verdict.
func TestRunFailsAnEngineWhoseSVGTheHostRefuses(t *testing.T) {
	if os.Getenv("ENGINETEST_CHILD") == "styled" {
		Run[pixelParams](t, func() styledEngine { return styledEngine{} })
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunFailsAnEngineWhoseSVGTheHostRefuses$", "-test.v")
	cmd.Env = append(os.Environ(), "ENGINETEST_CHILD=styled")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed an engine whose SVG holds a <style> element:\n%s", out)
	}
	if !bytes.Contains(out, []byte("engine_bad_output")) || !bytes.Contains(out, []byte("<style> is not allowed")) {
		t.Errorf("the suite failed, but without naming the refusal:\n%s", out)
	}
}
