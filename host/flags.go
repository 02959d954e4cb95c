package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
)

// common are the flags every command has.
type common struct {
	dataDir    string
	db         string
	pluginsDir string
	maxPixels  int64
	maxUpload  int64
	maxSVG     int64
	jobTimeout time.Duration
	// autoOnce: auto never traces a runner-up (--auto-compare=false).
	autoOnce bool
	logLevel string
	logJSON  bool
}

// newFlags returns a flag set for command name that writes its help to stderr.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("tracecraft "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// storeFlags adds the flags that locate the store.
func (c *common) storeFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.dataDir, "data-dir", "./data", "folder for the embedded database and the running plugins' copies")
	fs.StringVar(&c.db, "db", "", `keys and usage database: empty for SQLite in the data dir, "sqlite:PATH", or a "postgres://..." URL shared by several hosts`)
}

// engineFlags adds the flags that configure tracing.
func (c *common) engineFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.pluginsDir, "plugins-dir", defaultPluginsDir(), "folder holding the tracecraft-engine-* plugin binaries")
	fs.Int64Var(&c.maxPixels, "max-pixels", imagecheck.DefaultMaxPixels, "largest image, in pixels (width x height), read from the header before decoding")
	fs.Int64Var(&c.maxUpload, "max-upload", imagecheck.DefaultMaxBytes, "largest image file, in bytes")
	fs.Int64Var(&c.maxSVG, "max-svg", engines.DefaultMaxSVG, "largest SVG an engine may answer, in bytes (a larger one is 500 output_too_large)")
	fs.DurationVar(&c.jobTimeout, "job-timeout", 60*time.Second, "longest one job may run before its engine process is killed (503)")
	fs.BoolFunc("auto-compare", "true (the default): preset auto also traces the runner-up setting, on a second engine process, when the image's measures leave its choice in doubt, and keeps the trace scoring higher; false: auto traces once, with its first choice (less engine work, a larger loss on the images in doubt)", func(v string) error {
		on, err := strconv.ParseBool(v)
		c.autoOnce = !on
		return err
	})
}

// logFlags adds the logging flags.
func (c *common) logFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.logLevel, "log-level", "info", "trace, debug, info, warn or error")
	fs.BoolVar(&c.logJSON, "log-json", false, "write log lines as JSON")
}

// defaultPluginsDir is the plugins folder beside the executable.
func defaultPluginsDir() string {
	exe, err := os.Executable()
	if err != nil {
		return "plugins"
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	return filepath.Join(filepath.Dir(exe), "plugins")
}

// defaultWorkers is the default number of workers per lane: the CPU count.
func defaultWorkers() int { return runtime.NumCPU() }

// parse parses args into fs, then sets each flag not given on the command line from its
// environment variable TRACECRAFT_<FLAG>, if set.
// Flags may come before and after the positional arguments, which Args returns.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, errHelp
			}
			return nil, errUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var problems []string
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] {
			return
		}
		env := envName(f.Name)
		if v, ok := os.LookupEnv(env); ok {
			if err := fs.Set(f.Name, v); err != nil {
				problems = append(problems, fmt.Sprintf("%s=%q: %v", env, v, err))
			}
		}
	})
	if len(problems) > 0 {
		fmt.Fprintln(fs.Output(), "tracecraft: bad environment:", strings.Join(problems, "; "))
		return nil, errUsage
	}
	return positional, nil
}

// envName is the environment variable of flag name: TRACECRAFT_ and the name in upper
// case with dashes as underscores.
func envName(name string) string {
	return "TRACECRAFT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}
