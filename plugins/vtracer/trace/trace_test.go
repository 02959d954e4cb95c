package trace

import (
	"context"
	"errors"
	"image"
	"image/color"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func TestBinarize(t *testing.T) {
	tests := []struct {
		name string
		in   color.NRGBA
		dark bool
	}{
		{"black", color.NRGBA{A: 255}, true},
		{"white", color.NRGBA{255, 255, 255, 255}, false},
		{"transparent black is white over white", color.NRGBA{}, false},
		{"black at alpha 126 over white: luma 129", color.NRGBA{A: 126}, false},
		{"black at alpha 128 over white: luma 127", color.NRGBA{A: 128}, true},
		{"luma 127.9", color.NRGBA{0, 218, 0, 255}, true},
		{"luma 128.5", color.NRGBA{0, 219, 0, 255}, false},
		{"pure red: luma 76", color.NRGBA{255, 0, 0, 255}, true},
	}
	for _, tt := range tests {
		img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
		img.SetNRGBA(0, 0, tt.in)
		got := Binarize(img).NRGBAAt(0, 0)
		want := color.NRGBA{}
		if tt.dark {
			want.A = 255
		}
		if got != want {
			t.Errorf("%s: %v, want %v", tt.name, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	bad := []func(*Options){
		func(o *Options) { o.Mode = 3 },
		func(o *Options) { o.ColorPrecision = 0 },
		func(o *Options) { o.ColorPrecision = 9 },
		func(o *Options) { o.FilterSpeckle = -1 },
		func(o *Options) { o.LayerDifference = -1 },
		func(o *Options) { o.CornerThreshold = 181 },
		func(o *Options) { o.SpliceThreshold = -1 },
		func(o *Options) { o.LengthThreshold = 0 },
		func(o *Options) { o.MaxIterations = 100 },
		func(o *Options) { o.PathPrecision = 9 },
	}
	if err := DefaultOptions().Check(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	img := enginetest.FlatShapes(8, 8)
	for i, f := range bad {
		o := DefaultOptions()
		f(&o)
		if o.Check() == nil {
			t.Errorf("case %d: %+v passes Check", i, o)
		}
		if _, err := Trace(context.Background(), img, o); err == nil {
			t.Errorf("case %d: Trace accepted %+v", i, o)
		}
	}
}

func TestTraceStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Trace(ctx, enginetest.Noise(64, 64, 1), DefaultOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestSquare(t *testing.T) {
	// A 4x4 black square in the middle of an 8x8 white image, in each mode: the white
	// background is the whole image, the square one shape over it.
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			c := color.NRGBA{255, 255, 255, 255}
			if x >= 2 && x < 6 && y >= 2 && y < 6 {
				c = color.NRGBA{A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	tests := []struct {
		mode Mode
		want string
	}{
		{Pixel, `<path id="p-1" fill="#fff" d="M0 0H8V8H0Z"/><path id="p-2" fill="#000" d="M2 2H6V6H2Z"/>`},
		{Polygon, `<path id="p-1" fill="#fff" d="M0 0H8V8H0Z"/><path id="p-2" fill="#000" d="M2 2H6V6H2Z"/>`},
		{Spline, `<path id="p-1" fill="#fff" d="M0 0H8V8H0Z"/><path id="p-2" fill="#000" d="M2 2H6V6H2Z"/>`},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		o.Mode = tt.mode
		out, err := Trace(context.Background(), img, o)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("mode %d: %s, want %s", tt.mode, out, tt.want)
		}
	}
}

// BenchmarkTrace times Trace with VTracer's defaults on every image of the bench corpus,
// one sub-benchmark per category and image (go test -bench Trace/photo ...). The
// per-category median of ns/op is what compares with vtracer-default's in-process ms.
func BenchmarkTrace(b *testing.B) {
	for _, preset := range []struct {
		name string
		o    func() Options
	}{
		{"default", DefaultOptions},
		{"poster", func() Options { o := DefaultOptions(); o.ColorPrecision = 8; return o }},
		{"photo", func() Options {
			o := DefaultOptions()
			o.ColorPrecision, o.FilterSpeckle, o.LayerDifference, o.CornerThreshold = 8, 10, 48, 180
			return o
		}},
	} {
		b.Run(preset.name, func(b *testing.B) {
			for _, cat := range []string{"logo", "poster", "photo", "lineart"} {
				b.Run(cat, func(b *testing.B) {
					for _, path := range enginetest.CorpusImages(b, cat) {
						img := enginetest.LoadPNG(b, path)
						b.Run(enginetest.Name(path), func(b *testing.B) {
							o := preset.o()
							for b.Loop() {
								if _, err := Trace(context.Background(), img, o); err != nil {
									b.Fatal(err)
								}
							}
						})
					}
				})
			}
		})
	}
}

// TestPeakMemory16MP traces a 16-megapixel photo-like image (the corpus photo of the
// largest size, tiled to 4096x4096) and reports the peak heap. It runs only when
// VTRACER_MEM=1 (it takes seconds); VTRACER_MEM_SIDE=6325 makes the image 40 MP.
func TestPeakMemory16MP(t *testing.T) {
	if os.Getenv("VTRACER_MEM") == "" {
		t.Skip("set VTRACER_MEM=1")
	}
	src := enginetest.LoadPNG(t, enginetest.CorpusImages(t, "photo")[0])
	n := 4096
	if v, err := strconv.Atoi(os.Getenv("VTRACER_MEM_SIDE")); err == nil && v > 0 && v <= 1<<14 {
		n = v
	}
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			// Mirror-tile so the seams are not edges.
			tx, ty := x%(2*sw), y%(2*sh)
			if tx >= sw {
				tx = 2*sw - 1 - tx
			}
			if ty >= sh {
				ty = 2*sh - 1 - ty
			}
			img.SetNRGBA(x, y, src.NRGBAAt(tx, ty))
		}
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := uint64(0)
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			default:
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	start := time.Now()
	out, err := Trace(context.Background(), img, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%dx%d: %d bytes of SVG in %v (a memory sampler running beside)", n, n, len(out), time.Since(start).Round(time.Millisecond))
	close(done)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t.Logf("heap in use before %.0f MB (the image: %.0f MB), peak sampled %.0f MB; total allocated %.0f MB",
		float64(before.HeapInuse)/1e6, float64(len(img.Pix))/1e6, float64(peak)/1e6,
		float64(after.TotalAlloc-before.TotalAlloc)/1e6)
}

// BenchmarkTraceBW times the bw mode with VTracer's bw preset (defaults, binary) on the
// corpus, one sub-benchmark per category and image.
func BenchmarkTraceBW(b *testing.B) {
	for _, cat := range []string{"logo", "poster", "photo", "lineart"} {
		b.Run(cat, func(b *testing.B) {
			for _, path := range enginetest.CorpusImages(b, cat) {
				img := enginetest.LoadPNG(b, path)
				b.Run(enginetest.Name(path), func(b *testing.B) {
					o := DefaultOptions()
					o.BW = true
					for b.Loop() {
						if _, err := Trace(context.Background(), img, o); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
