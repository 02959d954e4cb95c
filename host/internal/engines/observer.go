package engines

import (
	"context"
	"errors"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

// Outcome is how one job's time in an engine process ended.
type Outcome string

// The outcomes of a job in an engine process.
const (
	// Succeeded: the engine answered with a result.
	Succeeded Outcome = "ok"
	// Refused: the engine answered with an error of its own (a corrupt image, say).
	Refused Outcome = "refused"
	// TimedOut: the job passed its time limit and the process was killed.
	TimedOut Outcome = "timeout"
	// Canceled: the client went away; the process was kept if the engine stopped within
	// the cancel grace, and killed otherwise.
	Canceled Outcome = "canceled"
	// Crashed: the process died or broke the protocol during the job.
	Crashed Outcome = "crashed"
	// BadOutput: the engine answered with an SVG that failed svg.Check (in the host, or
	// in the engine's own sdk), and the client got engine_bad_output.
	BadOutput Outcome = "bad_output"
)

// Observer hears of engine process events, for metrics. The registry calls it on the
// job's goroutine, so its methods must be quick and safe for concurrent use.
type Observer interface {
	// ProcessStarted reports that a process of engine passed the handshake.
	ProcessStarted(engine string)
	// ProcessCrashed reports a process of engine that died without being asked to:
	// during a job, or while idle (killed from outside).
	ProcessCrashed(engine string)
	// JobDone reports the time one job held a process of engine, and how it ended. For
	// auto, the engine that measures the image and the one that traces it each report
	// their part; when they are the same, the job is one call.
	JobDone(engine string, took time.Duration, outcome Outcome)
}

// noObserver is the Observer of a registry configured without one.
type noObserver struct{}

func (noObserver) ProcessStarted(string)                  {}
func (noObserver) ProcessCrashed(string)                  {}
func (noObserver) JobDone(string, time.Duration, Outcome) {}

// outcomeOf classifies the error of a job that did not crash its process.
func outcomeOf(err error) Outcome {
	switch {
	case err == nil:
		return Succeeded
	case errors.Is(err, context.DeadlineExceeded):
		return TimedOut
	case errors.Is(err, context.Canceled):
		return Canceled
	case fault.Code(err) == fault.EngineBadOutput:
		return BadOutput
	}
	return Refused
}
