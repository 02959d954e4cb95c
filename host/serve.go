package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/host/internal/api"
	"github.com/tracecraft/tracecraft/host/internal/auth"
	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/lanes"
	"github.com/tracecraft/tracecraft/host/internal/metrics"
	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/host/internal/store"
	_ "github.com/tracecraft/tracecraft/host/internal/store/postgres" // store dialect
	_ "github.com/tracecraft/tracecraft/host/internal/store/sqlite"   // store dialect
	"github.com/tracecraft/tracecraft/host/internal/tracing"
)

// serveConfig holds the serve command's flags.
type serveConfig struct {
	common
	addr         string
	workers      int
	queue        int
	uploadMemory int64
	uploadRate   int64
	uploadGrace  time.Duration
	perClient    int
	idleTimeout  time.Duration
	crashLimit   int
	crashWindow  time.Duration
	crashBackoff time.Duration
	containment  string
	corsOrigins  string
	cpuProfile   string
}

// serve runs the HTTP service until ctx ends (SIGINT or SIGTERM), then drains it.
func serve(ctx context.Context, args []string, stderr io.Writer) error {
	m := &Main{Stderr: stderr}
	if err := m.ParseFlags(args); err != nil {
		return err
	}
	defer m.Close()
	if m.cfg.cpuProfile != "" {
		stop, err := startCPUProfile(m.cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := m.Open(ctx); err != nil {
		return err
	}
	return m.Run(ctx)
}

// startCPUProfile profiles the process's CPU into file until stop is called.
func startCPUProfile(file string) (stop func(), err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// Main is the serve command as a value: ParseFlags, Open, Run until the context ends,
// Close. Tests run it in-process the same way.
type Main struct {
	// Stderr receives the usage text and the log.
	Stderr io.Writer

	cfg    serveConfig
	logger hclog.Logger
	store  store.Store
	runDir string
	// containment is "cgroup" or "pgroup": how what an engine starts dies with it.
	containment string
	engines     *engines.Registry
	loaded      int
	public      *lanes.Lane
	keyed       *lanes.Lane
	api         *api.Server
	ln          net.Listener
	closers     []func() // run by Close, last first
}

// ParseFlags reads the serve command's flags.
func (m *Main) ParseFlags(args []string) error {
	cfg := &m.cfg
	fs := newFlags("serve", m.Stderr)
	fs.StringVar(&cfg.addr, "addr", ":8080", "address to listen on")
	fs.IntVar(&cfg.workers, "workers", defaultWorkers(), "workers per lane (public and keyed)")
	fs.IntVar(&cfg.queue, "queue", 32, "jobs that may wait per lane beyond those running; more are answered 429")
	fs.Int64Var(&cfg.uploadMemory, "upload-memory", 512<<20, "bytes of uploads held at once, all requests together; more are answered 429")
	fs.Int64Var(&cfg.uploadRate, "upload-min-rate", 16<<10, "least average rate, bytes per second, at which a request body must arrive after --upload-grace; a slower one is answered 408 upload_too_slow and its connection closed (0: no minimum)")
	fs.DurationVar(&cfg.uploadGrace, "upload-grace", 10*time.Second, "time a request body has before --upload-min-rate counts")
	fs.IntVar(&cfg.perClient, "uploads-per-client", 8, "uploads one client address may send at once (the connection's IP; behind a proxy, the proxy's); more are answered 429 too_many_uploads (0: no bound)")
	fs.DurationVar(&cfg.idleTimeout, "engine-idle-timeout", 5*time.Minute, "stop engine processes idle this long, keeping one per engine")
	fs.IntVar(&cfg.crashLimit, "crash-limit", 5, "crashes of an engine within --crash-window that mark it failing")
	fs.DurationVar(&cfg.crashWindow, "crash-window", time.Minute, "the window of --crash-limit")
	fs.DurationVar(&cfg.crashBackoff, "crash-backoff", 30*time.Second, "how long a failing engine's jobs are refused (503) before it is tried again; doubled when it fails again, up to 16 times")
	fs.StringVar(&cfg.containment, "containment", string(engines.ContainAuto), "how what an engine starts dies with it: auto (cgroup v2 where the host may create one, else process groups), cgroup (refuse to start without it) or pgroup")
	fs.StringVar(&cfg.corsOrigins, "cors-origins", "", `origins whose web pages may call the API from a browser, comma-separated ("https://app.example.com,https://*.example.org"), or "*" for any; empty allows none`)
	fs.StringVar(&cfg.cpuProfile, "cpu-profile", "", "write a CPU profile (pprof) of the host to this file until it stops, for finding where its time goes")
	cfg.storeFlags(fs)
	cfg.engineFlags(fs)
	cfg.logFlags(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fmt.Fprintf(m.Stderr, "tracecraft serve: unexpected argument %q\n", pos[0])
		return errUsage
	}
	if cfg.workers < 1 || cfg.queue < 0 || cfg.maxUpload < 1 || cfg.maxPixels < 1 || cfg.jobTimeout <= 0 || cfg.uploadMemory < cfg.maxUpload ||
		cfg.uploadRate < 0 || cfg.uploadGrace < 0 || cfg.perClient < 0 {
		fmt.Fprintln(m.Stderr, "tracecraft serve: --workers must be at least 1, --queue at least 0, --max-upload, --max-pixels and --job-timeout positive, --upload-memory at least --max-upload, --upload-min-rate, --upload-grace and --uploads-per-client at least 0")
		return errUsage
	}
	if _, err := parseOrigins(cfg.corsOrigins); err != nil {
		fmt.Fprintf(m.Stderr, "tracecraft serve: --cors-origins: %v\n", err)
		return errUsage
	}
	if _, err := engines.ParseContainment(cfg.containment); err != nil {
		fmt.Fprintf(m.Stderr, "tracecraft serve: --containment: %v\n", err)
		return errUsage
	}
	return nil
}

// Open opens the store, prepares the run folder, loads the engines, makes the lanes and
// the API server, and listens. What it opened is released by Close, also when it fails
// part way.
func (m *Main) Open(ctx context.Context) error {
	cfg := m.cfg
	m.logger = newLogger(cfg.common, m.Stderr)
	// Uploads held in memory are bounded by --upload-memory; a soft limit a little
	// above it makes the collector work harder before the process grows past it.
	debug.SetMemoryLimit(cfg.uploadMemory + 256<<20)

	st, err := openStore(ctx, cfg.common, m.logger)
	if err != nil {
		return err
	}
	m.store = st
	m.closers = append(m.closers, func() { st.Close() })

	if m.runDir, err = prepareRunDir(cfg.dataDir, m.logger); err != nil {
		return err
	}
	runDir := m.runDir
	m.closers = append(m.closers, func() { os.RemoveAll(runDir) })
	mode, _ := engines.ParseContainment(cfg.containment)
	cgroups, err := engines.Contain(mode, runDir, m.logger)
	if err != nil {
		return err
	}
	m.containment = "pgroup"
	if cgroups != nil {
		m.containment = "cgroup"
		// After the engines have stopped: kills what is left and removes the cgroup.
		m.closers = append(m.closers, func() { cgroups.Close() })
	}

	mets := metrics.New(buildVersion())
	m.engines = engines.New(engines.Config{
		Dir: cfg.pluginsDir, RunDir: runDir, Processes: 2 * cfg.workers,
		IdleTimeout: cfg.idleTimeout, Logger: m.logger, Observer: mets, MaxSVG: cfg.maxSVG,
		CrashLimit: cfg.crashLimit, CrashWindow: cfg.crashWindow, CrashBackoff: cfg.crashBackoff,
		Cgroups: cgroups,
	})
	m.closers = append(m.closers, m.engines.Close)
	m.loaded, err = m.engines.Reload(ctx, nil)
	if err != nil {
		m.logger.Error("cannot read the plugins folder; the service starts without engines", "dir", cfg.pluginsDir, "error", err)
	} else if m.loaded == 0 {
		m.logger.Warn("no engine plugins found; the service starts without engines", "dir", cfg.pluginsDir)
	}

	m.public = lanes.New(lanes.Config{Name: "public", Workers: cfg.workers, Capacity: cfg.queue})
	m.keyed = lanes.New(lanes.Config{Name: "keyed", Workers: cfg.workers, Capacity: cfg.queue, PerKey: (cfg.queue + 1) / 2})
	mets.WatchLanes(m.public, m.keyed)
	mets.WatchEngines(m.engines.Statuses)
	httpLog := m.logger.Named("http")
	m.api = &api.Server{
		Tracing: &tracing.Service{Engines: m.engines, Presets: selector.Presets(), MaxPixels: cfg.maxPixels, JobTimeout: cfg.jobTimeout, AutoOnce: cfg.autoOnce,
			Public: m.public, Keyed: m.keyed, Uploads: tracing.NewBudget(cfg.uploadMemory), Senders: tracing.NewClientUploads(cfg.perClient),
			Pace:  tracing.UploadPace{MinRate: cfg.uploadRate, Grace: cfg.uploadGrace, Limit: readTimeout},
			Usage: st, Logger: httpLog},
		Keys:   &auth.Keys{Store: st},
		Store:  st,
		Limits: imagecheck.Limits{MaxBytes: cfg.maxUpload, MaxPixels: cfg.maxPixels},
		// As many idle files as jobs run at once in both lanes: the steady state reuses
		// them, a burst makes more and closes them when done.
		ImageFiles: api.NewImageFiles(cfg.maxUpload, 2*cfg.workers),
		Build:      buildVersion(),
		Logger:     httpLog,
		Metrics:    mets,
	}
	m.api.CORSOrigins, _ = parseOrigins(cfg.corsOrigins)
	// Closed in reverse: the lanes finish their jobs before the image files go.
	m.closers = append(m.closers, m.api.ImageFiles.Close, m.public.Close, m.keyed.Close)

	if m.ln, err = net.Listen("tcp", cfg.addr); err != nil {
		return err
	}
	ln := m.ln
	m.closers = append(m.closers, func() { ln.Close() })
	return nil
}

// readTimeout bounds the time of a request, headers and body: a 10 MB upload gets two
// minutes even on a slow link (at least 87 KB/s). Within it, the upload handler cuts off
// a body slower than --upload-min-rate.
const readTimeout = 2 * time.Minute

// Addr is the address the service listens on, once Open has succeeded.
func (m *Main) Addr() net.Addr { return m.ln.Addr() }

// Run serves HTTP and rescans the plugins folder on SIGHUP until ctx ends, then lets
// the requests in flight finish (up to the job timeout and a little more); Close then
// stops the lanes. Every goroutine it starts has ended when it returns.
func (m *Main) Run(ctx context.Context) error {
	cfg, logger := m.cfg, m.logger
	httpSrv := &http.Server{
		Handler:           m.api.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// The answer may wait in the queue, so there is no write timeout.
		ReadTimeout:    readTimeout,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       logger.Named("http").StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}

	watchCtx, stopWatch := context.WithCancel(context.Background())
	var watchers sync.WaitGroup
	defer func() {
		stopWatch()
		watchers.Wait()
	}()
	rescan := make(chan struct{}, 1)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	watchers.Add(2)
	go func() {
		defer watchers.Done()
		for {
			select {
			case <-hup:
				select {
				case rescan <- struct{}{}:
				default:
				}
			case <-watchCtx.Done():
				return
			}
		}
	}()
	go func() {
		defer watchers.Done()
		m.engines.Watch(watchCtx, rescan)
	}()

	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(m.ln) }()
	logger.Info("listening", "addr", m.ln.Addr().String(), "plugins", cfg.pluginsDir, "engines", m.loaded,
		"workers", cfg.workers, "queue", cfg.queue, "store", m.store.Dialect(), "containment", m.containment, "version", buildVersion())

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing the jobs in flight")
	// Requests in flight get the job timeout plus a little to finish.
	shutCtx, cancel := context.WithTimeout(context.Background(), cfg.jobTimeout+5*time.Second)
	defer cancel()
	err := httpSrv.Shutdown(shutCtx)
	<-served
	if errors.Is(err, context.DeadlineExceeded) {
		logger.Warn("requests still running at the end of the grace period were cut off")
		err = nil
	}
	logger.Info("stopped")
	return err
}

// Close releases what Open opened, last first. It may be called after a failed Open.
func (m *Main) Close() error {
	for i := len(m.closers) - 1; i >= 0; i-- {
		m.closers[i]()
	}
	m.closers = nil
	return nil
}

// parseOrigins reads the --cors-origins list: "*", or origins as a browser sends them
// (scheme://host[:port], no path), where the host may start with "*." for any
// subdomain.
func parseOrigins(list string) ([]string, error) {
	var out, bad []string
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o == "*" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(strings.Replace(o, "://*.", "://wildcard.", 1))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil || u.Fragment != "" {
			bad = append(bad, fmt.Sprintf("%q", o))
			continue
		}
		out = append(out, o)
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%s: an origin is scheme://host[:port] with no path (e.g. https://app.example.com), or *", strings.Join(bad, ", "))
	}
	return out, nil
}

// storeRetry is how often a host that started without its database tries again.
const storeRetry = 2 * time.Second

// openStore opens the key and usage store. If a PostgreSQL database cannot be reached,
// the host starts anyway: it serves callers without a key, refuses keyed requests with
// 503 store_unavailable, reports "degraded" in its health, and keeps trying to open the
// database (applying its migrations) in the background. Any other failure (a bad URL,
// a schema newer than this program) stops the start-up.
func openStore(ctx context.Context, c common, logger hclog.Logger) (store.Store, error) {
	st, err := store.Open(ctx, c.db, c.dataDir)
	if !errors.Is(err, store.ErrUnavailable) {
		return st, err
	}
	logger.Error("the key and usage database cannot be reached; serving the public lane and retrying",
		"every", storeRetry, "error", err)
	return store.OpenLater(store.Postgres, func(ctx context.Context) (store.Store, error) {
		st, err := store.Open(ctx, c.db, c.dataDir)
		if err == nil {
			logger.Info("the key and usage database is open")
		}
		return st, err
	}, storeRetry, func(err error) {
		logger.Warn("the key and usage database is still unreachable", "error", err)
	}), nil
}

// prepareRunDir creates <dataDir>/run/<pid> for the running copies of the plugin
// binaries and the record of their cgroup or process groups, removing the folders of
// earlier hosts that are no longer running after killing the processes their engines
// left.
func prepareRunDir(dataDir string, logger hclog.Logger) (string, error) {
	base := filepath.Join(dataDir, "run")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", base, err)
	}
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		// A host killed outright leaves what its engines started running.
		engines.KillLeftCgroups(filepath.Join(base, e.Name()), logger)
		engines.KillLeftGroups(filepath.Join(base, e.Name()), logger)
		if err := os.RemoveAll(filepath.Join(base, e.Name())); err != nil {
			logger.Warn("cannot remove a stale run folder", "dir", e.Name(), "error", err)
		}
	}
	dir := filepath.Join(base, strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	return dir, nil
}

// processAlive reports whether a process with the pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// newLogger returns the host's logger, writing to w.
func newLogger(c common, w io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "tracecraft",
		Level:      hclog.LevelFromString(c.logLevel),
		Output:     w,
		JSONFormat: c.logJSON,
		TimeFormat: time.RFC3339Nano,
	})
}
