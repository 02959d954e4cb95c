// Package enginetest is the conformance suite every Tracecraft engine runs from its own
// tests, so that a third-party engine is held to the same rules as the bundled ones:
//
//	func TestConformance(t *testing.T) { enginetest.Run[myengine.Params](t, myengine.New) }
//
// It checks the self-description, the SVG every parameter value produces (which must pass
// svg.Check, as the host refuses any SVG that does not, and must draw an opaque image),
// determinism, the edge cases (1x1 and fully transparent images) and that cancellation
// stops a trace; every trace has a deadline (TraceDeadline). RunBinary runs the built
// plugin the way the host does.
package enginetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"reflect"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// CancelGrace is how long an engine may keep running after its context is cancelled.
const CancelGrace = 5 * time.Second

// TraceDeadline bounds every trace of the suite: the sample images are small, so an
// engine that takes longer is stuck (or a parameter at the edge of its range makes it
// sleep). After the first trace past it the suite stops tracing, so a stuck engine fails
// in seconds rather than holding the suite for minutes.
var TraceDeadline = 10 * time.Second

// stuck is set once a trace passed TraceDeadline; later traces are skipped.
type stuck struct{ label string }

// Run runs the conformance suite against engines made by newEngine. Each subtest uses a
// fresh engine, as each plugin process has its own.
func Run[P any, E sdk.Engine[P]](t *testing.T, newEngine func() E) {
	t.Helper()
	desc := newEngine().Describe()
	st := &stuck{}
	mustTrace := func(t *testing.T, e sdk.Engine[P], img *image.NRGBA, p P, label string) []byte {
		t.Helper()
		return traceWithin(t, st, func(ctx context.Context) ([]byte, error) { return e.Trace(ctx, img, p) }, label)
	}
	t.Run("describes a valid schema", func(t *testing.T) {
		if err := desc.Validate(); err != nil {
			t.Fatalf("Describe() is not valid:\n%v", err)
		}
		if again := newEngine().Describe(); !reflect.DeepEqual(desc, again) {
			t.Errorf("Describe() differs between calls:\n%+v\n%+v", desc, again)
		}
	})
	t.Run("describes the schema of its parameter struct", func(t *testing.T) {
		if want := sdk.Describe[P](); !reflect.DeepEqual(desc.Params, want) {
			t.Errorf("Describe().Params is not sdk.Describe[%T]():\n got %+v\nwant %+v", *new(P), desc.Params, want)
		}
	})
	if desc.Validate() != nil {
		return
	}
	defaults := sdk.Defaults[P]()

	t.Run("traces the sample images into valid SVG", func(t *testing.T) {
		e := newEngine()
		for _, s := range Samples() {
			out := mustTrace(t, e, s.Image, defaults, s.Name)
			checkDrawing(t, out, s)
		}
	})

	t.Run("is deterministic", func(t *testing.T) {
		for _, s := range Samples() {
			a := mustTrace(t, newEngine(), s.Image, defaults, s.Name)
			e := newEngine()
			b := mustTrace(t, e, s.Image, defaults, s.Name)
			c := mustTrace(t, e, s.Image, defaults, s.Name)
			if !bytes.Equal(a, b) || !bytes.Equal(b, c) {
				t.Errorf("%s: three traces of the same image gave different SVG (%d, %d, %d bytes)", s.Name, len(a), len(b), len(c))
			}
		}
	})

	t.Run("draws nothing for a fully transparent image", func(t *testing.T) {
		for _, size := range [][2]int{{1, 1}, {32, 20}} {
			img := image.NewNRGBA(image.Rect(0, 0, size[0], size[1]))
			out := mustTrace(t, newEngine(), img, defaults, "transparent")
			info := checkSVG(t, out, img, fmt.Sprintf("transparent %dx%d", size[0], size[1]))
			if info != nil && info.DrawingElements() != 0 {
				t.Errorf("transparent %dx%d: %d drawing elements, want 0:\n%s", size[0], size[1], info.DrawingElements(), out)
			}
		}
	})

	t.Run("accepts every value at the edges of the schema", func(t *testing.T) {
		img := Samples()[0].Image
		e := newEngine()
		for _, p := range desc.Params {
			for _, v := range edgeValues(p) {
				params, err := sdk.Decode[P](map[string]any{p.Name: v})
				if err != nil {
					t.Errorf("%s=%v: the schema rejects its own edge value: %v", p.Name, v, err)
					continue
				}
				label := fmt.Sprintf("%s=%v", p.Name, v)
				checkSVG(t, mustTrace(t, e, img, params, label), img, label)
			}
		}
	})

	t.Run("stops when the context is cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := newEngine().Trace(ctx, Samples()[0].Image, defaults); !errors.Is(err, context.Canceled) {
			t.Errorf("Trace with a cancelled context returned %v, want an error wrapping context.Canceled", err)
		}
		big := Noise(1600, 1600, 7)
		ctx, cancel = context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := newEngine().Trace(ctx, big, defaults)
			done <- err
		}()
		time.Sleep(50 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled Trace returned %v, want nil or context.Canceled", err)
			}
		case <-time.After(CancelGrace):
			t.Errorf("Trace of a 1600x1600 image was still running %v after its context was cancelled", CancelGrace)
		}
	})
}

// traceWithin runs trace with a context that ends after TraceDeadline. Past the deadline
// it fails the test and marks st, after which it skips instead of tracing. An engine
// that ignores the deadline is left running: the test has failed.
func traceWithin(t *testing.T, st *stuck, trace func(context.Context) ([]byte, error), label string) []byte {
	t.Helper()
	if st.label != "" {
		t.Skipf("skipped: the trace of %s passed the %v deadline", st.label, TraceDeadline)
	}
	ctx, cancel := context.WithTimeout(context.Background(), TraceDeadline)
	defer cancel()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := trace(ctx)
		done <- result{out, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(TraceDeadline + CancelGrace):
		r.err = context.DeadlineExceeded
	}
	if errors.Is(r.err, context.DeadlineExceeded) || ctx.Err() != nil {
		st.label = label
		t.Fatalf("%s: the trace took more than %v (TraceDeadline): the suite's images are small", label, TraceDeadline)
	}
	if r.err != nil {
		t.Fatalf("%s: Trace: %v", label, r.err)
	}
	return r.out
}

// checkDrawing checks out as checkSVG does and that it draws something when the image
// is opaque and larger than a few pixels: an engine that returns an empty document for
// every image would otherwise pass.
func checkDrawing(t *testing.T, out []byte, s Sample) {
	t.Helper()
	info := checkSVG(t, out, s.Image, s.Name)
	if info != nil && info.DrawingElements() == 0 && opaque(s.Image) && s.Image.Rect.Dx()*s.Image.Rect.Dy() >= 256 {
		t.Errorf("%s: the SVG draws nothing for a %dx%d opaque image:\n%s", s.Name, s.Image.Rect.Dx(), s.Image.Rect.Dy(), clip(out))
	}
}

// opaque reports whether every pixel of img is opaque.
func opaque(img *image.NRGBA) bool {
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 255 {
			return false
		}
	}
	return true
}

// checkSVG inspects out and checks its viewBox matches img; it returns nil on failure.
func checkSVG(t *testing.T, out []byte, img *image.NRGBA, label string) *SVGInfo {
	t.Helper()
	info, err := Inspect(out)
	if err != nil {
		t.Errorf("%s: invalid SVG:\n%v\n%s", label, err, clip(out))
		return nil
	}
	b := img.Bounds()
	if info.Width != b.Dx() || info.Height != b.Dy() {
		t.Errorf("%s: viewBox size %dx%d, want the image's %dx%d", label, info.Width, info.Height, b.Dx(), b.Dy())
	}
	if err := svg.Check(out, b.Dx(), b.Dy()); err != nil {
		t.Errorf("%s: the host would refuse this SVG (engine_bad_output): %v\n%s", label, err, clip(out))
		return nil
	}
	return info
}

// edgeValues returns the values of p worth trying: the range ends of a number, every
// enum value, both booleans, a colour for a colour string.
func edgeValues(p sdk.Param) []any {
	switch p.Type {
	case sdk.Number:
		return []any{p.Min, p.Max}
	case sdk.Enum:
		vs := make([]any, len(p.Values))
		for i, v := range p.Values {
			vs[i] = v
		}
		return vs
	case sdk.Boolean:
		return []any{false, true}
	case sdk.String:
		if p.Format == sdk.FormatColor {
			return []any{"#ff8800", "rgb(0 0 255 / 50%)"}
		}
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

// Sample is a named test image.
type Sample struct {
	Name  string
	Image *image.NRGBA
}

// Samples returns small synthetic images covering the cases engines meet: flat shapes on
// a background, a shape with a hole, semi-transparent and transparent areas, a gradient,
// thin lines, and a single pixel.
func Samples() []Sample {
	return []Sample{
		{"flat shapes", FlatShapes(64, 48)},
		{"ring with a hole", Ring(40)},
		{"alpha", Alpha(40, 30)},
		{"gradient", Gradient(48, 32)},
		{"thin lines", Lines(50, 50)},
		{"single pixel", Fill(1, 1, color.NRGBA{R: 200, G: 30, B: 30, A: 255})},
	}
}

// Fill returns a w x h image of one colour.
func Fill(w, h int, c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

// FlatShapes returns a white image with a red rectangle, a blue disc and a black bar.
func FlatShapes(w, h int) *image.NRGBA {
	img := Fill(w, h, color.NRGBA{R: 255, G: 255, B: 255, A: 255})
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := float64(x-w*2/3), float64(y-h/2)
			switch {
			case x >= w/8 && x < w/2 && y >= h/6 && y < h*2/3:
				img.SetNRGBA(x, y, color.NRGBA{R: 220, G: 20, B: 40, A: 255})
			case dx*dx+dy*dy < float64(h*h)/16:
				img.SetNRGBA(x, y, color.NRGBA{R: 20, G: 60, B: 200, A: 255})
			case y >= h*5/6 && y < h*5/6+3:
				img.SetNRGBA(x, y, color.NRGBA{A: 255})
			}
		}
	}
	return img
}

// Ring returns a size x size transparent image holding a green ring.
func Ring(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	c := float64(size) / 2
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			dx, dy := float64(x)+0.5-c, float64(y)+0.5-c
			if d := dx*dx + dy*dy; d < c*c*0.8 && d > c*c*0.25 {
				img.SetNRGBA(x, y, color.NRGBA{R: 30, G: 160, B: 60, A: 255})
			}
		}
	}
	return img
}

// Alpha returns an image with an opaque, a half-transparent and a transparent band.
func Alpha(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			switch {
			case x < w/3:
				img.SetNRGBA(x, y, color.NRGBA{R: 250, G: 200, B: 0, A: 255})
			case x < 2*w/3:
				img.SetNRGBA(x, y, color.NRGBA{R: 0, G: 0, B: 200, A: 128})
			}
		}
	}
	return img
}

// Gradient returns a horizontal red-to-blue gradient.
func Gradient(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			t := uint8(x * 255 / max(1, w-1))
			img.SetNRGBA(x, y, color.NRGBA{R: 255 - t, G: uint8(y * 4), B: t, A: 255})
		}
	}
	return img
}

// Lines returns black one-pixel lines, straight and diagonal, on white.
func Lines(w, h int) *image.NRGBA {
	img := Fill(w, h, color.NRGBA{R: 255, G: 255, B: 255, A: 255})
	black := color.NRGBA{A: 255}
	for i := 0; i < min(w, h); i++ {
		img.SetNRGBA(i, i, black)
		img.SetNRGBA(i, h/3, black)
		img.SetNRGBA(w/2, i, black)
	}
	return img
}

// Noise returns a w x h image of deterministic pseudo-random colours, the worst case for
// a tracer.
func Noise(w, h int, seed uint32) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	s := seed*2654435761 + 1
	for i := 0; i < len(img.Pix); i += 4 {
		s ^= s << 13
		s ^= s >> 17
		s ^= s << 5
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(s), uint8(s>>8), uint8(s>>16), 255
	}
	return img
}
