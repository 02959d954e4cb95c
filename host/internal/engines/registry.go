// Package engines finds the engine plugins in a folder, runs each as a pool of plugin
// processes, and swaps in new or upgraded binaries while the host keeps serving. A job
// that outlives its deadline has its process killed (with everything the process
// started) and replaced, as has one that does not stop soon after its job is cancelled;
// a process that crashes is replaced too.
package engines

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// FilePrefix starts the file name of every engine plugin: tracecraft-engine-<name>.
const FilePrefix = "tracecraft-engine-"

// Config configures a Registry.
type Config struct {
	// Dir is the plugins folder.
	Dir string
	// RunDir, if set, is where the registry copies each binary before running it, so an
	// operator can overwrite a file in Dir while its old version still runs (Linux
	// refuses to write a running executable) and a half-copied file never runs. Empty:
	// binaries run in place (for the one-shot trace command).
	RunDir string
	// Processes is the most processes per engine: one per worker of all lanes.
	Processes int
	// IdleTimeout ends processes idle that long, keeping one per engine; 0 keeps all.
	IdleTimeout time.Duration
	// Logger receives the registry's and the plugins' log lines.
	Logger hclog.Logger
	// Observer, if set, hears of process starts and crashes and of every job's time.
	Observer Observer
	// MaxSVG bounds the SVG an engine may answer, in bytes; 0 means DefaultMaxSVG. A
	// larger answer is refused from its header, before it is read.
	MaxSVG int64
	// CrashLimit crashes of an engine's processes within CrashWindow mark the engine
	// failing: its jobs are refused (503 engine_unavailable with Retry-After) for
	// CrashBackoff, doubled each time it fails again before a job succeeds (at most
	// 16 times), and then it is tried again. Zero values mean 5, 1 minute and 30 s.
	CrashLimit   int
	CrashWindow  time.Duration
	CrashBackoff time.Duration
	// Cgroups, if set, is the host run's cgroup v2 tree (Contain): every engine process
	// starts in a cgroup of its own there. Nil: each leads a process group, recorded in
	// RunDir.
	Cgroups *Cgroups
	// CancelGrace is how long an engine may take to stop a job whose client went away
	// before its process is killed; zero means DefaultCancelGrace.
	CancelGrace time.Duration
}

// DefaultCancelGrace is the default bound on an engine's stopping a cancelled job. The
// bundled engines check their context between phases and within long loops, and stop
// within tens of milliseconds; a process that takes longer is killed and replaced.
const DefaultCancelGrace = time.Second

// DefaultMaxSVG is the default bound on an engine's SVG: 64 MiB.
const DefaultMaxSVG = 64 << 20

// bigSVG is the size from which an SVG's check is preceded by a garbage collection.
const bigSVG = 16 << 20

// answerSlack is what an answer of the protocol holds beside its SVG.
const answerSlack = 64 << 10

// Engine is one loaded generation of an engine binary.
type Engine struct {
	// Desc is the engine's self-description.
	Desc sdk.Descriptor
	// File is the plugin's path in the plugins folder.
	File string
	// Hash is the SHA-256 of the binary.
	Hash string
	// Protocol is the negotiated protocol version.
	Protocol int
	// SDKVersion is the sdk release the plugin was built with, as it reports it.
	SDKVersion string
	// LoadedAt is when this generation was loaded.
	LoadedAt time.Time

	pool    *pool
	crashes *crashLoop
}

// Status describes an engine for the health endpoint.
type Status struct {
	Name      string `json:"name"`
	Version   string `json:"version,omitempty"`
	Stability string `json:"stability,omitempty"`
	// SDKVersion is the sdk release the plugin was built with; Protocol the protocol
	// version the host speaks with it (see the README's protocol policy).
	SDKVersion string `json:"sdkVersion,omitempty"`
	Protocol   int    `json:"protocol,omitempty"`
	// Status is "ready"; "failing" while its jobs are refused after a crash loop; or
	// "failed" when the file could not be loaded.
	Status string `json:"status"`
	// Error says why the engine failed to load, or why its newest file was refused
	// while an older version keeps serving.
	Error     string `json:"error,omitempty"`
	Processes int    `json:"processes"`
	Busy      int    `json:"busy"`
}

// fileID identifies a file's version cheaply, to skip hashing unchanged files.
type fileID struct {
	size  int64
	mtime time.Time
	ino   uint64
}

// Registry holds the engines of a plugins folder.
type Registry struct {
	cfg    Config
	logger hclog.Logger

	reloadMu sync.Mutex // one scan at a time

	mu      sync.RWMutex
	engines map[string]*Engine
	failed  map[string]string // name -> why its newest file was refused
	seen    map[string]fileID // path -> the version last looked at
	closed  bool
}

// New returns an empty registry; call Reload to load the folder.
func New(cfg Config) *Registry {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.Processes < 1 {
		cfg.Processes = 1
	}
	if cfg.Observer == nil {
		cfg.Observer = noObserver{}
	}
	if cfg.MaxSVG <= 0 {
		cfg.MaxSVG = DefaultMaxSVG
	}
	if cfg.CancelGrace <= 0 {
		cfg.CancelGrace = DefaultCancelGrace
	}
	if cfg.CrashLimit <= 0 {
		cfg.CrashLimit = 5
	}
	if cfg.CrashWindow <= 0 {
		cfg.CrashWindow = time.Minute
	}
	if cfg.CrashBackoff <= 0 {
		cfg.CrashBackoff = 30 * time.Second
	}
	return &Registry{
		cfg:     cfg,
		logger:  cfg.Logger.Named("engines"),
		engines: map[string]*Engine{},
		failed:  map[string]string{},
		seen:    map[string]fileID{},
	}
}

// Reload scans the plugins folder and loads every new or changed engine binary whose
// name passes only (nil: all), retires engines whose file is gone, and keeps serving
// the old generation of an engine whose new binary fails to load. It returns the
// number of engines loaded.
func (r *Registry) Reload(ctx context.Context, only func(name string) bool) (int, error) {
	r.reloadMu.Lock()
	defer r.reloadMu.Unlock()
	entries, err := os.ReadDir(r.cfg.Dir)
	if err != nil {
		return 0, fmt.Errorf("read plugins folder: %w", err)
	}
	present := map[string]bool{}
	loaded := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), FilePrefix) {
			continue
		}
		name := strings.TrimPrefix(e.Name(), FilePrefix)
		if only != nil && !only(name) {
			continue
		}
		path := filepath.Join(r.cfg.Dir, e.Name())
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		present[name] = true
		id := idOf(st)
		r.mu.RLock()
		same := r.seen[path] == id
		r.mu.RUnlock()
		if same {
			continue
		}
		if why := incomplete(path, st.Size()); why != "" {
			// Not marked seen: the copy's next write, or the next scan, tries again.
			r.logger.Info("engine file not complete yet; waiting", "engine", name, "file", path, "why", why)
			continue
		}
		if err := r.load(ctx, name, path, st); err != nil {
			r.logger.Error("engine not loaded", "engine", name, "file", path, "error", err)
			r.mu.Lock()
			r.failed[name] = publicReason(err)
			r.mu.Unlock()
		} else {
			loaded++
		}
		r.mu.Lock()
		r.seen[path] = id
		r.mu.Unlock()
	}
	r.mu.Lock()
	var gone []*Engine
	for name, e := range r.engines {
		if !present[name] && (only == nil || only(name)) {
			gone = append(gone, e)
			delete(r.engines, name)
			delete(r.seen, e.File)
		}
	}
	for name := range r.failed {
		if !present[name] {
			delete(r.failed, name)
		}
	}
	r.mu.Unlock()
	for _, e := range gone {
		r.logger.Info("engine removed", "engine", e.Desc.Name, "version", e.Desc.Version)
		e.pool.close()
	}
	return loaded, nil
}

// load starts the binary at path, checks its description and makes it the current
// generation of name, retiring the previous one.
func (r *Registry) load(ctx context.Context, name, path string, st os.FileInfo) error {
	if !pluginhost.ValidEngineName(name) {
		return fmt.Errorf("%q is not a valid engine name: use lower-case letters, digits, '-' and '_'", name)
	}
	if st.Mode().Perm()&0o111 == 0 {
		return errors.New("the file is not executable")
	}
	hash, err := hashFile(path)
	if err != nil {
		return hidden(err, "the file cannot be read")
	}
	r.mu.RLock()
	cur := r.engines[name]
	r.mu.RUnlock()
	if cur != nil && cur.Hash == hash {
		return nil // touched, not changed
	}
	exe := path
	if r.cfg.RunDir != "" {
		if exe, err = r.copyBinary(path, name, hash); err != nil {
			return hidden(err, "the file cannot be copied to the run folder")
		}
	}
	launch := pluginhost.Launch{Path: exe, Logger: r.cfg.Logger.Named("engine." + name), MaxReceiveBytes: int(min(r.cfg.MaxSVG+answerSlack, pluginhost.MaxMessageBytes))}
	c, err := r.cfg.Cgroups.start(name, launch)
	if err != nil {
		r.removeCopy(exe, path)
		public := "the plugin did not start or failed the handshake " +
			"(not a Tracecraft engine, or built with an sdk whose protocol this host does not serve)"
		var ve *pluginhost.VersionError
		if errors.As(err, &ve) {
			// It says which sdk release to rebuild with, and holds no paths.
			public = "the plugin failed the handshake: " + ve.Error()
		}
		return hidden(fmt.Errorf("handshake failed: %w", err), public)
	}
	r.cfg.Observer.ProcessStarted(name)
	r.recordGroup(c.Pid())
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	desc, err := c.Describe(dctx)
	cancel()
	if err != nil {
		err = hidden(err, "the plugin did not answer when asked to describe itself")
	} else {
		err = desc.Validate()
		if err == nil && desc.Name != name {
			err = fmt.Errorf("the plugin describes itself as %q but its file is named for %q", desc.Name, name)
		}
	}
	if err != nil {
		c.Close()
		r.removeCopy(exe, path)
		return fmt.Errorf("invalid description: %w", err)
	}
	e := &Engine{Desc: desc, File: path, Hash: hash, Protocol: c.Protocol(), SDKVersion: c.SDKVersion(), LoadedAt: time.Now(), pool: newPool(name, launch, r.cfg.Processes, r.cfg.Observer, r.cfg.Cgroups),
		crashes: &crashLoop{limit: r.cfg.CrashLimit, window: r.cfg.CrashWindow, backoff: r.cfg.CrashBackoff}}
	e.pool.onDrained = func() { r.removeCopy(exe, path) }
	e.pool.onStart = func(c *pluginhost.Client) { r.recordGroup(c.Pid()) }
	e.pool.adopt(c)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		e.pool.close()
		return errors.New("registry closed")
	}
	old := r.engines[name]
	r.engines[name] = e
	delete(r.failed, name)
	r.mu.Unlock()
	if old != nil {
		r.logger.Info("engine upgraded", "engine", name, "from", old.Desc.Version, "to", desc.Version, "protocol", e.Protocol, "sdk", e.SDKVersion)
		old.pool.close()
	} else {
		r.logger.Info("engine loaded", "engine", name, "version", desc.Version, "stability", desc.Stability.String(), "protocol", e.Protocol, "sdk", e.SDKVersion, "file", path)
	}
	return nil
}

func (r *Registry) copyBinary(path, name, hash string) (string, error) {
	if err := os.MkdirAll(r.cfg.RunDir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(r.cfg.RunDir, name+"-"+hash[:16])
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	src, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(r.cfg.RunDir, name+".tmp-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(tmp, src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("copy %s to the run folder: %w", path, err)
	}
	return dst, nil
}

// removeCopy deletes a run copy of a binary once no generation uses it.
func (r *Registry) removeCopy(exe, original string) {
	if exe == original || r.cfg.RunDir == "" {
		return
	}
	r.mu.RLock()
	for _, e := range r.engines {
		if e.pool.launch.Path == exe && !e.pool.isClosed() {
			r.mu.RUnlock()
			return
		}
	}
	r.mu.RUnlock()
	os.Remove(exe)
}

// loadError is why an engine did not load, in two forms: Public, for /api/health, which
// anyone may read (no file path, owner or raw go-plugin text), and the whole error, for
// the log.
type loadError struct {
	public string
	err    error
}

func (e *loadError) Error() string { return e.public + ": " + e.err.Error() }
func (e *loadError) Unwrap() error { return e.err }

// hidden returns err with a public reason that keeps its details out of /api/health.
func hidden(err error, public string) error { return &loadError{public: public, err: err} }

// publicReason returns what /api/health may show of a load error: the public reason of
// a loadError, with a pointer to the log; otherwise the error's own text, which is then
// one of the registry's own sentences about the name, the mode or the description.
func publicReason(err error) string {
	var le *loadError
	if errors.As(err, &le) {
		return le.public + "; the host's log has the details"
	}
	return err.Error()
}

// Get returns the current generation of the engine called name.
func (r *Registry) Get(name string) (*Engine, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.engines[name]
	return e, ok
}

// Engines returns the current generations, by name.
func (r *Registry) Engines() []*Engine {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Engine, 0, len(r.engines))
	for _, e := range r.engines {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Desc.Name < out[j].Desc.Name })
	return out
}

// Statuses returns the state of every engine, loaded or failed, by name.
func (r *Registry) Statuses() []Status {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Status
	for name, e := range r.engines {
		live, busy := e.pool.counts()
		st := Status{Name: name, Version: e.Desc.Version, Stability: e.Desc.Stability.String(),
			SDKVersion: e.SDKVersion, Protocol: e.Protocol, Status: "ready", Error: r.failed[name], Processes: live, Busy: busy}
		if wait := e.crashes.backingOff(time.Now()); wait > 0 {
			st.Status = "failing"
			st.Error = fmt.Sprintf("crashed %d times within %s; tried again in %ds", r.cfg.CrashLimit, r.cfg.CrashWindow, int(wait.Seconds())+1)
		}
		out = append(out, st)
	}
	for name, why := range r.failed {
		if _, ok := r.engines[name]; !ok {
			out = append(out, Status{Name: name, Status: "failed", Error: why})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Result is the outcome of one trace.
type Result struct {
	pluginhost.TraceResult
	// Engine and Version name the generation that ran the job.
	Engine, Version string
}

// Trace runs one job on the engine called name. When ctx passes its deadline first the
// process is killed and replaced, and the error is fault.JobTimeout. When ctx is
// cancelled (the client went away), the engine sees its context cancelled, the error is
// ctx's, and Trace returns once the engine has stopped, keeping its process, or after
// the cancel grace, killing it. A crash is fault.EngineCrashed; an engine's own answer
// keeps its code.
func (r *Registry) Trace(ctx context.Context, name string, req pluginhost.TraceRequest) (Result, error) {
	var res Result
	// checkOutput checks every SVG, so the plugin need not.
	req.OutputChecked = true
	err := r.call(ctx, name, func(e *Engine, c *pluginhost.Client) error {
		tr, err := c.Trace(ctx, req)
		res = Result{TraceResult: tr, Engine: e.Desc.Name, Version: e.Desc.Version}
		return r.checkOutput(e, tr, err)
	})
	return res, err
}

// checkOutput returns the error of a trace by e: an output_too_large fault if the SVG
// is over the limit (said by the engine, the transport or its length), err itself if
// the call failed otherwise, else an engine_bad_output fault if the SVG fails svg.Check
// for the image's size. The host trusts no engine: the sdk's own check in the engine
// process can be left out of a binary built without the sdk.
func (r *Registry) checkOutput(e *Engine, tr pluginhost.TraceResult, err error) error {
	if sdk.ErrorCode(err) == sdk.CodeOutputTooLarge || (err == nil && int64(len(tr.SVG)) > r.cfg.MaxSVG) {
		// The same words whatever the engine: the limit is the service's.
		return fault.Wrap(err, fault.OutputTooLarge, "the traced SVG is larger than this service's limit of %s; "+
			"try settings that give fewer shapes (fewer colours, more smoothing) or a smaller image", mib(r.cfg.MaxSVG))
	}
	if err != nil {
		return err
	}
	if len(tr.SVG) >= bigSVG {
		// The check makes garbage of about twice the SVG's size, and the frames the SVG
		// arrived in wait in gRPC's buffer pool (a sync.Pool, emptied over two
		// collections). Collected now, the heap's goal is set by the SVG alone, and the
		// check's garbage reuses the frames' memory instead of adding to it.
		runtime.GC()
		runtime.GC()
	}
	if err := svg.Check(tr.SVG, tr.Width, tr.Height); err != nil {
		return fault.Wrap(err, fault.EngineBadOutput, "engine %q made an SVG the service refuses to serve: %v", e.Desc.Name, err)
	}
	return nil
}

// analyzer returns the first loaded engine among prefer, or any engine.
func (r *Registry) analyzer(prefer []string) string {
	for _, n := range prefer {
		if _, ok := r.Get(n); ok {
			return n
		}
	}
	if all := r.Engines(); len(all) > 0 {
		return all[0].Desc.Name
	}
	return ""
}

// Chooser picks the engine and the job for an image from its measurement.
type Chooser func(pluginhost.Analysis) (engine string, req pluginhost.TraceRequest, err error)

// AnalyzeAndTrace measures the image in a process of the first loaded engine among prefer
// (or any), lets choose pick the engine and job from the measurement, and traces. When
// the measuring engine is the one chosen, the same process traces the image it has
// already decoded. Errors are as for Trace, or choose's own.
func (r *Registry) AnalyzeAndTrace(ctx context.Context, prefer []string, image pluginhost.AnalyzeRequest, choose Chooser) (pluginhost.Analysis, Result, error) {
	var a pluginhost.Analysis
	var res Result
	var chosen string
	var req pluginhost.TraceRequest
	var chooseErr error
	traced := false
	err := r.call(ctx, r.analyzer(prefer), func(e *Engine, c *pluginhost.Client) error {
		var err error
		if a, err = c.AnalyzeKeep(ctx, image); err != nil {
			return err
		}
		if chosen, req, chooseErr = choose(a); chooseErr != nil || chosen != e.Desc.Name {
			return nil
		}
		req.UseKept, req.OutputChecked, traced = true, true, true
		tr, err := c.Trace(ctx, req)
		res = Result{TraceResult: tr, Engine: e.Desc.Name, Version: e.Desc.Version}
		return r.checkOutput(e, tr, err)
	})
	switch {
	case err != nil:
		return a, res, err
	case chooseErr != nil:
		return a, res, chooseErr
	case !traced:
		res, err = r.Trace(ctx, chosen, req)
	}
	return a, res, err
}

// call runs f with a process of the current generation of name, retrying once if that
// generation is retired meanwhile, and disposes of the process by f's outcome.
func (r *Registry) call(ctx context.Context, name string, f func(*Engine, *pluginhost.Client) error) error {
	for attempt := 0; ; attempt++ {
		e, ok := r.Get(name)
		if !ok {
			return fault.New(fault.EngineUnavailable, "engine %q is not installed", name)
		}
		if wait := e.crashes.backingOff(time.Now()); wait > 0 {
			fe := fault.New(fault.EngineUnavailable, "engine %q crashed %d times within %s and is resting; retry after the number of seconds in the Retry-After header",
				name, r.cfg.CrashLimit, r.cfg.CrashWindow)
			fe.RetryAfter = int((wait + time.Second - 1) / time.Second)
			return fe
		}
		pr, err := e.pool.get(ctx)
		if errors.Is(err, errPoolClosed) && attempt == 0 {
			continue
		}
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return r.ctxFault(ctxErr, name)
			}
			return fault.Wrap(err, fault.EngineUnavailable, "engine %q cannot start; try again later", name)
		}
		start := time.Now()
		// The engine's own coded errors and the host's refusals of its output are
		// answers: the process is sound. Anything else is a timeout or a crash.
		err = fault.FromSDK(f(e, pr.client))
		took := time.Since(start)
		var answer *fault.Error
		switch {
		case err == nil || errors.As(err, &answer):
			if err == nil {
				e.crashes.succeeded()
			}
			if outcomeOf(err) == BadOutput {
				r.logger.Error("engine output refused", "engine", name, "pid", pr.client.Pid(), "error", err)
			}
			e.pool.put(pr)
			r.cfg.Observer.JobDone(name, took, outcomeOf(err))
			return err
		case errors.Is(err, context.Canceled) && !errors.Is(ctx.Err(), context.DeadlineExceeded):
			// The client went away and the engine saw its context cancelled: a process
			// that stops within the grace takes the next job, one that does not is killed.
			if stopErr := r.settle(pr.client); stopErr != nil {
				r.logger.Warn("killing engine process", "engine", name, "pid", pr.client.Pid(), "reason", "a cancelled job did not stop: "+stopErr.Error())
				e.pool.discard(pr)
			} else {
				e.pool.put(pr)
			}
			r.cfg.Observer.JobDone(name, time.Since(start), Canceled)
			return err
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
			r.logger.Warn("killing engine process", "engine", name, "pid", pr.client.Pid(), "reason", err)
			e.pool.discard(pr)
			r.cfg.Observer.JobDone(name, took, outcomeOf(err))
			return r.ctxFault(err, name)
		default:
			r.logger.Error("engine process crashed", "engine", name, "pid", pr.client.Pid(), "error", err)
			e.pool.discard(pr)
			r.cfg.Observer.ProcessCrashed(name)
			r.cfg.Observer.JobDone(name, took, Crashed)
			if until := e.crashes.crashed(time.Now()); !until.IsZero() {
				r.logger.Error("engine crashes in a loop; refusing its jobs for a while", "engine", name, "until", until.Format(time.RFC3339))
			}
			return fault.Wrap(err, fault.EngineCrashed, "engine %q crashed while working on the image; it has been restarted", name)
		}
	}
}

// settle waits up to the cancel grace for the process of a cancelled call to stop, and
// returns why it cannot be kept if it does not.
func (r *Registry) settle(c *pluginhost.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.CancelGrace)
	defer cancel()
	return c.Idle(ctx)
}

func (r *Registry) ctxFault(err error, name string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fault.Wrap(err, fault.JobTimeout, "engine %q did not finish within the job time limit; try a smaller image or simpler settings", name)
	}
	return err
}

// Reap ends processes idle longer than the configured idle timeout.
func (r *Registry) Reap() {
	if r.cfg.IdleTimeout <= 0 {
		return
	}
	cutoff := time.Now().Add(-r.cfg.IdleTimeout)
	for _, e := range r.Engines() {
		e.pool.reap(cutoff)
	}
}

// Close retires every engine: idle processes end now, busy ones when their job ends.
func (r *Registry) Close() {
	r.mu.Lock()
	r.closed = true
	all := r.engines
	r.engines = map[string]*Engine{}
	r.mu.Unlock()
	for _, e := range all {
		e.pool.close()
	}
}

// mib formats n bytes in MiB.
func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func idOf(st os.FileInfo) fileID {
	id := fileID{size: st.Size(), mtime: st.ModTime()}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		id.ino = s.Ino
	}
	return id
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
