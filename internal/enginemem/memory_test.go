package enginemem_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// Limits of issue 20.
const (
	// idleLimit is the most an engine process may hold once idle after a job, and
	// idleWithin how soon it must get there.
	idleLimit  = 150 << 20
	idleWithin = 10 * time.Second
	// peakLimit is the most tracecraft's process may reach on a 16 MP photograph.
	peakLimit = 350 << 20
)

// startEngine builds and starts the bundled engine plugin in plugins/<name>.
func startEngine(t *testing.T, name string) *pluginhost.Client {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read a process's memory")
	}
	c, err := pluginhost.Start(pluginhost.Launch{Path: testbin.Build(t, "./plugins/"+name), StartTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Kill)
	return c
}

// posterPNG is a w x h flat-colour image with anti-aliased edges: overlapping discs on
// bands, the kind of picture tracecraft is for, which it traces fast at any size.
func posterPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	pal := []color.NRGBA{{230, 57, 70, 255}, {241, 250, 238, 255}, {168, 218, 220, 255}, {69, 123, 157, 255}, {29, 53, 87, 255}}
	type disc struct{ cx, cy, r float64 }
	discs := []disc{{0.3, 0.4, 0.25}, {0.7, 0.6, 0.2}, {0.5, 0.5, 0.1}}
	for y := range h {
		for x := range w {
			fx, fy := (float64(x)+0.5)/float64(w), (float64(y)+0.5)/float64(h)
			c := pal[int(fy*4)%2]
			for i, d := range discs {
				dx, dy := (fx-d.cx)*float64(w), (fy-d.cy)*float64(w)
				// Coverage of the disc's edge over one pixel.
				cov := min(1, max(0, d.r*float64(w)-math.Hypot(dx, dy)+0.5))
				if cov > 0 {
					p := pal[2+i]
					c = color.NRGBA{mix(c.R, p.R, cov), mix(c.G, p.G, cov), mix(c.B, p.B, cov), 255}
				}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return encode(t, img)
}

func mix(a, b uint8, t float64) uint8 { return uint8(float64(a)*(1-t) + float64(b)*t + 0.5) }

func encode(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// photoPNG is a 16.8 MP photograph: the corpus's skimage-astronaut enlarged 8 times
// bilinearly, with a fixed grain of +-6 levels added so that it keeps a photograph's
// texture at that size.
func photoPNG(t *testing.T) []byte {
	t.Helper()
	src := enginetest.LoadPNG(t, filepath.Join(enginetest.CorpusDir(t), "photo", "skimage-astronaut.png"))
	const k = 8
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	w, h := sw*k, sh*k
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	seed := uint32(1)
	for y := range h {
		sy := max(0, min(float64(sh-1), (float64(y)+0.5)/k-0.5))
		y0 := int(sy)
		y1, fy := min(sh-1, y0+1), sy-float64(y0)
		for x := range w {
			sx := max(0, min(float64(sw-1), (float64(x)+0.5)/k-0.5))
			x0 := int(sx)
			x1, fx := min(sw-1, x0+1), sx-float64(x0)
			o := img.PixOffset(x, y)
			for c := range 3 {
				at := func(x, y int) float64 { return float64(src.Pix[src.PixOffset(x, y)+c]) }
				v := (at(x0, y0)*(1-fx)+at(x1, y0)*fx)*(1-fy) + (at(x0, y1)*(1-fx)+at(x1, y1)*fx)*fy
				seed = seed*1664525 + 1013904223
				v += float64(seed>>24)/255*12 - 6
				img.Pix[o+c] = uint8(max(0, min(255, v+0.5)))
			}
			img.Pix[o+3] = 255
		}
	}
	return encode(t, img)
}

// TestAnIdleEngineGivesItsMemoryBack traces a 40 MP image through the tracecraft plugin
// process and then reads the process's resident memory until it is under idleLimit,
// failing if that takes longer than idleWithin.
func TestAnIdleEngineGivesItsMemoryBack(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("traces a 40 MP image")
	}
	c := startEngine(t, "tracecraft")
	img := posterPNG(t, 8000, 5000)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	if _, err := c.Trace(ctx, pluginhost.TraceRequest{Image: img}); err != nil {
		t.Fatal(err)
	}
	done := time.Now()
	pid := c.Pid()
	peak := testbin.Memory(t, pid, "VmHWM")
	var seen []string
	for {
		rss := testbin.Memory(t, pid, "VmRSS")
		since := time.Since(done)
		seen = append(seen, fmt.Sprintf("%.1fs %d MB", since.Seconds(), rss>>20))
		if rss < idleLimit {
			t.Logf("40 MP trace %.1f s, peak %d MB; idle under %d MB after %.1f s (%s)",
				done.Sub(start).Seconds(), peak>>20, idleLimit>>20, since.Seconds(), strings.Join(seen, ", "))
			return
		}
		if since > idleWithin {
			t.Fatalf("the idle engine still holds %d MB after %v (want under %d MB); resident memory after the job: %s",
				rss>>20, idleWithin, idleLimit>>20, strings.Join(seen, ", "))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// tracePeak traces img (what describes it) in a fresh plugin process of the engine name,
// logs the process's memory and times and returns its peak resident memory in bytes.
func tracePeak(t *testing.T, name, what string, img []byte) int64 {
	t.Helper()
	c := startEngine(t, name)
	before := testbin.Memory(t, c.Pid(), "VmRSS")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	r, err := c.Trace(ctx, pluginhost.TraceRequest{Image: img})
	if err != nil {
		t.Fatal(err)
	}
	peak := testbin.Memory(t, c.Pid(), "VmHWM")
	t.Logf("%s: %s, peak RSS %d MB (%d MB at start), trace %.1f s (plugin's own: decode %v, trace %v), SVG %d kB",
		name, what, peak>>20, before>>20, time.Since(start).Seconds(), r.Decode, r.Trace, len(r.SVG)>>10)
	return peak
}

// TestPeakMemoryOnA16MPPhoto traces a 16.8 MP photograph through tracecraft's plugin
// process, whose peak resident memory must stay under peakLimit, and reports it. With
// TRACECRAFT_MEMORY=all it also reports the other colour engines' peaks (tracecraft2,
// potrace2), which have no limit: the table of the memory notes, left out of a plain
// run because their two traces would only print figures.
func TestPeakMemoryOnA16MPPhoto(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("traces a 16 MP image")
	}
	img := photoPNG(t)
	engines := []string{"tracecraft"}
	if os.Getenv("TRACECRAFT_MEMORY") == "all" {
		engines = append(engines, "tracecraft2", "potrace2")
	}
	for _, name := range engines {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			peak := tracePeak(t, name, "16.8 MP photo", img)
			if name == "tracecraft" && peak > peakLimit {
				t.Errorf("tracecraft's process peaked at %d MB on a 16 MP photo, want at most %d MB", peak>>20, peakLimit>>20)
			}
		})
	}
}
