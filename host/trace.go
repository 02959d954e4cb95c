package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/output"
	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/host/internal/tracing"
)

// trace traces image files through the plugins, with the same checks and settings as
// the service. One input (a file, or - for stdin) goes to stdout or -o FILE; several,
// or a folder, go to -o DIR as NAME.svg, -j at a time, with a progress bar when stderr
// is a terminal and a summary. What auto chose is said on stderr. The format is the one
// -o's file name ends with (.svg, .pdf, .eps, .dxf, .png), else the settings'
// output.format, which also gives the files' ending in a folder.
func trace(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c common
	var rawSettings, out string
	var jobs int
	fs := newFlags("trace", stderr)
	fs.StringVar(&rawSettings, "settings", "", `settings as the service takes them, e.g. '{"engine":"potrace","potrace":{"turdSize":10}}'`)
	fs.StringVar(&out, "o", "", "write to this file instead of stdout, in the format its name ends with (.svg, .pdf, .eps, .dxf or .png); with several inputs or a folder, the folder to write NAME.svg (or the settings' output.format) files into")
	fs.IntVar(&jobs, "j", runtime.NumCPU(), "images traced at once when there are several")
	c.engineFlags(fs)
	fs.StringVar(&c.logLevel, "log-level", "off", "engine and plugin log lines on stderr: off, error, warn, info, debug or trace")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tracecraft trace [--settings JSON] [--plugins-dir DIR] [-o OUT.svg|.pdf|.eps|.dxf|.png] IN|-")
		fmt.Fprintln(stderr, "       tracecraft trace [--settings JSON] [-j N] -o DIR IN... | FOLDER...")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || jobs < 1 {
		fs.Usage()
		return errUsage
	}
	inputs, batch, err := listInputs(pos)
	if err != nil {
		return err
	}
	if batch && out == "" {
		return fmt.Errorf("%d images to trace: name the folder to write their files into with -o DIR", len(inputs))
	}
	st, err := os.Stat(out)
	toFolder := batch || (out != "" && err == nil && st.IsDir())

	reg := engines.New(engines.Config{Dir: c.pluginsDir, Processes: jobs, Logger: newLogger(c, stderr), MaxSVG: c.maxSVG})
	defer reg.Close()
	needed := enginesNeeded([]byte(rawSettings))
	n, err := reg.Reload(ctx, func(name string) bool { return needed == nil || needed[name] })
	if err == nil && n == 0 && needed != nil {
		// None of the engines the settings name is installed: load them all, so that
		// the settings' check names the ones there are.
		n, err = reg.Reload(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("read the plugins folder %s: %w", c.pluginsDir, err)
	}
	if n == 0 {
		return fmt.Errorf("no engine plugins could be loaded from %s; set --plugins-dir", c.pluginsDir)
	}
	svc := &tracing.Service{Engines: reg, Presets: selector.Presets(), MaxPixels: c.maxPixels, JobTimeout: c.jobTimeout, AutoOnce: c.autoOnce}
	cat := svc.Catalog()
	set, err := settings.Parse([]byte(rawSettings), cat)
	if err != nil {
		return describe("--settings", err)
	}
	format := set.Output.Format
	if toFolder {
		// NAME.<format> in the folder.
		if err := assignOutputs(inputs, out, format); err != nil {
			return err
		}
	} else {
		if format, err = outputFormat(out, set.Output); err != nil {
			return err
		}
		inputs[0].out = out
	}
	limits := imagecheck.Limits{MaxBytes: c.maxUpload, MaxPixels: c.maxPixels}
	one := func(in *traceInput) error {
		image, err := readImage(in.path, c.maxUpload)
		if err != nil {
			return err
		}
		in.size = len(image)
		info, err := imagecheck.Check(image, limits)
		if err != nil {
			return describe(in.name, err)
		}
		if err := output.Check(format, set.Output.Size, info.Width, info.Height); err != nil {
			return describe("--settings", err)
		}
		res, err := svc.Run(ctx, tracing.Job{Image: image, Info: info, Settings: set, Catalog: cat})
		if err != nil {
			return describe(in.name, err)
		}
		file, err := output.Convert(ctx, res.SVG, format, set.Output.Size, res.Width, res.Height)
		if err != nil {
			return describe(in.name, err)
		}
		in.res, in.outSize = &res, len(file.Data)
		if set.Output.Quality {
			score := res.Quality
			if score == nil {
				s, err := fidelity.ScoreFile(ctx, res.Traced, c.maxPixels, res.SVG)
				if err != nil {
					return describe(in.name, err)
				}
				score = &s
			}
			in.quality = score.Round().String()
		}
		if set.NeedsAnalysis() {
			in.auto = true
		}
		in.tuned = len(set.Params[res.Engine]) > 0
		if in.out == "" {
			_, err = stdout.Write(file.Data)
			return err
		}
		return os.WriteFile(in.out, file.Data, 0o644)
	}
	if !batch {
		in := &inputs[0]
		err := one(in)
		if err == nil && in.auto {
			fmt.Fprintf(stderr, "tracecraft: auto chose %s\n", in.choice())
		}
		if err == nil && in.quality != "" {
			fmt.Fprintf(stderr, "tracecraft: quality %s\n", in.quality)
		}
		return err
	}
	return traceAll(ctx, inputs, jobs, out, one, stderr)
}

// traceInput is one image to trace and what became of it.
type traceInput struct {
	// name is how messages call it (its path, or "stdin"); path is where it is read
	// ("-" for stdin); out is where its SVG goes ("" for stdout).
	name, path, out string
	size, outSize   int // bytes read and written
	res             *tracing.Result
	auto            bool   // auto chose the preset and engine
	tuned           bool   // the settings gave parameters of the engine that traced it
	quality         string // the trace's score, when output.quality asks for it
	err             error
	took            time.Duration
}

// choice says what traced the image: the preset and engine.
func (in *traceInput) choice() string {
	if in.res.Preset == "" {
		if in.tuned {
			return "engine " + in.res.Engine + " with the parameters given"
		}
		return "engine " + in.res.Engine + " at its defaults"
	}
	preset := "the " + in.res.Preset + " preset"
	if in.res.Variant != "" {
		preset += " (" + in.res.Variant + ")"
	}
	if len(in.res.Tried) > 1 {
		// Preset best: what it compared.
		var others []string
		for _, t := range in.res.Tried[1:] {
			if t.Quality != nil && t.Quality.SSIM != nil {
				others = append(others, fmt.Sprintf("%s %s ssim %.4f", t.Preset, t.Engine, *t.Quality.SSIM))
			} else {
				others = append(others, fmt.Sprintf("%s %s: %v", t.Preset, t.Engine, t.Err))
			}
		}
		preset += " over " + strings.Join(others, ", ")
	}
	return preset + " (engine " + in.res.Engine + ")"
}

// imageExts are the file name endings a folder's images are recognised by.
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".webp": true, ".bmp": true, ".tif": true, ".tiff": true}

// listInputs expands the command's arguments: files, "-" for stdin (once), and folders,
// which stand for the image files directly in them, by name. batch is true for more than
// one image or any folder.
func listInputs(args []string) (inputs []traceInput, batch bool, err error) {
	stdin := false
	for _, a := range args {
		if a == "-" {
			if stdin {
				return nil, false, errors.New("- (stdin) may be given once")
			}
			stdin = true
			inputs = append(inputs, traceInput{name: "stdin", path: "-"})
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			inputs = append(inputs, traceInput{name: a, path: a}) // a missing file is reported when read
			continue
		}
		batch = true
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, false, err
		}
		found := 0
		for _, e := range entries {
			if e.Type().IsRegular() && imageExts[strings.ToLower(filepath.Ext(e.Name()))] {
				p := filepath.Join(a, e.Name())
				inputs = append(inputs, traceInput{name: p, path: p})
				found++
			}
		}
		if found == 0 {
			return nil, false, fmt.Errorf("%s holds no image files (.png, .jpg, .jpeg, .webp, .bmp, .tif, .tiff)", a)
		}
	}
	return inputs, batch || len(inputs) > 1, nil
}

// assignOutputs names each input's file in the folder dir (created if needed): its file
// name with the format's ending for its extension (.svg, .pdf ...), stdin.svg for stdin.
// Two inputs with the same name are refused before anything is traced.
func assignOutputs(inputs []traceInput, dir string, format output.Format) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	by := map[string]string{}
	var clashes []string
	for i := range inputs {
		base := "stdin"
		if inputs[i].path != "-" {
			base = strings.TrimSuffix(filepath.Base(inputs[i].path), filepath.Ext(inputs[i].path))
		}
		out := filepath.Join(dir, base+"."+string(format))
		if prev, ok := by[out]; ok {
			clashes = append(clashes, fmt.Sprintf("%s and %s", prev, inputs[i].name))
		}
		by[out] = inputs[i].name
		inputs[i].out = out
	}
	if len(clashes) > 0 {
		return fmt.Errorf("inputs would write the same file in %s: %s; trace them in separate runs", dir, strings.Join(clashes, "; "))
	}
	return nil
}

// traceAll traces inputs jobs at a time with one, reporting each as it ends (above a
// progress bar when stderr is a terminal), then a summary. It fails when any image did.
func traceAll(ctx context.Context, inputs []traceInput, jobs int, dir string, one func(*traceInput) error, stderr io.Writer) error {
	start := time.Now()
	p := newProgress(stderr, len(inputs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(inputs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				in := &inputs[i]
				t0 := time.Now()
				in.err = one(in)
				in.took = time.Since(t0)
				p.done(in)
			}
		}()
	}
feed:
	for i := range inputs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	p.stop()

	var failed []string
	var inBytes, outBytes int
	for _, in := range inputs {
		if in.res == nil || in.err != nil {
			failed = append(failed, in.name)
			continue
		}
		inBytes += in.size
		outBytes += in.outSize
	}
	ok := len(inputs) - len(failed)
	fmt.Fprintf(stderr, "traced %d of %d images into %s in %.1f s, %d at a time (%s in, %s out)",
		ok, len(inputs), dir, time.Since(start).Seconds(), min(jobs, len(inputs)), humanBytes(inBytes), humanBytes(outBytes))
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "; %d failed: %s", len(failed), strings.Join(failed, ", "))
	}
	fmt.Fprintln(stderr)
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d images failed", len(failed), len(inputs))
	}
	return nil
}

// humanBytes writes n bytes for a person.
func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// progress reports a batch: one line per image, and on a terminal a bar below them,
// redrawn as images end and as time passes.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	total    int
	finished int
	failed   int
	start    time.Time
	quit     chan struct{}
	wg       sync.WaitGroup
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, terminal: isTerminal(w), total: total, start: time.Now(), quit: make(chan struct{})}
	if p.terminal {
		p.draw()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				case <-p.quit:
					return
				}
			}
		}()
	}
	return p
}

// done reports one image's end.
func (p *progress) done(in *traceInput) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished++
	var line string
	if in.err != nil {
		p.failed++
		line = "failed: " + strings.ReplaceAll(in.err.Error(), "\n", "\n  ")
	} else {
		line = fmt.Sprintf("%s -> %s: %s%s, %.2f s, %s", in.name, in.out, map[bool]string{true: "auto chose ", false: ""}[in.auto],
			in.choice(), in.took.Seconds(), humanBytes(in.outSize))
		if in.quality != "" {
			line += ", " + in.quality
		}
	}
	if p.terminal {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintln(p.w, line)
	if p.terminal {
		p.draw()
	}
}

// draw writes the bar: [=====>    ] done/total, failures, elapsed time. The caller
// holds mu.
func (p *progress) draw() {
	const width = 30
	filled := width * p.finished / p.total
	bar := strings.Repeat("=", filled)
	if filled < width {
		bar += ">" + strings.Repeat(" ", width-filled-1)
	}
	failed := ""
	if p.failed > 0 {
		failed = fmt.Sprintf(", %d failed", p.failed)
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s] %d/%d%s  %.1f s", bar, p.finished, p.total, failed, time.Since(p.start).Seconds())
}

// stop ends the bar, leaving the line clear for the summary.
func (p *progress) stop() {
	close(p.quit)
	p.wg.Wait()
	if p.terminal {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// readImage reads the file at path, refusing one larger than limit without reading it
// all;
// "-" reads stdin.
func readImage(path string, limit int64) ([]byte, error) {
	f := os.Stdin
	if path != "-" {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, err
		}
		defer f.Close()
	} else {
		path = "stdin"
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: the file is larger than %d bytes (--max-upload)", path, limit)
	}
	return data, nil
}

// enginesNeeded returns the engines a settings string can use, so the trace command
// starts only those: the explicit engine or the preset's, and every engine whose
// parameters are given (they are validated too). nil means all (auto, or settings too
// broken to tell: validation will report them).
func enginesNeeded(raw []byte) map[string]bool {
	var top map[string]json.RawMessage
	if len(strings.TrimSpace(string(raw))) == 0 || json.Unmarshal(raw, &top) != nil {
		return nil
	}
	var engine, preset string
	if v, ok := top["engine"]; ok && json.Unmarshal(v, &engine) != nil {
		return nil
	}
	if v, ok := top["preset"]; ok && json.Unmarshal(v, &preset) != nil {
		return nil
	}
	need := map[string]bool{}
	switch {
	case engine != "" && engine != settings.Auto:
		need[engine] = true
	case preset != "" && preset != settings.Auto:
		for _, p := range selector.Presets() {
			if p.Name == preset {
				need[p.Engine] = true
				for _, v := range p.Variants {
					need[v.Engine] = true
				}
			}
		}
		if len(need) == 0 {
			return nil
		}
	default:
		return nil
	}
	for k := range top {
		if k != "engine" && k != "preset" {
			need[k] = true
		}
	}
	return need
}

// describe turns a tracing error into the message the command prints: the error's
// sentence, then each detail on its own line.
func describe(subject string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	fe := fault.As(err)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (%s)", subject, fe.Message, fe.Code)
	for _, d := range fe.Details {
		fmt.Fprintf(&b, "\n  %s: %s", d.Field, d.Message)
		if d.Value != nil {
			fmt.Fprintf(&b, " (got %v)", d.Value)
		}
	}
	return errors.New(b.String())
}

// outputFormat returns the format to write: the one the output file's name ends with, or
// the settings' output.format when there is no file or its extension is not a format's.
// A name and an output.format that disagree are an error.
func outputFormat(out string, opts output.Options) (output.Format, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(out), "."))
	for _, f := range output.Formats {
		if string(f) != ext {
			continue
		}
		if opts.FormatGiven && opts.Format != f {
			return "", fmt.Errorf("-o %s asks for %s but the settings' output.format is %q: leave one out", out, f, opts.Format)
		}
		return f, nil
	}
	return opts.Format, nil
}
