// Package pluginhost is the host's side of the Tracecraft engine protocol: it starts an
// engine plugin process (Start), negotiates the protocol version in the handshake, and
// asks the engine for its description, traces and image measurements (Client). Engine
// authors do not need it: they import package sdk, whose Serve is the other side.
package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

// ErrCrashed reports that a plugin process died or broke the protocol during a call.
var ErrCrashed = errors.New("engine process crashed")

// Launch says how to start a plugin process.
type Launch struct {
	// Path is the plugin executable.
	Path string
	// Logger receives the plugin's log lines and go-plugin's own; nil discards them.
	Logger hclog.Logger
	// StartTimeout bounds the start and handshake; 0 means 10 seconds.
	StartTimeout time.Duration
	// Stderr, if set, receives the plugin's raw stderr lines that are not log lines.
	Stderr io.Writer
	// MaxReceiveBytes bounds one answer of the plugin (its SVG and a little more): a
	// larger one is refused from its header, before it is read, with CodeOutputTooLarge.
	// 0 means MaxMessageBytes.
	MaxReceiveBytes int
	// Cgroup, if set, is an empty cgroup v2 directory made for this one process, which
	// Start then owns. The process starts inside it (CLONE_INTO_CGROUP; where the kernel
	// refuses that, it is moved there by writing its pid to cgroup.procs, see
	// Client.Placement), so everything it starts is in it too, even a process that
	// leaves the process group. When the process exits or is killed, everything left
	// in the cgroup is killed and the cgroup removed. Empty: the process group alone
	// contains the process.
	Cgroup string
}

// Client is the host's handle on one plugin process. Its methods are safe for concurrent
// use, but a plugin runs one call at a time.
type Client struct {
	pc       *plugin.Client
	rpc      tracev1.EngineClient
	cmd      *exec.Cmd     // the process, without a cgroup
	cgroup   *cgroupRunner // the process, in a cgroup
	protocol int
	killOnce sync.Once
	// fileMu guards file, the memfd reused for this plugin's images, one call at a time.
	fileMu sync.Mutex
	file   *ImageFile
	// described is set once the plugin's description has been seen. readsFile says
	// whether the plugin reads images from files (cleared if it turns out it cannot);
	// readsRange whether it reads an image from part of a file; keepsDecoded whether it
	// keeps an analysed image for the next Trace.
	described, readsFile, readsRange, keepsDecoded atomic.Bool
	// sdkVersion is the sdk release the plugin was built with, from its description.
	sdkVersion atomic.Value
	// direct is the host's end of the plugin's direct channel, nil if none could be
	// made; directCalls says the plugin serves Trace and Analyze on it (from its
	// description).
	direct      *directChannel
	directCalls atomic.Bool
}

// Start launches the plugin at l.Path, performs the handshake (negotiating the protocol
// version) and returns a client. The process is put in its own process group, and in
// l.Cgroup if set, so Kill can end it with everything it started, and the kernel kills
// it if the host dies.
func Start(l Launch) (c *Client, err error) {
	logger := l.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	timeout := l.StartTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	maxRecv := l.MaxReceiveBytes
	if maxRecv <= 0 || maxRecv > wire.MaxMessageBytes {
		maxRecv = wire.MaxMessageBytes
	}
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: hostPlugins(),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           logger,
		StartTimeout:     timeout,
		Stderr:           l.Stderr,
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(maxRecv), grpc.MaxCallSendMsgSize(wire.MaxMessageBytes), grpc.ForceCodecV2(newSVGCodec())),
			grpc.WithInitialWindowSize(wire.FlowWindow), grpc.WithInitialConnWindowSize(wire.FlowWindow),
			grpc.WithReadBufferSize(wire.IOBuffer), grpc.WithWriteBufferSize(wire.IOBuffer)},
	}
	// The direct channel's socket pair: the plugin's end goes to the process as file
	// descriptor 3, and the host's copy of it is closed once the process has it. Without
	// one, every call goes over gRPC.
	hostEnd, pluginEnd, directErr := wire.DirectPair()
	var extra []*os.File
	var extraEnv []string
	if directErr == nil {
		defer pluginEnd.Close()
		defer func() {
			if err != nil {
				hostEnd.Close()
			}
		}()
		extra, extraEnv = []*os.File{pluginEnd}, []string{wire.DirectEnv + "=3"}
	} else {
		logger.Warn("no direct channel to the engine process; its calls go over gRPC", "error", directErr)
	}
	var cmd *exec.Cmd
	var cg *cgroupRunner
	if l.Cgroup == "" {
		cmd = exec.Command(l.Path)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.ExtraFiles, cmd.Env = extra, extraEnv
		cfg.Cmd = cmd
	} else {
		defer func() {
			if err != nil {
				// Killed by pc.Kill below, if it started.
				if rerr := RemoveCgroup(l.Cgroup); rerr != nil {
					logger.Warn("cannot remove the cgroup of an engine process that failed to start", "cgroup", l.Cgroup, "error", rerr)
				}
			}
		}()
		cfg.RunnerFunc = func(rl hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
			spec.Env = append(spec.Env, extraEnv...)
			cg = newCgroupRunner(rl, l.Path, spec, l.Cgroup)
			cg.extraFiles = extra
			return cg, nil
		}
	}
	pc := plugin.NewClient(cfg)
	var startErr error
	// Pdeathsig fires when the thread that forked the child exits, not the process, so
	// the fork happens on a thread that lives as long as the host.
	onSpawnerThread(func() { _, startErr = pc.Start() })
	if startErr != nil {
		pc.Kill()
		return nil, fmt.Errorf("start %s: %w", l.Path, versionError(startErr))
	}
	proto, err := pc.Client()
	if err != nil {
		pc.Kill()
		return nil, fmt.Errorf("connect to %s: %w", l.Path, versionError(err))
	}
	raw, err := proto.Dispense(wire.PluginName)
	if err != nil {
		pc.Kill()
		return nil, fmt.Errorf("dispense engine from %s: %w", l.Path, err)
	}
	rpc, ok := raw.(tracev1.EngineClient)
	if !ok {
		pc.Kill()
		return nil, fmt.Errorf("%s: unexpected plugin type %T", l.Path, raw)
	}
	c = &Client{pc: pc, rpc: rpc, cmd: cmd, cgroup: cg, protocol: pc.NegotiatedVersion()}
	if directErr == nil {
		c.direct = newDirectChannel(hostEnd, maxRecv)
	}
	return c, nil
}

// Placement says how the process was put in its cgroup: PlacedByClone or PlacedByProcs;
// "" when it has none (Launch.Cgroup was empty).
func (c *Client) Placement() string {
	if c.cgroup == nil {
		return ""
	}
	return c.cgroup.placement
}

// Protocol returns the negotiated protocol version.
func (c *Client) Protocol() int { return c.protocol }

// Pid returns the plugin's process id.
func (c *Client) Pid() int {
	switch {
	case c.cgroup != nil:
		return c.cgroup.pid
	case c.cmd.Process != nil:
		return c.cmd.Process.Pid
	}
	return 0
}

// Exited reports whether the plugin process has exited.
func (c *Client) Exited() bool { return c.pc.Exited() }

// Describe asks the plugin for its description.
func (c *Client) Describe(ctx context.Context) (sdk.Descriptor, error) {
	r, err := c.rpc.Describe(ctx, &tracev1.DescribeRequest{Lists: true})
	if err != nil {
		return sdk.Descriptor{}, c.callError(ctx, err)
	}
	c.noteCapabilities(r)
	return descriptorFromProto(r), nil
}

// noteCapabilities records what the plugin supports, from its first description.
func (c *Client) noteCapabilities(r *tracev1.DescribeResponse) {
	if c.described.Swap(true) {
		return
	}
	c.readsFile.Store(r.GetReadsImageFile())
	c.readsRange.Store(r.GetReadsImageRange())
	c.keepsDecoded.Store(r.GetKeepsDecoded())
	c.sdkVersion.Store(r.GetSdkVersion())
	c.directCalls.Store(r.GetDirectCalls() && c.direct != nil)
}

// SDKVersion returns the version of the sdk the plugin was built with, as its first
// description reported it ("" before Describe, or if it reported none).
func (c *Client) SDKVersion() string {
	v, _ := c.sdkVersion.Load().(string)
	return v
}

// learn asks the plugin for its description once, to learn what it supports.
func (c *Client) learn(ctx context.Context) error {
	if c.described.Load() {
		return nil
	}
	r, err := c.rpc.Describe(ctx, &tracev1.DescribeRequest{Lists: true})
	if err != nil {
		return err
	}
	c.noteCapabilities(r)
	return nil
}

// imageRef is how a request carries its image: inline, or as a file, or as the length
// bytes at offset of a file (length 0: the whole file).
type imageRef struct {
	inline         []byte
	file           string
	offset, length uint64
}

// withImage calls send with the image either inline or, when it is large and the plugin
// reads image files, as a file: the caller's own ImageFile if it gave one, else this
// client's, into which the image is copied. A caller's file whose image is only part of
// it is sent as a range to a plugin that reads ranges, and otherwise made the whole file
// first. send returns the plugin's failure, if any. A plugin that cannot read the file
// gets the image inline from then on. The caller has learned the plugin's capabilities
// (learn).
func (c *Client) withImage(image []byte, shared *ImageFile, send func(imageRef) (*tracev1.Failure, error)) (*tracev1.Failure, error) {
	if shared != nil {
		image = shared.Bytes()
	}
	if len(image) < imageFileMin {
		return send(imageRef{inline: image})
	}
	if c.readsFile.Load() {
		file, err := shared, error(nil)
		ref := imageRef{}
		switch {
		case file == nil:
			c.fileMu.Lock()
			defer c.fileMu.Unlock()
			file, err = c.ownFile(image)
		case !file.whole() && c.readsRange.Load():
			ref.offset, ref.length = uint64(file.off), uint64(len(image))
		default:
			err = file.compact()
			image = file.Bytes()
		}
		if err == nil {
			ref.file = file.path
			failure, err := send(ref)
			if failure.GetCode() != wire.CodeImageFileUnreadable {
				return failure, err
			}
			c.readsFile.Store(false)
		}
	}
	return send(imageRef{inline: image})
}

// ownFile copies image into this client's file, made on first use. c.fileMu is held.
func (c *Client) ownFile(image []byte) (*ImageFile, error) {
	if c.file == nil {
		f, err := NewImageFile(0)
		if err != nil {
			return nil, err
		}
		c.file = f
	}
	return c.file, c.file.set(image)
}

// TraceRequest is one job for a plugin.
type TraceRequest struct {
	// Image is the uploaded file, undecoded.
	Image []byte
	// File, when set, holds the uploaded file instead of Image: a plugin that maps files
	// gets it without a copy.
	File *ImageFile
	// Params holds the given parameters (JSON values); the plugin fills the defaults.
	Params map[string]any
	// MaxPixels bounds width x height; 0 means no bound.
	MaxPixels int64
	// UseKept asks the plugin to trace the image it kept from AnalyzeKeep on this
	// client, without decoding it again; Image must still hold the image, which is sent
	// if the plugin has none kept.
	UseKept bool
	// OutputChecked says the caller checks the SVG with svg.Check before it uses it: the
	// plugin (of sdk 2.4.0 or later) then skips the same check on its side.
	OutputChecked bool
}

// TraceResult is a plugin's answer to a TraceRequest.
type TraceResult struct {
	SVG           []byte
	Width, Height int
	// Decode and Trace are the plugin's own timings.
	Decode, Trace time.Duration
}

// Trace runs one job. It returns an *sdk.Error when the engine answered with one, ErrCrashed
// (wrapped) when the process died or broke the protocol, or ctx's error when ctx ended
// first; in the last two cases the process may still be busy and should be killed.
func (c *Client) Trace(ctx context.Context, req TraceRequest) (TraceResult, error) {
	params, err := paramsToProto(req.Params)
	if err != nil {
		return TraceResult{}, sdk.Errorf(sdk.CodeInvalidSettings, "%v", err)
	}
	if err := c.learn(ctx); err != nil {
		return TraceResult{}, c.callError(ctx, err)
	}
	var r *tracev1.TraceResponse
	var f *tracev1.Failure
	sent := false
	if req.UseKept && c.keepsDecoded.Load() {
		r, err = c.trace(ctx, &tracev1.TraceRequest{UseKept: true, Params: params, MaxPixels: uint64(max(0, req.MaxPixels)), HostChecksOutput: req.OutputChecked})
		f = r.GetFailure()
		sent = err != nil || f.GetCode() != wire.CodeNoKeptImage
	}
	if !sent {
		f, err = c.withImage(req.Image, req.File, func(im imageRef) (*tracev1.Failure, error) {
			var err error
			r, err = c.trace(ctx, &tracev1.TraceRequest{Image: im.inline, ImageFile: im.file, ImageOffset: im.offset, ImageLength: im.length,
				Params: params, MaxPixels: uint64(max(0, req.MaxPixels)), HostChecksOutput: req.OutputChecked})
			return r.GetFailure(), err
		})
	}
	if err != nil {
		return TraceResult{}, c.callError(ctx, err)
	}
	if f != nil {
		return TraceResult{}, &sdk.Error{Code: f.GetCode(), Message: f.GetMessage()}
	}
	return TraceResult{
		SVG: r.GetSvg(), Width: int(r.GetWidth()), Height: int(r.GetHeight()),
		Decode: time.Duration(r.GetDecodeMicros()) * time.Microsecond,
		Trace:  time.Duration(r.GetTraceMicros()) * time.Microsecond,
	}, nil
}

// callsDirect reports whether Trace and Analyze calls go on the direct channel: the
// plugin serves them there and the channel is sound.
func (c *Client) callsDirect() bool { return c.directCalls.Load() && c.direct.sound() }

// trace sends one Trace call: on the direct channel when it can (callsDirect), else over
// gRPC.
func (c *Client) trace(ctx context.Context, req *tracev1.TraceRequest) (*tracev1.TraceResponse, error) {
	if c.callsDirect() {
		return c.direct.trace(ctx, req)
	}
	return c.rpc.Trace(ctx, req)
}

// analyzeCall sends one Analyze call, on the direct channel if it can, as trace does.
func (c *Client) analyzeCall(ctx context.Context, req *tracev1.AnalyzeRequest) (*tracev1.AnalyzeResponse, error) {
	if c.callsDirect() {
		return c.direct.analyze(ctx, req)
	}
	return c.rpc.Analyze(ctx, req)
}

// Analysis is a plugin's measurement of an image.
type Analysis struct {
	Width, Height int
	Features      map[string]float64
	// Took is the plugin's time for decoding and measuring; Decode the decoding alone.
	Took, Decode time.Duration
}

// AnalyzeRequest is an image for a plugin to measure.
type AnalyzeRequest struct {
	// Image is the uploaded file, undecoded; File, when set, holds it instead, as in
	// TraceRequest.
	Image []byte
	File  *ImageFile
	// MaxPixels bounds width x height; 0 means no bound.
	MaxPixels int64
}

// Analyze decodes the image in the plugin and returns its features (see package
// analysis). Errors are as for Trace.
func (c *Client) Analyze(ctx context.Context, req AnalyzeRequest) (Analysis, error) {
	return c.analyze(ctx, req, false)
}

// AnalyzeKeep is Analyze, and asks the plugin to keep the decoded image for a Trace
// with UseKept that follows on this client.
func (c *Client) AnalyzeKeep(ctx context.Context, req AnalyzeRequest) (Analysis, error) {
	return c.analyze(ctx, req, true)
}

// analyze runs one Analyze call, asking the plugin to keep the decoded image when keep
// is set and the plugin keeps images.
func (c *Client) analyze(ctx context.Context, req AnalyzeRequest, keep bool) (Analysis, error) {
	if err := c.learn(ctx); err != nil {
		return Analysis{}, c.callError(ctx, err)
	}
	keep = keep && c.keepsDecoded.Load()
	var r *tracev1.AnalyzeResponse
	f, err := c.withImage(req.Image, req.File, func(im imageRef) (*tracev1.Failure, error) {
		var err error
		r, err = c.analyzeCall(ctx, &tracev1.AnalyzeRequest{Image: im.inline, ImageFile: im.file, ImageOffset: im.offset, ImageLength: im.length,
			MaxPixels: uint64(max(0, req.MaxPixels)), Keep: keep})
		return r.GetFailure(), err
	})
	if err != nil {
		return Analysis{}, c.callError(ctx, err)
	}
	if f != nil {
		return Analysis{}, &sdk.Error{Code: f.GetCode(), Message: f.GetMessage()}
	}
	return Analysis{
		Width: int(r.GetWidth()), Height: int(r.GetHeight()), Features: r.GetFeatures(),
		Took:   time.Duration(r.GetAnalyzeMicros()) * time.Microsecond,
		Decode: time.Duration(r.GetDecodeMicros()) * time.Microsecond,
	}, nil
}

// ErrNoIdle reports a plugin whose sdk predates the Idle call (before 2.1.0): whether
// it has stopped a cancelled call cannot be known.
var ErrNoIdle = errors.New("the plugin cannot tell when it is idle (its sdk is older than 2.1.0)")

// Idle returns once the plugin runs no call: after a call was cancelled, it tells that
// the engine has stopped working on it and the process can take another job. It
// returns ErrNoIdle when the plugin does not know the call, ctx's error when ctx ends
// first, and ErrCrashed (wrapped) when the process died.
func (c *Client) Idle(ctx context.Context) error {
	_, err := c.rpc.Idle(ctx, &tracev1.IdleRequest{})
	switch {
	case err == nil:
		return nil
	case statusCode(err) == codes.Unimplemented:
		return ErrNoIdle
	}
	return c.callError(ctx, err)
}

// callError classifies a failed call: ctx's own error if ctx ended, an output-too-large
// error if a message hit the size limit, ErrCrashed otherwise.
func (c *Client) callError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	switch statusCode(err) {
	case codes.DeadlineExceeded:
		// gRPC's own timer for the deadline it forwards to the plugin may fire just before
		// ctx's; it is the same deadline.
		if _, ok := ctx.Deadline(); ok {
			return context.DeadlineExceeded
		}
	case codes.ResourceExhausted:
		return sdk.Errorf(sdk.CodeOutputTooLarge, "the engine's answer is larger than the %d MB the service can carry", wire.MaxMessageBytes>>20)
	}
	return fmt.Errorf("%w: %v", ErrCrashed, err)
}

// Kill ends the plugin process and every process it started, at once, and waits for it
// to be reaped. It is safe to call more than once and after the process has exited.
func (c *Client) Kill() { c.stop(false) }

// Close asks the plugin to exit and waits up to two seconds before killing it, for
// processes that are idle.
func (c *Client) Close() { c.stop(true) }

// stop ends the plugin and everything it started, once: gracefully first (go-plugin asks
// it to exit, then kills it) or at once, with SIGKILL to its cgroup, if it has one, and
// its process group (which it leads, by Setpgid). A plugin in a cgroup is reaped, and
// its cgroup removed, when stop returns.
func (c *Client) stop(graceful bool) {
	c.killOnce.Do(func() {
		go c.releaseFile()
		if c.direct != nil {
			defer c.direct.close()
		}
		if graceful {
			c.pc.Kill()
		}
		if c.cgroup != nil {
			_ = c.cgroup.Kill(context.Background())
		} else if pid := c.Pid(); pid > 0 {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		c.pc.Kill()
	})
}

// releaseFile closes the image file, once no call uses it.
func (c *Client) releaseFile() {
	c.fileMu.Lock()
	defer c.fileMu.Unlock()
	if c.file != nil {
		c.file.Close()
		c.file = nil
	}
}

var spawner struct {
	once sync.Once
	jobs chan func()
}

// spawnerThreads is how many plugin starts may run at once.
const spawnerThreads = 4

// onSpawnerThread runs f on one of a few goroutines locked to OS threads that never exit,
// for the life of the process, so that a child's Pdeathsig fires only when the host
// itself dies.
func onSpawnerThread(f func()) {
	spawner.once.Do(func() {
		spawner.jobs = make(chan func())
		for i := 0; i < spawnerThreads; i++ {
			go func() {
				runtime.LockOSThread() // never unlocked: the thread must outlive its children
				for job := range spawner.jobs {
					job()
				}
			}()
		}
	})
	done := make(chan struct{})
	spawner.jobs <- func() {
		defer close(done)
		f()
	}
	<-done
}
