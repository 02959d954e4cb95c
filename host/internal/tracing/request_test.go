package tracing

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/lanes"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// fakeParams are the in-memory engine's parameters.
type fakeParams struct {
	Color string `param:"color" enum:"red,blue" default:"red" desc:"the colour to draw"`
}

// fakeEngines stands in for the engine processes: one engine, "fake", whose traces
// trace makes (an SVG naming the colour, by default).
type fakeEngines struct {
	trace func(ctx context.Context, req pluginhost.TraceRequest) (engines.Result, error)
}

func (f *fakeEngines) Engines() []*engines.Engine {
	return []*engines.Engine{{Desc: sdk.Descriptor{Name: "fake", Version: "2.0.0", Stability: sdk.Stable,
		Description: "an in-memory engine for the steps' tests", Params: sdk.Describe[fakeParams]()}}}
}

func (f *fakeEngines) Statuses() []engines.Status { return nil }

func (f *fakeEngines) Trace(ctx context.Context, name string, req pluginhost.TraceRequest) (engines.Result, error) {
	if f.trace != nil {
		return f.trace(ctx, req)
	}
	p, err := sdk.Decode[fakeParams](req.Params)
	if err != nil {
		return engines.Result{}, fault.FromSDK(err)
	}
	return engines.Result{TraceResult: pluginhost.TraceResult{SVG: []byte("<svg " + p.Color + "/>"), Width: 3, Height: 2,
		Decode: time.Millisecond, Trace: 2 * time.Millisecond}, Engine: name, Version: "2.0.0"}, nil
}

func (f *fakeEngines) AnalyzeAndTrace(ctx context.Context, prefer []string, image pluginhost.AnalyzeRequest, choose engines.Chooser) (pluginhost.Analysis, engines.Result, error) {
	return pluginhost.Analysis{}, engines.Result{}, fault.New(fault.EngineUnavailable, "the fake engine does not measure images")
}

// fakeLedger keeps the recorded requests in memory, or fails with err.
type fakeLedger struct {
	mu   sync.Mutex
	err  error
	keys []int64
	reqs []store.Request
	ctxs []context.Context
}

func (l *fakeLedger) RecordRequest(ctx context.Context, keyID int64, r store.Request) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	l.keys, l.reqs, l.ctxs = append(l.keys, keyID), append(l.reqs, r), append(l.ctxs, ctx)
	return nil
}

var testNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// newService returns a Service over eng with lanes of one worker and a queue of one
// place, an upload budget of budget bytes, and ledger for usage.
func newService(t *testing.T, eng Engines, budget int64, ledger Ledger) *Service {
	t.Helper()
	public := lanes.New(lanes.Config{Name: "public", Workers: 1, Capacity: 1})
	keyed := lanes.New(lanes.Config{Name: "keyed", Workers: 1, Capacity: 1, PerKey: 1})
	t.Cleanup(public.Close)
	t.Cleanup(keyed.Close)
	return &Service{Engines: eng, MaxPixels: 1 << 20, JobTimeout: 5 * time.Second,
		Public: public, Keyed: keyed, Uploads: NewBudget(budget), Usage: ledger, Now: func() time.Time { return testNow }}
}

// jobOf returns a job of a 3x2 image with the settings raw, checked against s's catalog.
func jobOf(t *testing.T, s *Service, raw string) Job {
	t.Helper()
	cat := s.Catalog()
	set, err := settings.Parse([]byte(raw), cat)
	if err != nil {
		t.Fatalf("settings %s: %v", raw, err)
	}
	return Job{Image: []byte("image"), Info: imagecheck.Info{Format: "png", Width: 3, Height: 2}, Settings: set, Catalog: cat}
}

// TestBeginPicksTheCallersLane checks that a caller with a key gets the keyed lane
// and one without the public lane.
func TestBeginPicksTheCallersLane(t *testing.T) {
	s := newService(t, &fakeEngines{}, 1<<20, &fakeLedger{})
	tests := []struct {
		caller Caller
		lane   string
	}{
		{Caller{}, "public"},
		{Caller{KeyID: 7, KeyName: "alice"}, "keyed"},
	}
	for _, tt := range tests {
		if got := s.Begin(tt.caller).Lane(); got != tt.lane {
			t.Errorf("Begin(%+v).Lane() = %q, want %q", tt.caller, got, tt.lane)
		}
	}
}

// TestHoldReservesTheUploadBudgetUntilClose checks that Admit reserves nothing, that
// a request holds what Hold reserved until Close, and that a request the budget cannot
// hold is refused with queue_full and a Retry-After of one second: by Admit when not
// even the body's first step fits, by Hold as the body arrives.
func TestHoldReservesTheUploadBudgetUntilClose(t *testing.T) {
	s := newService(t, &fakeEngines{}, 100, &fakeLedger{})
	first := s.Begin(Caller{})
	if err := first.Admit(1 << 20); err != nil {
		t.Fatalf("the first request was refused: %v", err)
	}
	if got := s.Uploads.Used(); got != 0 {
		t.Errorf("budget used %d after Admit, want 0: bytes are reserved as they arrive", got)
	}
	if err := first.Hold(60); err != nil {
		t.Fatalf("holding 60 bytes of 100: %v", err)
	}
	second := s.Begin(Caller{KeyID: 1, KeyName: "k"})
	for _, step := range []struct {
		name string
		try  func() error
	}{
		{"Admit of a 60-byte body", func() error { return second.Admit(60) }},
		{"Hold of 60 bytes", func() error { return second.Hold(60) }},
	} {
		err := step.try()
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.QueueFull || fe.RetryAfter != 1 {
			t.Fatalf("%s over budget: got %v, want queue_full with RetryAfter 1", step.name, err)
		}
		if !strings.Contains(fe.Err.Error(), "lane keyed") || !strings.Contains(fe.Message, "uploaded bytes") {
			t.Errorf("%s: the cause %q does not name the keyed lane, or the message %q the uploads", step.name, fe.Err, fe.Message)
		}
	}
	if err := second.Admit(40); err != nil {
		t.Errorf("a 40-byte body beside 60 of 100: %v", err)
	}
	second.Close() // nothing reserved, nothing given back
	first.Close()
	first.Close() // a second Close gives nothing back twice
	if got := s.Uploads.Used(); got != 0 {
		t.Errorf("budget used %d after Close, want 0", got)
	}
	if err := second.Hold(1000); err != nil {
		t.Errorf("a reservation larger than the whole budget was refused once the budget was free: %v", err)
	}
}

// TestAdmitBoundsTheUploadsOfOneAddress checks that an address sends at most
// Senders' maximum of uploads at once, counted from Admit to Received or Close; other
// addresses, and requests without one, are not bounded by it.
func TestAdmitBoundsTheUploadsOfOneAddress(t *testing.T) {
	s := newService(t, &fakeEngines{}, 1<<20, &fakeLedger{})
	s.Senders = NewClientUploads(2)
	a1, a2 := s.Begin(Caller{Addr: "192.0.2.1"}), s.Begin(Caller{Addr: "192.0.2.1", KeyID: 1, KeyName: "k"})
	for _, r := range []*Request{a1, a2} {
		if err := r.Admit(10); err != nil {
			t.Fatalf("an upload within the bound: %v", err)
		}
	}
	err := s.Begin(Caller{Addr: "192.0.2.1"}).Admit(10)
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.TooManyUploads || fe.RetryAfter != 1 || !strings.Contains(fe.Message, "2 uploads") {
		t.Fatalf("a third upload from one address: got %v, want too_many_uploads naming the bound, with RetryAfter 1", err)
	}
	for _, c := range []Caller{{Addr: "192.0.2.2"}, {}} {
		if err := s.Begin(c).Admit(10); err != nil {
			t.Errorf("caller %+v beside a full address: %v", c, err)
		}
	}
	a1.Received(5) // its body is read: it no longer counts, and Close does not count it twice
	a1.Close()
	if got := s.Senders.Sending("192.0.2.1"); got != 1 {
		t.Errorf("after one upload was received, the address sends %d, want 1", got)
	}
	a2.Close()
	if got := s.Senders.Sending("192.0.2.1"); got != 0 {
		t.Errorf("after both ended, the address sends %d, want 0", got)
	}
}

// TestAdmitRefusesWhenTheLaneIsFull holds the public lane's worker and queue place
// with two jobs; the next request is refused, while the keyed lane still admits.
func TestAdmitRefusesWhenTheLaneIsFull(t *testing.T) {
	hold := make(chan struct{})
	eng := &fakeEngines{trace: func(ctx context.Context, req pluginhost.TraceRequest) (engines.Result, error) {
		<-hold
		return engines.Result{Engine: "fake"}, nil
	}}
	s := newService(t, eng, 1<<20, &fakeLedger{})
	job := jobOf(t, s, `{"engine":"fake"}`)
	done := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := s.Begin(Caller{}).Trace(context.Background(), job, nil)
			done <- err
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for st := s.Public.Stats(); st.Busy+st.Queued < 2; st = s.Public.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("the held jobs did not reach the lane: %+v", st)
		}
		time.Sleep(time.Millisecond)
	}
	err := s.Begin(Caller{}).Admit(10)
	if fault.Code(err) != fault.QueueFull {
		t.Errorf("a full lane: got %v, want queue_full", err)
	}
	if err := s.Begin(Caller{KeyID: 1, KeyName: "k"}).Admit(10); err != nil {
		t.Errorf("the keyed lane refused while only the public one is full: %v", err)
	}
	close(hold)
	for range 2 {
		if err := <-done; err != nil {
			t.Errorf("a held job failed: %v", err)
		}
	}
}

// TestTraceRunsTheJobOnTheEngine checks a traced job's result and each kind of
// failure the step passes on.
func TestTraceRunsTheJobOnTheEngine(t *testing.T) {
	tests := []struct {
		name     string
		settings string
		trace    func(ctx context.Context, req pluginhost.TraceRequest) (engines.Result, error)
		timeout  time.Duration
		code     string // "" for success
		message  string // a part of the message
	}{
		{name: "defaults", settings: `{"engine":"fake"}`},
		{name: "an engine's refusal", settings: `{"engine":"fake"}`, code: fault.InvalidSettings, message: "refuses",
			trace: func(ctx context.Context, req pluginhost.TraceRequest) (engines.Result, error) {
				return engines.Result{}, fault.FromSDK(sdk.Errorf(sdk.CodeInvalidSettings, "the engine refuses these settings"))
			}},
		{name: "a crash", settings: `{"engine":"fake"}`, code: fault.EngineCrashed,
			trace: func(ctx context.Context, req pluginhost.TraceRequest) (engines.Result, error) {
				return engines.Result{}, fault.New(fault.EngineCrashed, "engine %q crashed", "fake")
			}},
		{name: "the job time limit, named in the message", settings: `{"engine":"fake"}`, timeout: 20 * time.Millisecond,
			code: fault.JobTimeout, message: "(the limit is 20ms per job)",
			trace: func(ctx context.Context, req pluginhost.TraceRequest) (engines.Result, error) {
				<-ctx.Done()
				return engines.Result{}, fault.Wrap(ctx.Err(), fault.JobTimeout, "engine %q did not finish within the job time limit", "fake")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newService(t, &fakeEngines{trace: tt.trace}, 1<<20, &fakeLedger{})
			if tt.timeout > 0 {
				s.JobTimeout = tt.timeout
			}
			res, err := s.Begin(Caller{}).Trace(context.Background(), jobOf(t, s, tt.settings), nil)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("Trace: %v", err)
				}
				if string(res.SVG) != "<svg red/>" || res.Engine != "fake" || res.EngineVersion != "2.0.0" || res.Params["color"] != "red" ||
					res.Decode != time.Millisecond || res.Trace != 2*time.Millisecond {
					t.Errorf("got %+v, want the fake engine's red SVG with its parameters and times", res)
				}
				return
			}
			fe := fault.As(err)
			if fe.Code != tt.code || !strings.Contains(fe.Message, tt.message) {
				t.Errorf("got %v, want %s with %q", err, tt.code, tt.message)
			}
		})
	}
}

// TestTraceGivesUpWhenTheCallerDoesWhileQueued checks that a job waiting in the queue is
// dropped with the context's error when its caller goes away.
func TestTraceGivesUpWhenTheCallerDoesWhileQueued(t *testing.T) {
	hold := make(chan struct{})
	eng := &fakeEngines{trace: func(ctx context.Context, req pluginhost.TraceRequest) (engines.Result, error) {
		<-hold
		return engines.Result{Engine: "fake"}, nil
	}}
	s := newService(t, eng, 1<<20, &fakeLedger{})
	job := jobOf(t, s, `{"engine":"fake"}`)
	busy := make(chan error, 1)
	go func() {
		_, err := s.Begin(Caller{}).Trace(context.Background(), job, nil)
		busy <- err
	}()
	for s.Public.Stats().Busy < 1 {
		time.Sleep(time.Millisecond)
	}
	// The deadline runs from before the job enters the queue, so the time queued is a
	// little less than it: the job must have waited in the queue, and Trace must not
	// have returned before the deadline.
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req := s.Begin(Caller{})
	_, err := req.Trace(ctx, job, nil)
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || req.Queued() <= 0 || took < 20*time.Millisecond {
		t.Errorf("got %v after %s (%s queued), want the context's error after at least 20ms in the queue", err, took, req.Queued())
	}
	close(hold)
	if err := <-busy; err != nil {
		t.Errorf("the running job failed: %v", err)
	}
}

// TestRecordCountsKeyedRequests checks what a request adds to its key's usage, that a
// public request adds nothing, and that an unreachable database is store_unavailable.
func TestRecordCountsKeyedRequests(t *testing.T) {
	ledger := &fakeLedger{}
	s := newService(t, &fakeEngines{}, 1<<20, ledger)
	job := jobOf(t, s, `{"engine":"fake"}`)

	public := s.Begin(Caller{})
	public.Received(5)
	if err := public.Record(context.Background(), 200, 10, time.Second); err != nil || len(ledger.reqs) != 0 {
		t.Fatalf("a public request: %v, %d recorded, want nothing recorded", err, len(ledger.reqs))
	}

	req := s.Begin(Caller{KeyID: 42, KeyName: "alice"})
	req.Received(len(job.Image))
	res, err := req.Trace(context.Background(), job, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The client has gone by the time the outcome is counted: it is counted still.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := req.Record(ctx, 200, len(res.SVG), res.Decode+res.Trace+1500*time.Microsecond); err != nil {
		t.Fatal(err)
	}
	want := store.Request{Status: 200, InputBytes: 5, OutputBytes: int64(len(res.SVG)), Pixels: 6, EngineMillis: 4, At: testNow}
	if len(ledger.reqs) != 1 || ledger.keys[0] != 42 || ledger.reqs[0] != want {
		t.Fatalf("recorded %v %+v, want key 42 and %+v", ledger.keys, ledger.reqs, want)
	}
	if ledger.ctxs[0].Err() != nil {
		t.Errorf("the usage was recorded with an ended context: %v", ledger.ctxs[0].Err())
	}

	// A refusal before the upload is read counts no bytes and no pixels.
	refused := s.Begin(Caller{KeyID: 42, KeyName: "alice"})
	if err := refused.Record(context.Background(), 429, 0, 0); err != nil {
		t.Fatal(err)
	}
	if got := ledger.reqs[1]; got != (store.Request{Status: 429, At: testNow}) {
		t.Errorf("a refusal recorded %+v, want only its status and time", got)
	}

	ledger.err = errors.New("connection refused")
	err = s.Begin(Caller{KeyID: 42, KeyName: "alice"}).Record(context.Background(), 200, 1, 0)
	if fe := fault.As(err); fe.Code != fault.StoreUnavailable || !errors.Is(err, ledger.err) || strings.Contains(fe.Message, "refused") {
		t.Errorf("an unreachable database: got %v, want store_unavailable keeping the cause out of the message", err)
	}
}

// TestBudgetTakesWhatFits checks the budget's arithmetic.
func TestBudgetTakesWhatFits(t *testing.T) {
	b := NewBudget(10)
	steps := []struct {
		take int64 // taken if positive, given back if negative
		ok   bool
		used int64
	}{
		{20, true, 20}, // one reservation fits an unused budget, however large
		{1, false, 20},
		{-20, true, 0},
		{6, true, 6},
		{4, true, 10},
		{1, false, 10},
		{-4, true, 6},
		{4, true, 10},
	}
	for i, st := range steps {
		ok := true
		if st.take > 0 {
			ok = b.TryTake(st.take)
		} else {
			b.Give(-st.take)
		}
		if ok != st.ok || b.Used() != st.used {
			t.Errorf("step %d (%+d): ok %v used %d, want %v and %d", i, st.take, ok, b.Used(), st.ok, st.used)
		}
	}
	var none *Budget
	if !none.TryTake(1 << 40) {
		t.Error("a nil budget refused")
	}
	none.Give(1)
}

// TestTraceRunsThenInTheJob checks that Trace's then step (the output conversion) sees
// the traced result, that its error is the job's, and that it runs under the job time
// limit.
func TestTraceRunsThenInTheJob(t *testing.T) {
	s := newService(t, &fakeEngines{}, 1<<20, &fakeLedger{})
	job := jobOf(t, s, `{"engine":"fake"}`)
	var seen string
	then := func(ctx context.Context, res Result) error { seen = string(res.SVG); return nil }
	if _, err := s.Begin(Caller{}).Trace(context.Background(), job, then); err != nil || seen != "<svg red/>" {
		t.Errorf("Trace: %v; then saw %q, want the traced SVG", err, seen)
	}
	then = func(ctx context.Context, res Result) error { return fault.New(fault.Internal, "no writer") }
	if _, err := s.Begin(Caller{}).Trace(context.Background(), job, then); fault.As(err).Code != fault.Internal {
		t.Errorf("a failed then gave %v, want its error", err)
	}
	s.JobTimeout = 20 * time.Millisecond
	then = func(ctx context.Context, res Result) error { <-ctx.Done(); return ctx.Err() }
	if _, err := s.Begin(Caller{}).Trace(context.Background(), job, then); fault.As(err).Code != fault.JobTimeout {
		t.Errorf("a then past the time limit gave %v, want job_timeout", err)
	}
}

// TestASpentBudgetIsRetriedWhenTheFirstRunningJobEnds: a request refused for a spent
// upload budget is told to come back when the first running job is forecast to end (its
// request then gives its upload memory back): 8 s, 10 with the forecast's margin.
func TestASpentBudgetIsRetriedWhenTheFirstRunningJobEnds(t *testing.T) {
	s := newService(t, &fakeEngines{}, 100, &fakeLedger{})
	s.Public = lanes.New(lanes.Config{Name: "public", Workers: 1, Capacity: 1, InitialJobTime: 8 * time.Second, Cores: 1})
	t.Cleanup(s.Public.Close)
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := s.Public.Do(context.Background(), lanes.Job{}, func(context.Context) { close(started); <-release })
		done <- err
	}()
	<-started
	first := s.Begin(Caller{})
	if err := first.Hold(100); err != nil {
		t.Fatal(err)
	}
	var fe *fault.Error
	if err := s.Begin(Caller{}).Hold(1); !errors.As(err, &fe) || fe.Code != fault.QueueFull || fe.RetryAfter != 10 {
		t.Errorf("over budget with a job of 8 s running: got %v, want queue_full with RetryAfter 10", err)
	}
	first.Close()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestTooManyUploadsForecastsWhenAPlaceFrees checks the Retry-After of a refusal for
// too many uploads from one address: the soonest end among its uploads, each at the
// rate it has arrived so far or when the pace would cut it off, whichever is sooner.
func TestTooManyUploadsForecastsWhenAPlaceFrees(t *testing.T) {
	t0 := testNow
	now := t0
	s := newService(t, &fakeEngines{}, 1<<20, &fakeLedger{})
	s.Now = func() time.Time { return now }
	s.Senders = NewClientUploads(2)
	s.Pace = UploadPace{MinRate: 50, Grace: 30 * time.Second, Limit: time.Hour}
	const addr = "192.0.2.7"

	retryAfter := func() int {
		t.Helper()
		err := s.Begin(Caller{Addr: addr}).Admit(10)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.TooManyUploads {
			t.Fatalf("a third upload from one address: got %v, want too_many_uploads", err)
		}
		return fe.RetryAfter
	}

	// a announces 1000 bytes; 100 of them come in the first 2 s: 50 B/s, so the other
	// 900 take 18 s more, sooner than the pace's bound (30 s + 1000/50 s after start).
	a := s.Begin(Caller{Addr: addr})
	if err := a.Admit(1000); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Hold(100); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(2 * time.Second)
	if err := a.Hold(100); err != nil {
		t.Fatal(err)
	}
	// b, of unknown size, has sent nothing: the pace cuts it off 30.02 s after it began.
	b := s.Begin(Caller{Addr: addr})
	if err := b.Admit(-1); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := retryAfter(); got != 18 {
		t.Errorf("with a at 50 B/s and 900 bytes to come: Retry-After %d, want 18", got)
	}
	a.Received(1000)
	c := s.Begin(Caller{Addr: addr})
	if err := c.Admit(-1); err != nil {
		t.Fatalf("a's place, freed: %v", err)
	}
	defer c.Close()
	if got := retryAfter(); got != 31 {
		t.Errorf("with b and c idle: Retry-After %d, want 31 (the pace cuts b off then)", got)
	}
	// Without a pace, an upload that has shown no progress bounds nothing: 1 s.
	s.Pace = UploadPace{}
	if got := retryAfter(); got != 1 {
		t.Errorf("without a pace: Retry-After %d, want 1", got)
	}
}
