package sdk

import (
	"context"
	"errors"
	"fmt"
	"image"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/status"

	"github.com/tracecraft/tracecraft/sdk/analysis"
	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
	"github.com/tracecraft/tracecraft/sdk/raster"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// server implements the protocol's Engine service for one Engine, in the plugin
// process.
type server struct {
	tracev1.UnimplementedEngineServer
	desc Descriptor
	// trace decodes the given parameters into the engine's struct and runs its Trace.
	trace     func(ctx context.Context, img *image.NRGBA, given map[string]any) ([]byte, error)
	jobMemory func(pixels int) int64 // see MemoryBounded; nil: no bound
	logger    hclog.Logger
	// mu serialises the work: a plugin process runs one job at a time, so that the host's
	// pool accounting (one process, one job) holds even if a caller misbehaves.
	mu sync.Mutex
	// kept is the image decoded by the last Analyze that asked to keep it, until the next
	// call or keptExpiry; keptGen tells a stale expiry timer from a current one.
	kept    *image.NRGBA
	keptGen int
	// jobs counts the calls that did work, so that a release timer knows whether
	// another job came since it was set.
	jobs int
	// direct says the server also serves Trace and Analyze on the direct channel
	// (serveDirect), set before it serves anything.
	direct bool
}

// idleRelease is how long a plugin stays idle after a job before it hands the memory the
// job used back to the system. A job's garbage is otherwise only collected when the next
// job allocates, or by the runtime's forced collection two minutes later, and then given
// back a little at a time: an engine process held 695 MB for minutes after one 40 MP
// trace. A collection of the small live heap of an idle engine takes milliseconds, and
// waiting a second lets a queue of jobs run without one between them.
const idleRelease = time.Second

// jobDone arms the idle release after a job. s.mu is held.
func (s *server) jobDone() {
	s.jobs++
	gen := s.jobs
	time.AfterFunc(idleRelease, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.jobs == gen {
			releaseMemory()
		}
	})
}

// boundMemory sets the runtime's soft memory limit for a job on an image of pixels
// pixels, as the engine's JobMemory asks, unless a lower limit is set; the function it
// returns puts the previous limit back.
func (s *server) boundMemory(pixels int) (restore func()) {
	if s.jobMemory == nil {
		return func() {}
	}
	lim := s.jobMemory(pixels)
	prev := debug.SetMemoryLimit(-1)
	if lim <= 0 || lim >= prev {
		return func() {}
	}
	debug.SetMemoryLimit(lim)
	return func() { debug.SetMemoryLimit(prev) }
}

// releaseMemory collects the garbage and returns the freed memory to the system. The
// first collection moves the sync.Pool caches (a trace's canvas) to their victim
// generation, the second frees them.
func releaseMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// keptExpiry is how long a kept image waits for the Trace that uses it.
const keptExpiry = 5 * time.Second

// takeKept returns the kept image, if any, and forgets it. s.mu is held.
func (s *server) takeKept() *image.NRGBA {
	img := s.kept
	s.kept = nil
	s.keptGen++
	return img
}

// keep keeps img for the next Trace, for keptExpiry at most. s.mu is held.
func (s *server) keep(img *image.NRGBA) {
	s.kept = img
	s.keptGen++
	gen := s.keptGen
	time.AfterFunc(keptExpiry, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.keptGen == gen {
			s.takeKept()
			releaseMemory()
		}
	})
}

func newServer(b bound, logger hclog.Logger) *server {
	return &server{desc: b.desc, trace: b.trace, jobMemory: b.jobMemory, logger: logger}
}

// bound is an engine with its parameter struct type erased, as the server runs it.
type bound struct {
	desc  Descriptor
	trace func(ctx context.Context, img *image.NRGBA, given map[string]any) ([]byte, error)
	// jobMemory is the engine's MemoryBounded.JobMemory, or nil.
	jobMemory func(pixels int) int64
}

// bind erases e's parameter type; the error says why its description does not match
// its parameter struct.
func bind[P any](e Engine[P]) (bound, error) {
	desc := e.Describe()
	s := schemaOf[P]()
	if s.err != nil {
		return bound{desc: desc}, s.err
	}
	// The server checks values against desc and decodes them into P: each parameter
	// must have its field, of its type. (enginetest also compares the rest.)
	same := len(desc.Params) == len(s.params)
	for i := 0; same && i < len(s.params); i++ {
		d, f := desc.Params[i], s.params[i]
		same = d.Name == f.Name && d.Type == f.Type && d.Integer == f.Integer
	}
	if !same {
		return bound{desc: desc}, fmt.Errorf("engine %q: Descriptor.Params is not sdk.Describe[%s]()", desc.Name, reflect.TypeFor[P]())
	}
	b := bound{desc: desc, trace: func(ctx context.Context, img *image.NRGBA, given map[string]any) ([]byte, error) {
		var p P
		s.fill(reflect.ValueOf(&p).Elem(), given)
		return e.Trace(ctx, img, p)
	}}
	if m, ok := any(e).(MemoryBounded); ok {
		b.jobMemory = m.JobMemory
	}
	return b, nil
}

// Describe returns the engine's description.
func (s *server) Describe(_ context.Context, req *tracev1.DescribeRequest) (*tracev1.DescribeResponse, error) {
	d := descriptorToProto(s.desc, req.GetLists())
	d.DirectCalls = s.direct
	return d, nil
}

// Idle answers once no call runs: the host asks after cancelling a call, to learn that
// the engine has stopped. A call cancelled while it waited for s.mu returns at once
// (see Trace), so Idle waits for the engine's own check of its context at most.
func (s *server) Idle(context.Context, *tracev1.IdleRequest) (*tracev1.IdleResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &tracev1.IdleResponse{}, nil
}

// Trace validates the parameters, decodes the image and runs the engine.
func (s *server) Trace(ctx context.Context, req *tracev1.TraceRequest) (*tracev1.TraceResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// A call the host gave up on while it waited for the lock does no work.
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	defer s.jobDone()
	given := paramsFromProto(req.GetParams())
	if problems := s.desc.CheckValues(given); len(problems) > 0 {
		return &tracev1.TraceResponse{Failure: failureToProto(problemsError(s.desc.Name, problems))}, nil
	}
	start := time.Now()
	img := s.takeKept()
	if req.GetUseKept() {
		if img == nil {
			return &tracev1.TraceResponse{Failure: failureToProto(Errorf(wire.CodeNoKeptImage, "no image is kept; send it"))}, nil
		}
	} else {
		var err error
		img, err = decodeRequestImage(ctx, req.GetImage(), req.GetImageFile(), req.GetImageOffset(), req.GetImageLength(), int64(req.GetMaxPixels()))
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return nil, status.FromContextError(ctxErr).Err()
		}
		if err != nil {
			return &tracev1.TraceResponse{Failure: failureToProto(err)}, nil
		}
	}
	decoded := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	restore := s.boundMemory(img.Rect.Dx() * img.Rect.Dy())
	out, err := s.trace(withLogger(ctx, s.logger), img, given)
	restore()
	traced := time.Now()
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return nil, status.FromContextError(ctxErr).Err()
		}
		var e *Error
		if !errors.As(err, &e) {
			s.logger.Error("trace failed", "error", err)
		}
		return &tracev1.TraceResponse{Failure: failureToProto(err)}, nil
	}
	if len(out) > wire.MaxMessageBytes-(1<<20) {
		return &tracev1.TraceResponse{Failure: failureToProto(Errorf(CodeOutputTooLarge,
			"the SVG would be %d MB, more than the %d MB the service can return; lower the number of colours or raise the tolerance",
			len(out)>>20, wire.MaxMessageBytes>>20))}, nil
	}
	if !req.GetHostChecksOutput() {
		// A host that checks the SVG itself is not made to wait for the same check twice.
		if err := s.checkOutput(out, img.Rect.Dx(), img.Rect.Dy()); err != nil {
			return &tracev1.TraceResponse{Failure: failureToProto(err)}, nil
		}
	}
	return &tracev1.TraceResponse{
		Svg:          out,
		Width:        uint32(img.Rect.Dx()),
		Height:       uint32(img.Rect.Dy()),
		DecodeMicros: uint64(decoded.Sub(start).Microseconds()),
		TraceMicros:  uint64(traced.Sub(decoded).Microseconds()),
	}, nil
}

// Analyze decodes the image and measures it for automatic selection.
func (s *server) Analyze(ctx context.Context, req *tracev1.AnalyzeRequest) (*tracev1.AnalyzeResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	defer s.jobDone()
	s.takeKept()
	start := time.Now()
	img, err := decodeRequestImage(ctx, req.GetImage(), req.GetImageFile(), req.GetImageOffset(), req.GetImageLength(), int64(req.GetMaxPixels()))
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return nil, status.FromContextError(ctxErr).Err()
	}
	if err != nil {
		return &tracev1.AnalyzeResponse{Failure: failureToProto(err)}, nil
	}
	decoded := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	features := analysis.Measure(img)
	if req.GetKeep() {
		s.keep(img)
	}
	return &tracev1.AnalyzeResponse{
		Width:         uint32(img.Rect.Dx()),
		Height:        uint32(img.Rect.Dy()),
		Features:      features,
		AnalyzeMicros: uint64(time.Since(start).Microseconds()),
		DecodeMicros:  uint64(decoded.Sub(start).Microseconds()),
	}, nil
}

// skipOutputCheck, set to "yes" at link time (-X), turns the engine-side output check
// off: only for the host's tests, whose test engine must get hostile SVGs past it to
// show that the host refuses them itself.
var skipOutputCheck = ""

// checkOutput runs svg.Check on the engine's SVG of a w x h image, so that an author
// meets a refusal here (and in enginetest) rather than as the host's. Trace skips it when
// the request says the host checks the SVG itself.
func (s *server) checkOutput(doc []byte, w, h int) error {
	if skipOutputCheck == "yes" {
		return nil
	}
	if err := svg.Check(doc, w, h); err != nil {
		s.logger.Error("the engine's SVG is refused", "error", err)
		return Errorf(CodeBadOutput, "engine %q made an SVG the service refuses: %v", s.desc.Name, err)
	}
	return nil
}

// problemsError turns parameter problems into one invalid-settings error naming each.
func problemsError(engine string, problems []Problem) *Error {
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = p.Field + " " + p.Message
		if engine != "" {
			parts[i] = engine + "." + parts[i]
		}
	}
	return Errorf(CodeInvalidSettings, "%s", strings.Join(parts, "; "))
}

// decodeRequestImage decodes a request's image, given inline or as a file, for an
// engine, stopping when ctx ends (the error is then ctx's). The decoded image shares no
// memory with the file.
func decodeRequestImage(ctx context.Context, inline []byte, file string, off, n uint64, maxPixels int64) (*image.NRGBA, error) {
	data, release, err := wire.RequestImage(inline, file, off, n)
	if err != nil {
		return nil, err
	}
	defer release()
	img, _, err := raster.DecodeContext(ctx, data, maxPixels)
	return img, err
}

type loggerKey struct{}

// withLogger returns a context carrying logger, as Serve gives one to Engine.Trace.
func withLogger(ctx context.Context, logger hclog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, logger)
}

// Logger returns the logger in ctx: inside Engine.Trace, a logger whose lines the host
// writes into its own log under the engine's name. Without one it returns a logger that
// discards everything.
func Logger(ctx context.Context) hclog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(hclog.Logger); ok {
		return l
	}
	return hclog.NewNullLogger()
}
