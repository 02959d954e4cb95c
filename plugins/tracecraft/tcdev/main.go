// Command tcdev is the tracecraft engine's development tool: it traces one PNG outside
// the plugin protocol and shows the intermediate segmentation.
//
// Usage:
//
//	go run ./plugins/tracecraft/tcdev trace [-params JSON] [-scale N] [-cpuprofile FILE] [-memprofile FILE] IN.png OUT.svg
//	go run ./plugins/tracecraft/tcdev segment [-maxColors N] [-minRegion N] IN.png OUT.png
//
// trace runs the engine as the plugin does, with parameters as the JSON object clients
// send under "tracecraft", and prints the trace time and the Go heap's peak. -scale N
// first enlarges the image N times with bilinear filtering (anti-aliased edges stay
// anti-aliased): -scale 4 turns a 1000 x 1000 image into a 16 megapixel one, for
// measuring time and memory on large inputs. Measure the whole process's peak memory
// with /usr/bin/time -v.
//
// segment writes the segmentation the curves are fitted to: every region painted in its
// colour (transparent ones stay transparent), and prints the palette and the number of
// regions, edges and junctions.
//
// The corpus of the bench is traced by the engine's tests instead:
//
//	TRACECRAFT_SVG_OUT=DIR TRACECRAFT_PARAMS='{"tolerance":1}' go test ./plugins/tracecraft/engine -run TestTraceCorpus
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/sdk"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "trace":
		err = trace(os.Args[2:])
	case "segment":
		err = segmentCmd(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tcdev:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: tcdev trace [-params JSON] [-scale N] [-cpuprofile FILE] [-memprofile FILE] IN.png OUT.svg\n       tcdev segment [-maxColors N] [-minRegion N] IN.png OUT.png")
	os.Exit(2)
}

func load(path string) (*image.NRGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		return nil, err
	}
	img := image.NewNRGBA(image.Rect(0, 0, src.Bounds().Dx(), src.Bounds().Dy()))
	draw.Draw(img, img.Rect, src, src.Bounds().Min, draw.Src)
	return img, nil
}

// enlarge scales img k times with bilinear filtering of the premultiplied colours.
func enlarge(img *image.NRGBA, k int) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := image.NewNRGBA(image.Rect(0, 0, w*k, h*k))
	px := func(x, y int) [4]float64 {
		x, y = max(0, min(w-1, x)), max(0, min(h-1, y))
		c := img.NRGBAAt(x, y)
		a := float64(c.A) / 255
		return [4]float64{float64(c.R) * a, float64(c.G) * a, float64(c.B) * a, float64(c.A)}
	}
	for y := 0; y < h*k; y++ {
		fy := (float64(y)+0.5)/float64(k) - 0.5
		y0 := int(fy+1) - 1 // floor for fy > -1
		ty := fy - float64(y0)
		for x := 0; x < w*k; x++ {
			fx := (float64(x)+0.5)/float64(k) - 0.5
			x0 := int(fx+1) - 1
			tx := fx - float64(x0)
			a, b, c, d := px(x0, y0), px(x0+1, y0), px(x0, y0+1), px(x0+1, y0+1)
			var v [4]float64
			for i := range v {
				v[i] = (a[i]*(1-tx)+b[i]*tx)*(1-ty) + (c[i]*(1-tx)+d[i]*tx)*ty
			}
			o := out.PixOffset(x, y)
			if v[3] > 0 {
				for i := 0; i < 3; i++ {
					out.Pix[o+i] = uint8(min(255, v[i]*255/v[3]+0.5))
				}
			}
			out.Pix[o+3] = uint8(v[3] + 0.5)
		}
	}
	return out
}

func trace(args []string) error {
	fs := flag.NewFlagSet("trace", flag.ExitOnError)
	paramsJSON := fs.String("params", "{}", "tracecraft parameters as a JSON object")
	scale := fs.Int("scale", 1, "enlarge the image this many times first")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the trace to this file")
	memprofile := fs.String("memprofile", "", "write a profile of the trace's allocations to this file")
	_ = fs.Parse(args)
	if fs.NArg() != 2 {
		usage()
	}
	img, err := load(fs.Arg(0))
	if err != nil {
		return err
	}
	if *scale > 1 {
		img = enlarge(img, *scale)
	}
	var given map[string]any
	if err := json.Unmarshal([]byte(*paramsJSON), &given); err != nil {
		return fmt.Errorf("-params: %v", err)
	}
	e := engine.New()
	params, err := sdk.Decode[engine.Params](given)
	if err != nil {
		return fmt.Errorf("-params: %v", err)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 64 << 10
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := watchHeap()
	start := time.Now()
	doc, err := e.Trace(context.Background(), img, params)
	elapsed := time.Since(start)
	heap := peak()
	if err != nil {
		return err
	}
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC() // publishes the allocations up to now
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			return err
		}
	}
	fmt.Printf("%d x %d px (%.1f MP): %.1f ms, %d bytes of SVG, Go heap peak %.0f MB (%.0f MB before tracing)\n",
		img.Rect.Dx(), img.Rect.Dy(), float64(img.Rect.Dx()*img.Rect.Dy())/1e6, float64(elapsed.Microseconds())/1000,
		len(doc), float64(heap)/(1<<20), float64(before.HeapAlloc)/(1<<20))
	return os.WriteFile(fs.Arg(1), doc, 0o644)
}

// watchHeap samples the Go heap every few milliseconds until the returned function is
// called, which reports the largest heap seen.
func watchHeap() func() uint64 {
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var peak uint64
		var m runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		return <-done
	}
}

func segmentCmd(args []string) error {
	fs := flag.NewFlagSet("segment", flag.ExitOnError)
	maxColors := fs.Int("maxColors", 16, "palette size")
	minRegion := fs.Int("minRegion", 25, "merge regions smaller than this many pixels")
	_ = fs.Parse(args)
	if fs.NArg() != 2 {
		usage()
	}
	img, err := load(fs.Arg(0))
	if err != nil {
		return err
	}
	seg, err := segment.Segment(context.Background(), img, segment.Options{MaxColors: *maxColors, MinRegion: *minRegion})
	if err != nil {
		return err
	}
	rm := seg.Regions
	out := image.NewNRGBA(img.Rect)
	for i, l := range rm.Labels {
		c := rm.Regions[l].Color
		out.Pix[4*i], out.Pix[4*i+1], out.Pix[4*i+2], out.Pix[4*i+3] = c.R, c.G, c.B, c.A
	}
	fmt.Printf("palette (%d):", len(seg.Quant.Palette))
	for _, c := range seg.Quant.Palette {
		fmt.Printf(" #%02x%02x%02x/%d", c.R, c.G, c.B, c.A)
	}
	fmt.Printf("\nflat share %.3f, %d regions, %d edges, %d junctions\n", seg.Quant.FlatFraction, len(rm.Regions), len(seg.Planar.Edges), len(seg.Planar.Junctions))
	f, err := os.Create(fs.Arg(1))
	if err != nil {
		return err
	}
	if err := png.Encode(f, out); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
