package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/output"
	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/host/internal/tracing"
)

// trace traces one image file through the plugins, with the same checks and settings as
// the service, and writes the SVG to stdout (or -o). The format is the one -o's file name
// ends with (.svg, .pdf, .eps, .dxf, .png), else the settings' output.format.
func trace(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c common
	var rawSettings, out string
	fs := newFlags("trace", stderr)
	fs.StringVar(&rawSettings, "settings", "", `settings as the service takes them, e.g. '{"engine":"potrace","potrace":{"turdSize":10}}'`)
	fs.StringVar(&out, "o", "", "write to this file instead of stdout, in the format its name ends with: .svg, .pdf, .eps, .dxf or .png")
	c.engineFlags(fs)
	fs.StringVar(&c.logLevel, "log-level", "warn", "trace, debug, info, warn or error")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tracecraft trace [--settings JSON] [--plugins-dir DIR] [-o OUT.svg|.pdf|.eps|.dxf|.png] IN")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	in := pos[0]
	image, err := readImage(in, c.maxUpload)
	if err != nil {
		return err
	}
	info, err := imagecheck.Check(image, imagecheck.Limits{MaxBytes: c.maxUpload, MaxPixels: c.maxPixels})
	if err != nil {
		return describe(in, err)
	}

	reg := engines.New(engines.Config{Dir: c.pluginsDir, Processes: 1, Logger: newLogger(c, stderr), MaxSVG: c.maxSVG})
	defer reg.Close()
	needed := enginesNeeded([]byte(rawSettings))
	n, err := reg.Reload(ctx, func(name string) bool { return needed == nil || needed[name] })
	if err != nil {
		return fmt.Errorf("read the plugins folder %s: %w", c.pluginsDir, err)
	}
	if n == 0 {
		return fmt.Errorf("no engine plugins could be loaded from %s; set --plugins-dir", c.pluginsDir)
	}
	svc := &tracing.Service{Engines: reg, Presets: selector.Presets(), MaxPixels: c.maxPixels, JobTimeout: c.jobTimeout}
	cat := svc.Catalog()
	set, err := settings.Parse([]byte(rawSettings), cat)
	if err != nil {
		return describe("--settings", err)
	}
	format, err := outputFormat(out, set.Output)
	if err != nil {
		return err
	}
	if err := output.Check(format, set.Output.Size, info.Width, info.Height); err != nil {
		return describe("--settings", err)
	}
	res, err := svc.Run(ctx, tracing.Job{Image: image, Info: info, Settings: set, Catalog: cat})
	if err != nil {
		return describe(in, err)
	}
	file, err := output.Convert(ctx, res.SVG, format, set.Output.Size)
	if err != nil {
		return describe(in, err)
	}
	if out == "" {
		_, err = stdout.Write(file.Data)
		return err
	}
	return os.WriteFile(out, file.Data, 0o644)
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

// readImage reads the file at path, refusing one larger than limit without reading it
// all.
func readImage(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
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
			}
		}
		if len(need) == 0 {
			return nil
		}
	default:
		return nil
	}
	for k := range top {
		if k != "engine" && k != "preset" && k != "output" {
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
