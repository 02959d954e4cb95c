package vector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/host/internal/vector"
	"github.com/tracecraft/tracecraft/internal/testbin"
	potrace "github.com/tracecraft/tracecraft/plugins/potrace/engine"
	tracecraft "github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	vtracer "github.com/tracecraft/tracecraft/plugins/vtracer/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// The fidelity tests check each writer with a real reader, not our own parser: PDF and
// EPS rendered by Ghostscript, PNG decoded by image/png, each compared by SSIM with
// resvg's render of the SVG; DXF read back by ezdxf. make fidelity-tools installs them
// (make test runs it); a missing tool skips the tests, and fails them under CI=1.
//
// By default (make test) PNG, and PDF and EPS under the first reader, are checked on
// every bench corpus image, the 4x reader and DXF on the first image of each category;
// TRACECRAFT_FIDELITY=all checks everything on every image. TRACECRAFT_FIDELITY_OUT=DIR keeps
// each SVG, resvg's render, our PNG, the PDF and EPS and Ghostscript's renders (binary
// PPM files) there as DIR/ENGINE-CATEGORY-NAME.*, to be looked at.

// MinSSIM is the fidelity target of every format against resvg's render of the SVG.
const MinSSIM = 0.99

// Ghostscript fills by PostScript's rule for printers, every pixel a shape touches,
// even inside its anti-aliasing buffer (its "fill adjust"), which fattens every shape
// by a fraction of a pixel and darkens a photo's thousands of edges. Two reader settings
// are checked; readers lists them.
//
// superSample is the factor Ghostscript renders at, in the second, before the box
// filter brings the render back to the image's pixels.
const superSample = 4

// reader is a way to render a PDF or EPS file with Ghostscript.
type reader struct {
	name string
	// args are Ghostscript's options besides the device, output and page size.
	args []string
	// down is the box filter's factor back to the image's pixels.
	down int
}

// readers are the Ghostscript settings the fidelity test renders with: at the image's
// resolution, anti-aliased, with the fill adjust off (.setfilladjust2 is Ghostscript's
// own operator for it; cups-filters' gstoraster sets it too); and at 4x with the
// default fill adjust, box-filtered down, which is what rendering big and downscaling
// gives.
var readers = []reader{
	{"gs", []string{"-r96", "-dGraphicsAlphaBits=4", "-dTextAlphaBits=4", "-c", "0 0 .setfilladjust2", "-f"}, 1},
	{"gs 4x", []string{"-r" + strconv.Itoa(96*superSample), "-dGraphicsAlphaBits=4", "-dTextAlphaBits=4"}, superSample},
}

// tool returns the path of a tool the fidelity tests need, skipping the test (failing
// under CI) when it is missing.
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		testbin.Missing(t, name+" is not installed (make fidelity-tools installs it)")
	}
	return p
}

type traced struct {
	engine, name string
	svg          []byte
	w, h         int
	// full marks the traces every check runs on (the first image of each category, or
	// all with TRACECRAFT_FIDELITY=all); the others get the quick checks.
	full bool
}

var (
	corpusOnce   sync.Once
	corpusTraced []traced
	corpusErr    string
)

// traceCorpus traces the corpus images the run covers with the three bundled engines at
// their defaults, once for all the tests.
func traceCorpus(t *testing.T) []traced {
	corpus := enginetest.CorpusDir(t)
	if paths, _ := filepath.Glob(filepath.Join(corpus, "*", "*.png")); len(paths) == 0 {
		testbin.Missing(t, "the bench corpus is not there ("+corpus+")")
	}
	corpusOnce.Do(func() { corpusTraced, corpusErr = traceAll(corpus) })
	if corpusErr != "" {
		t.Fatal(corpusErr)
	}
	return corpusTraced
}

func traceAll(corpus string) ([]traced, string) {
	paths, _ := filepath.Glob(filepath.Join(corpus, "*", "*.png"))
	sort.Strings(paths)
	all := os.Getenv("TRACECRAFT_FIDELITY") == "all"
	// An engine serves one trace at a time: each worker has its own.
	type engine struct {
		name  string
		trace func(*image.NRGBA) ([]byte, error)
	}
	newEngines := func() []engine {
		return []engine{
			{"tracecraft", tracer(tracecraft.New())},
			{"vtracer", tracer(vtracer.New())},
			{"potrace", tracer(potrace.New())},
		}
	}
	engines := newEngines()
	seen := map[string]bool{}
	out := make([]traced, len(paths)*len(engines))
	for i, p := range paths {
		cat := filepath.Base(filepath.Dir(p))
		full := all || !seen[cat]
		seen[cat] = true
		for k, e := range engines {
			out[i*len(engines)+k] = traced{engine: e.name, name: cat + "/" + strings.TrimSuffix(filepath.Base(p), ".png"), full: full}
		}
	}
	// The traces are independent: they run on every core, each into its own slot.
	errs := make([]string, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			engines := newEngines()
			for i := range next {
				img, err := loadPNG(paths[i])
				if err != nil {
					errs[i] = err.Error()
					continue
				}
				for k, e := range engines {
					it := &out[i*len(engines)+k]
					it.w, it.h = img.Bounds().Dx(), img.Bounds().Dy()
					if it.svg, err = e.trace(img); err != nil {
						errs[i] = fmt.Sprintf("%s on %s: %v", e.name, it.name, err)
						break
					}
				}
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			return nil, e
		}
	}
	return out, ""
}

func loadPNG(path string) (*image.NRGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := image.NewNRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out, nil
}

// tracer returns what traces an image with e at its defaults.
func tracer[P any](e sdk.Engine[P]) func(*image.NRGBA) ([]byte, error) {
	return tracerWith(e, map[string]any{})
}

// tracerWith returns what traces an image with e and the parameters settings.
func tracerWith[P any](e sdk.Engine[P], settings map[string]any) func(*image.NRGBA) ([]byte, error) {
	return func(img *image.NRGBA) ([]byte, error) {
		params, err := sdk.Decode[P](settings)
		if err != nil {
			return nil, err
		}
		return e.Trace(context.Background(), img, params)
	}
}

func TestFormatsRenderLikeTheSVG(t *testing.T) {
	t.Parallel()
	modules := testbin.ResvgModules(t)
	gs, gsErr := exec.LookPath("gs")
	dir := t.TempDir()
	keep := os.Getenv("TRACECRAFT_FIDELITY_OUT")
	items := traceCorpus(t)

	type job struct {
		SVG   string `json:"svg"`
		PNG   string `json:"png"`
		Width int    `json:"width"`
	}
	var jobs []job
	base := func(i int) string {
		if keep != "" {
			it := items[i]
			return filepath.Join(keep, it.engine+"-"+strings.ReplaceAll(it.name, "/", "-"))
		}
		return filepath.Join(dir, strconv.Itoa(i))
	}
	if keep != "" {
		if err := os.MkdirAll(keep, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, it := range items {
		if err := os.WriteFile(base(i)+".svg", it.svg, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{base(i) + ".svg", base(i) + ".resvg.png", it.w})
	}
	js, _ := json.Marshal(jobs)
	jobsFile := filepath.Join(dir, "jobs.json")
	os.WriteFile(jobsFile, js, 0o644)
	script, _ := filepath.Abs(filepath.Join("testdata", "resvg-render.mjs"))
	if out, err := exec.Command("node", script, modules, jobsFile).CombinedOutput(); err != nil {
		t.Fatalf("resvg: %v\n%s", err, out)
	}

	// The columns: PDF and EPS under each reader, then PNG.
	var formats []string
	if gsErr == nil {
		for _, r := range readers {
			formats = append(formats, "pdf ("+r.name+")", "eps ("+r.name+")")
		}
	}
	formats = append(formats, "png")
	var table []string
	worst := map[string]float64{}
	for _, f := range formats {
		worst[f] = 1
	}
	// Each trace's checks are independent (files of their own): they run as parallel
	// subtests, at most -parallel at once, and the table is put together after.
	scores := make([]map[string]float64, len(items))
	t.Run("each", func(t *testing.T) {
		for i, it := range items {
			t.Run(it.engine+"/"+it.name, func(t *testing.T) {
				t.Parallel()
				scores[i] = formatSSIM(t, gs, gsErr == nil, base(i), it, keep != "")
			})
		}
	})
	for i, it := range items {
		if scores[i] == nil {
			continue // its subtest failed
		}
		row := "| " + it.engine + " | " + it.name + " |"
		for _, f := range formats {
			ssim := scores[i][f]
			if math.IsNaN(ssim) {
				row += " – |"
				continue
			}
			worst[f] = math.Min(worst[f], ssim)
			if ssim < MinSSIM {
				t.Errorf("%s %s as %s: SSIM %.4f against resvg, want at least %g", it.engine, it.name, f, ssim, MinSSIM)
			}
			row += fmt.Sprintf(" %.4f |", ssim)
		}
		table = append(table, row)
	}
	head := "| engine | image | " + strings.Join(formats, " | ") + " |\n|---|---|" + strings.Repeat("---|", len(formats))
	var low []string
	for _, f := range formats {
		low = append(low, fmt.Sprintf("%s %.4f", f, worst[f]))
	}
	t.Logf("SSIM against resvg (luma, 11x11 Gaussian window):\n%s\n%s\nworst: %s", head, strings.Join(table, "\n"), strings.Join(low, ", "))
	if gsErr != nil {
		testbin.Missing(t, "gs is not installed (make fidelity-tools installs it): PDF and EPS were not checked")
	}
}

// formatSSIM scores one trace's PNG, and its PDF and EPS when withGS, against resvg's
// render at base.resvg.png, keyed by format as the table's columns are; it keeps our
// PNG at base.png when keep.
func formatSSIM(t *testing.T, gs string, withGS bool, base string, it traced, keep bool) map[string]float64 {
	ref := readPNG(t, base+".resvg.png")
	doc, err := vector.Parse(it.svg)
	if err != nil {
		t.Fatalf("%s %s: %v", it.engine, it.name, err)
	}
	ssim := map[string]float64{}
	if withGS {
		pageSSIM(t, gs, base, doc, ref, it.w, it.h, it.full, ssim)
	}
	var pngData bytes.Buffer
	if err := vector.WritePNG(context.Background(), &pngData, doc, it.w, it.h); err != nil {
		t.Fatal(err)
	}
	if keep {
		os.WriteFile(base+".png", pngData.Bytes(), 0o644)
	}
	decoded, err := png.Decode(bytes.NewReader(pngData.Bytes()))
	if err != nil {
		t.Fatalf("%s %s: our PNG does not decode: %v", it.engine, it.name, err)
	}
	ssim["png"] = compare(t, ref, decoded)
	return ssim
}

// pageSSIM writes the document as PDF and EPS files at base.pdf and base.eps, a w x h
// pixel image's size in points at 96 dpi, renders each with Ghostscript under each
// reader setting and puts their SSIM against ref in ssim, keyed "pdf (reader)".
func pageSSIM(t *testing.T, gs, base string, doc *vector.Document, ref image.Image, w, h int, full bool, ssim map[string]float64) {
	wPt, hPt := float64(w)*0.75, float64(h)*0.75
	var pdf, eps bytes.Buffer
	if err := vector.WritePDF(&pdf, doc, wPt, hPt); err != nil {
		t.Fatal(err)
	}
	if err := vector.WriteEPS(&eps, doc, wPt, hPt); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(base+".pdf", pdf.Bytes(), 0o644)
	os.WriteFile(base+".eps", eps.Bytes(), 0o644)
	// An EPS has no page: the page is its bounding box.
	page := []string{"-dDEVICEWIDTHPOINTS=" + strconv.FormatFloat(wPt, 'f', -1, 64), "-dDEVICEHEIGHTPOINTS=" + strconv.FormatFloat(hPt, 'f', -1, 64), "-dFIXEDMEDIA"}
	for k, r := range readers {
		if k > 0 && !full {
			ssim["pdf ("+r.name+")"], ssim["eps ("+r.name+")"] = math.NaN(), math.NaN()
			continue
		}
		out := base + ".gs" + strconv.Itoa(k+1)
		ssim["pdf ("+r.name+")"] = compare(t, ref, boxDown(ghostscript(t, gs, base+".pdf", out+".pdf.ppm", r.args...), r.down))
		ssim["eps ("+r.name+")"] = compare(t, ref, boxDown(ghostscript(t, gs, base+".eps", out+".eps.ppm", append(page, r.args...)...), r.down))
	}
}

// ghostscript renders the first page of a PDF or EPS file with extra options into the
// binary PPM file out and returns the image. PPM rather than PNG: Ghostscript writes it
// and readPPM reads it without compressing, which was about 15 CPU seconds of the
// fidelity test (the rasteriser and its anti-aliasing are the same for both devices).
func ghostscript(t *testing.T, gs, file, out string, opts ...string) *image.RGBA {
	args := append([]string{"-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=ppmraw", "-dGraphicsAlphaBits=4", "-o", out}, opts...)
	if msg, err := exec.Command(gs, append(args, file)...).CombinedOutput(); err != nil {
		t.Fatalf("gs %s: %v\n%s", file, err, msg)
	}
	return readPPM(t, out)
}

// readPPM reads a binary PPM (P6) file of maxval 255, as Ghostscript's ppmraw device
// writes it, into an opaque RGBA image.
func readPPM(t *testing.T, file string) *image.RGBA {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The header: P6, the width, the height and the maxval, separated by white space,
	// with comments from # to the end of a line; one white-space byte ends it.
	var fields []int
	i := 2
	for len(fields) < 3 && i < len(data) {
		switch c := data[i]; {
		case c == '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c >= '0' && c <= '9':
			n := 0
			for ; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
				n = n*10 + int(data[i]-'0')
			}
			fields = append(fields, n)
		default:
			i++
		}
	}
	i++
	if !bytes.HasPrefix(data, []byte("P6")) || len(fields) < 3 || fields[2] != 255 || len(data)-i < fields[0]*fields[1]*3 {
		t.Fatalf("%s: not a binary PPM of maxval 255 (header fields %v, %d bytes)", file, fields, len(data))
	}
	img := image.NewRGBA(image.Rect(0, 0, fields[0], fields[1]))
	px := data[i:]
	for p := 0; p < fields[0]*fields[1]; p++ {
		copy(img.Pix[p*4:p*4+3], px[p*3:p*3+3])
		img.Pix[p*4+3] = 255
	}
	return img
}

func readPNG(t *testing.T, file string) image.Image {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return img
}

// boxDown shrinks img by an integer factor, averaging each k x k block (rounding down).
func boxDown(img *image.RGBA, k int) *image.RGBA {
	if k == 1 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx()/k, b.Dy()/k
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var s [4]int
			for dy := 0; dy < k; dy++ {
				row := img.Pix[img.PixOffset(b.Min.X+x*k, b.Min.Y+y*k+dy):]
				for dx := 0; dx < k*4; dx += 4 {
					s[0], s[1], s[2], s[3] = s[0]+int(row[dx]), s[1]+int(row[dx+1]), s[2]+int(row[dx+2]), s[3]+int(row[dx+3])
				}
			}
			o := out.PixOffset(x, y)
			for c := range s {
				out.Pix[o+c] = uint8(s[c] / (k * k))
			}
		}
	}
	return out
}

// compare returns the mean SSIM of two images over white, on their common size, as
// the quality score measures it (fidelity.Measure: BT.601 luma, an 11 x 11 Gaussian
// window of sigma 1.5 over the windows inside the image).
func compare(t *testing.T, a, b image.Image) float64 {
	w := min(a.Bounds().Dx(), b.Bounds().Dx())
	h := min(a.Bounds().Dy(), b.Bounds().Dy())
	if abs(a.Bounds().Dx()-b.Bounds().Dx()) > 1 || abs(a.Bounds().Dy()-b.Bounds().Dy()) > 1 {
		t.Errorf("render sizes differ: %v and %v", a.Bounds(), b.Bounds())
	}
	crop := func(img image.Image) image.Image {
		return img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(0, 0, w, h).Add(img.Bounds().Min))
	}
	s := fidelity.Measure(crop(a), crop(b))
	if s.SSIM == nil {
		t.Fatalf("a %d x %d render is smaller than the SSIM window", w, h)
	}
	return *s.SSIM
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// dxfRead is what ezdxf reads from a DXF.
type dxfRead struct {
	InsUnits  int           `json:"insunits"`
	ExtMax    [2]float64    `json:"extmax"`
	Layers    []string      `json:"layers"`
	Polylines []dxfPolyline `json:"polylines"`
}

type dxfPolyline struct {
	Layer  string       `json:"layer"`
	Closed bool         `json:"closed"`
	Points [][2]float64 `json:"points"`
}

func ezdxf(t *testing.T, file string) dxfRead {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "ezdxf-read.py"))
	out, err := exec.Command("/usr/bin/python3", script, file).Output()
	if err != nil {
		t.Fatalf("ezdxf on %s: %v", file, err)
	}
	var r dxfRead
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("ezdxf on %s: %v", file, err)
	}
	return r
}

func needEzdxf(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil || exec.Command("/usr/bin/python3", "-c", "import ezdxf").Run() != nil {
		testbin.Missing(t, "ezdxf is not installed (make fidelity-tools installs python3-ezdxf)")
	}
}

// TestDXFReadsBackLikeTheSVG reads each DXF back with ezdxf: one layer per fill colour,
// as many closed polylines per colour as the SVG has subpaths of that colour, and every
// point where the SVG's segments end found, in order, among the polyline's vertices
// within 0.01 units.
func TestDXFReadsBackLikeTheSVG(t *testing.T) {
	t.Parallel()
	needEzdxf(t)
	dir := t.TempDir()
	items := traceCorpus(t)
	// Each trace's check is independent (a file of its own, and ezdxf in a process of its
	// own, reading a photo's DXF for seconds): they run as parallel subtests, and the
	// table is put together after.
	rows := make([]string, len(items))
	t.Run("each", func(t *testing.T) {
		for i, it := range items {
			if !it.full {
				continue
			}
			t.Run(it.engine+"/"+it.name, func(t *testing.T) {
				t.Parallel()
				rows[i] = dxfReadBack(t, filepath.Join(dir, strconv.Itoa(i)+".dxf"), it)
			})
		}
	})
	var table []string
	for _, row := range rows {
		if row != "" {
			table = append(table, row)
		}
	}
	t.Logf("DXF read back by ezdxf:\n| engine | image | colour layers | closed shapes | worst distance |\n|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// dxfReadBack writes it as a DXF at file, reads it back with ezdxf and checks what it
// reads (see TestDXFReadsBackLikeTheSVG); it returns the trace's row of the table.
func dxfReadBack(t *testing.T, file string, it traced) string {
	doc, err := vector.Parse(it.svg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := vector.WriteDXF(&b, doc, doc.Width, doc.Height, vector.UnitsNone); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, b.Bytes(), 0o644)
	got := ezdxf(t, file)

	// What the SVG holds: per fill colour, its subpaths' segment ends, y up.
	want := map[string][][]vector.Point{}
	for _, s := range doc.Shapes {
		if s.Fill == nil {
			continue
		}
		layer := vector.DXFLayer(*s.Fill)
		var cur []vector.Point
		for _, seg := range s.Path {
			switch seg.Op {
			case vector.MoveTo:
				if len(cur) > 1 {
					want[layer] = append(want[layer], cur)
				}
				cur = nil
				fallthrough
			case vector.LineTo, vector.CubicTo:
				e := seg.End()
				cur = append(cur, vector.Point{X: e.X - doc.MinX, Y: doc.Height - (e.Y - doc.MinY)})
			}
		}
		if len(cur) > 1 {
			want[layer] = append(want[layer], cur)
		}
	}
	layers := []string{"0"}
	for l := range want {
		layers = append(layers, l)
	}
	sort.Strings(layers)
	var colourLayers []string // ezdxf adds a Defpoints layer of its own
	for _, l := range got.Layers {
		if l == "0" || strings.HasPrefix(l, "C-") {
			colourLayers = append(colourLayers, l)
		}
	}
	if strings.Join(colourLayers, ",") != strings.Join(layers, ",") {
		t.Errorf("%s %s: ezdxf reads %d layers, want %d (one per colour and 0)", it.engine, it.name, len(got.Layers), len(layers))
	}
	byLayer := map[string][]dxfPolyline{}
	for _, p := range got.Polylines {
		if !p.Closed {
			t.Errorf("%s %s: an open polyline on %s; a fill's outlines are closed", it.engine, it.name, p.Layer)
		}
		byLayer[p.Layer] = append(byLayer[p.Layer], p)
	}
	shapes, worst := 0, 0.0
	for layer, subpaths := range want {
		if len(byLayer[layer]) != len(subpaths) {
			t.Errorf("%s %s: layer %s has %d closed polylines, the SVG %d subpaths of that colour", it.engine, it.name, layer, len(byLayer[layer]), len(subpaths))
			continue
		}
		shapes += len(subpaths)
		for k, sp := range subpaths {
			pts := byLayer[layer][k].Points
			j := 0
			for _, p := range sp {
				// The end point of a closing segment may be the dropped repeat of the start.
				best := math.Inf(1)
				for j < len(pts) {
					d := math.Hypot(pts[j][0]-p.X, pts[j][1]-p.Y)
					if d <= 0.01 {
						// The nearest of the vertices from here on (flattened
						// curves put several close to a segment's end).
						best = d
						for j+1 < len(pts) {
							n := math.Hypot(pts[j+1][0]-p.X, pts[j+1][1]-p.Y)
							if n >= best {
								break
							}
							best, j = n, j+1
						}
						break
					}
					j++
				}
				if j == len(pts) {
					d := math.Hypot(pts[0][0]-p.X, pts[0][1]-p.Y)
					if d > 0.01 {
						t.Errorf("%s %s: layer %s polyline %d has no vertex within 0.01 of %v", it.engine, it.name, layer, k, p)
						break
					}
					best = d
					j = 0
				}
				worst = math.Max(worst, best)
			}
		}
	}
	if got.InsUnits != vector.UnitsNone {
		t.Errorf("%s %s: $INSUNITS %d, want 0 for pixels", it.engine, it.name, got.InsUnits)
	}
	return fmt.Sprintf("| %s | %s | %d | %d | %.4f |", it.engine, it.name, len(layers)-1, shapes, worst)
}

// TestReadersMeasureTheSize asks for a size in each unit and measures it with the real
// readers: Ghostscript's page (rendered at a known resolution), the PNG's pixels, the
// DXF's $INSUNITS and extents read by ezdxf.
func TestReadersMeasureTheSize(t *testing.T) {
	t.Parallel()
	gs := tool(t, "gs")
	needEzdxf(t)
	dir := t.TempDir()
	img, err := loadPNG(filepath.Join(enginetest.CorpusDir(t), "logo", "simpleicons-github.png"))
	if err != nil {
		testbin.Missing(t, err.Error())
	}
	svg, err := tracer(potrace.New())(img)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := vector.Parse(svg)
	aspect := doc.Height / doc.Width

	// PDF and EPS: 50 mm wide is 500 px at 254 dpi (10 px/mm).
	var pdf, eps bytes.Buffer
	wPt := 50 / 25.4 * 72
	vector.WritePDF(&pdf, doc, wPt, wPt*aspect)
	vector.WriteEPS(&eps, doc, wPt, wPt*aspect)
	os.WriteFile(filepath.Join(dir, "a.pdf"), pdf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "a.eps"), eps.Bytes(), 0o644)
	for _, f := range []string{"a.pdf", "a.eps"} {
		r := ghostscript(t, gs, filepath.Join(dir, f), filepath.Join(dir, f+".ppm"), "-r254", "-dEPSCrop")
		w, h := r.Bounds().Dx(), r.Bounds().Dy()
		// EPS bounding boxes are whole points: up to 1 pt (3.5 px at 254 dpi) more.
		slack := 1
		if f == "a.eps" {
			slack = 4
		}
		if w < 500 || w > 500+slack || float64(h) < 500*aspect-1 || float64(h) > 500*aspect+float64(slack) {
			t.Errorf("%s: Ghostscript renders %d x %d px at 254 dpi, want 500 x %.1f (50 mm wide)", f, w, h, 500*aspect)
		}
		t.Logf("%s 50 mm wide: Ghostscript page %d x %d px at 254 dpi = %.2f x %.2f mm", f, w, h, float64(w)/10, float64(h)/10)
	}

	// PNG: 2 in at 150 dpi is 300 px.
	var p bytes.Buffer
	if err := vector.WritePNG(context.Background(), &p, doc, 300, int(math.Round(300*aspect))); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(p.Bytes()))
	if err != nil || cfg.Width != 300 {
		t.Errorf("PNG: %v, %d px wide, want 300", err, cfg.Width)
	}

	// DXF: 8 cm wide, $INSUNITS 5 (cm), every vertex inside 8 x 8·aspect cm.
	var d bytes.Buffer
	vector.WriteDXF(&d, doc, 8, 8*aspect, vector.UnitsCM)
	os.WriteFile(filepath.Join(dir, "a.dxf"), d.Bytes(), 0o644)
	got := ezdxf(t, filepath.Join(dir, "a.dxf"))
	maxX, maxY := 0.0, 0.0
	for _, pl := range got.Polylines {
		for _, q := range pl.Points {
			maxX, maxY = math.Max(maxX, q[0]), math.Max(maxY, q[1])
		}
	}
	if got.InsUnits != vector.UnitsCM || math.Abs(got.ExtMax[0]-8) > 0.01 || math.Abs(got.ExtMax[1]-8*aspect) > 0.01 || maxX > 8.0001 || maxY > 8*aspect+0.0001 {
		t.Errorf("DXF: $INSUNITS %d, $EXTMAX %v, vertices up to %.3f x %.3f; want 5, 8 x %.3f", got.InsUnits, got.ExtMax, maxX, maxY, 8*aspect)
	}
	t.Logf("DXF 8 cm wide: ezdxf reads $INSUNITS %d, $EXTMAX %v, vertices up to %.3f x %.3f cm", got.InsUnits, got.ExtMax, maxX, maxY)
}

// TestEPSFlattensTranslucency renders, with Ghostscript, an EPS of a half-transparent
// blue square over a black one and over the white page: PostScript has no
// transparency, so the writer flattens it, and each part must show the blend.
func TestEPSFlattensTranslucency(t *testing.T) {
	t.Parallel()
	gs := tool(t, "gs")
	doc, err := vector.Parse([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 10">` +
		`<path fill="#000" d="M0 0H20V10H0Z"/><path fill="#00f" fill-opacity=".5" d="M10 0H30V10H10Z"/></svg>`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var eps bytes.Buffer
	if err := vector.WriteEPS(&eps, doc, 30, 10); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "a.eps")
	os.WriteFile(file, eps.Bytes(), 0o644)
	img := ghostscript(t, gs, file, file+".ppm", "-r72", "-dDEVICEWIDTHPOINTS=30", "-dDEVICEHEIGHTPOINTS=10", "-dFIXEDMEDIA")
	for _, c := range []struct {
		name string
		x    int
		want color.RGBA
	}{
		{"black alone", 5, color.RGBA{0, 0, 0, 255}},
		{"blue at half over black", 15, color.RGBA{0, 0, 128, 255}},
		{"blue at half over the page", 25, color.RGBA{128, 128, 255, 255}},
	} {
		r, g, b, _ := img.At(c.x, 5).RGBA()
		got := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
		if abs(int(got.R)-int(c.want.R)) > 3 || abs(int(got.G)-int(c.want.G)) > 3 || abs(int(got.B)-int(c.want.B)) > 3 {
			t.Errorf("%s: pixel %d,5 is %v, want %v", c.name, c.x, got, c.want)
		}
	}
}
