package tracing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/lanes"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/host/internal/store"
)

// Ledger is what a Service needs of the key and usage database: store.Store, or in a
// unit test an in-memory stand-in.
type Ledger interface {
	// RecordRequest adds one finished request to the key's usage.
	RecordRequest(ctx context.Context, keyID int64, r store.Request) error
}

var _ Ledger = store.Store(nil)

// Caller is who sends a request: the zero Caller is the public one, without an API key.
type Caller struct {
	// KeyID and KeyName are those of the caller's verified API key.
	KeyID   int64
	KeyName string
	// Addr is the client's network address (the IP of the connection's far end), by
	// which Service.Senders bounds the uploads sent at once; "" is not bounded.
	Addr string
}

// Request is one tracing request of the HTTP service on its way through the steps,
// in this order: Begin picks its lane, Admit refuses it at once when the lane or the
// upload budget is full or its address sends too many uploads already, Hold reserves
// the upload budget for the body's bytes as they arrive, Received notes the upload's
// size, Trace queues the job on the lane and runs it on an engine within the job time
// limit, Record counts the outcome in the key's usage, and Close gives the upload budget
// back. Errors are *fault.Error values, except the context's when the client gave up.
type Request struct {
	s        *Service
	caller   Caller
	lane     *lanes.Lane
	laneName string
	reserved int64
	// upload is the request's progress among its address's uploads while it counts
	// among them, nil before Admit and after Received or Close.
	upload *upload
	// input and pixels are counted in the key's usage once known.
	input, pixels int64
	queued        time.Duration
}

// Begin starts a request of caller on its lane: the keyed lane for a caller with a key,
// the public one otherwise.
func (s *Service) Begin(caller Caller) *Request {
	r := &Request{s: s, caller: caller, lane: s.Public, laneName: "public"}
	if caller.KeyID != 0 {
		r.lane, r.laneName = s.Keyed, "keyed"
	}
	return r
}

// Lane names the request's lane, "public" or "keyed".
func (r *Request) Lane() string { return r.laneName }

// HoldStep is the most upload budget a request reserves ahead of the bytes that have
// arrived: its body is received in steps of at most this size, each reserved first.
const HoldStep = 256 << 10

// Admit refuses the request at once, before its body is read, with fault.QueueFull
// when its lane would not queue it now or when the upload budget could not hold the
// body's first step (size is the size the headers announce, or -1), and with
// fault.TooManyUploads when its address already sends Service.Senders' maximum of
// uploads. Otherwise the request counts among its address's uploads until Received or
// Close. It reserves no budget: Hold does, as the body arrives.
func (r *Request) Admit(size int64) error {
	if err := r.lane.Full(r.caller.KeyName); err != nil {
		return err
	}
	first := int64(HoldStep)
	if size >= 0 {
		first = min(first, size)
	}
	if !r.s.Uploads.Fits(first) {
		return r.budgetSpent()
	}
	now := r.s.now()
	u := &upload{start: now, at: now, size: size}
	if !r.s.Senders.tryAdd(r.caller.Addr, u) {
		return &fault.Error{Code: fault.TooManyUploads, RetryAfter: r.s.Senders.forecast(r.caller.Addr, now, r.s.Pace),
			Message: fmt.Sprintf("this address is already sending %d uploads, the most the service receives at once from one address; wait for one to finish, then retry", r.s.Senders.Max()),
			Err:     fmt.Errorf("address %s: %d uploads at once", r.caller.Addr, r.s.Senders.Max())}
	}
	r.upload = u
	return nil
}

// Hold reserves n more bytes of the upload budget, for body bytes about to be received,
// until Close, once the bytes reserved before have come: what has come so far is the
// upload's progress, from which its address's next refusal forecasts its end. It returns
// a fault.QueueFull error when the budget cannot hold them.
func (r *Request) Hold(n int64) error {
	if r.upload != nil {
		r.s.Senders.progress(r.upload, r.reserved, r.s.now())
	}
	if !r.s.Uploads.TryTake(n) {
		return r.budgetSpent()
	}
	r.reserved += n
	return nil
}

// budgetSpent is the refusal of a request the upload budget cannot hold. Its
// Retry-After is when the first running job of either lane is forecast to finish, for
// its request then gives its upload memory back; 1 s when no job runs (the budget is
// then held by uploads still arriving, which the minimum upload rate keeps short).
func (r *Request) budgetSpent() error {
	secs := 0
	for _, l := range []*lanes.Lane{r.s.Public, r.s.Keyed} {
		if l == nil {
			continue
		}
		if s, ok := l.NextFinish(); ok && (secs == 0 || s < secs) {
			secs = s
		}
	}
	secs = max(secs, 1)
	e := lanes.Full(r.laneName, secs, false)
	e.Message = "the service holds as many uploaded bytes as it may at once; retry after the number of seconds in the Retry-After header"
	e.Err = fmt.Errorf("lane %s: the upload memory budget is spent", r.laneName)
	return e
}

// Close gives back the upload budget Hold reserved, and ends the request's count among
// its address's uploads if Received has not.
func (r *Request) Close() {
	r.s.Uploads.Give(r.reserved)
	r.reserved = 0
	r.doneSending()
}

// doneSending ends the request's count among its address's uploads.
func (r *Request) doneSending() {
	if r.upload != nil {
		r.s.Senders.done(r.caller.Addr, r.upload)
		r.upload = nil
	}
}

// Received notes the size of the uploaded image, counted in the key's usage, and ends
// the request's count among its address's uploads: its body has been read.
func (r *Request) Received(bytes int) {
	r.input = int64(bytes)
	r.doneSending()
}

// Trace queues job on the request's lane and, once a worker takes it, traces it with
// Run, then calls then (if not nil) with the result in the same worker, under the same
// job context and time limit: the place for work that belongs to the job, such as
// converting the SVG to the answer's format. It returns ctx's error when ctx ends while
// the job waits; once the job has started, it returns when the engine is done with it or
// killed and then has returned.
func (r *Request) Trace(ctx context.Context, job Job, then func(ctx context.Context, res Result) error) (Result, error) {
	r.pixels = job.Info.Pixels()
	var res Result
	var jobErr error
	queued, err := r.lane.Do(ctx, lanes.Job{Key: r.caller.KeyName, Kind: kindOf(job.Settings), Pixels: r.pixels}, func(jobCtx context.Context) {
		if r.s.JobTimeout > 0 {
			// One limit for the trace and then together (Run also bounds the trace alone).
			var cancel context.CancelFunc
			jobCtx, cancel = context.WithTimeout(jobCtx, r.s.JobTimeout)
			defer cancel()
		}
		res, jobErr = r.s.Run(jobCtx, job)
		if jobErr == nil && then != nil {
			jobErr = then(jobCtx, res)
			if jobErr != nil && errors.Is(jobCtx.Err(), context.DeadlineExceeded) {
				jobErr = fault.Wrap(jobErr, fault.JobTimeout, "the job passed the time limit (%s per job) while its answer was prepared", r.s.JobTimeout)
			}
		}
	})
	r.queued = queued
	if err == nil {
		err = jobErr
	}
	return res, err
}

// kindOf names the jobs whose times per pixel the lane compares with this one's: those
// of the engine asked for, or of the preset when the engine is chosen from the image.
func kindOf(set settings.Settings) string {
	if set.Engine != settings.Auto {
		return set.Engine
	}
	return "preset " + set.Preset
}

// Queued is how long the job waited in the lane's queue.
func (r *Request) Queued() time.Duration { return r.queued }

// Record adds the request's outcome to its key's usage, if it has a key: the HTTP
// status of its answer, the bytes sent and the engine's time. It records even when ctx
// has ended (the client has gone), and returns a fault.StoreUnavailable error when the usage database
// cannot be reached (a keyed answer that cannot be counted is not given).
func (r *Request) Record(ctx context.Context, status, outputBytes int, engineTime time.Duration) error {
	if r.caller.KeyID == 0 {
		return nil
	}
	err := r.s.Usage.RecordRequest(context.WithoutCancel(ctx), r.caller.KeyID, store.Request{
		Status: status, InputBytes: r.input, OutputBytes: int64(outputBytes), Pixels: r.pixels,
		EngineMillis: engineTime.Milliseconds(), At: r.s.now(),
	})
	if err == nil {
		return nil
	}
	if r.s.Logger != nil {
		r.s.Logger.Error("cannot record usage", "key", r.caller.KeyName, "error", err)
	}
	return fault.Wrap(err, fault.StoreUnavailable, "the usage database cannot be reached, so the request could not be counted; retry shortly")
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
