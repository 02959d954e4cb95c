// Package sdk is what a Tracecraft engine plugin imports: the Engine interface an engine
// implements, the parameter schema it describes itself with, the error codes it answers
// with, and Serve, which runs the engine as a plugin process the Tracecraft host launches.
//
// A plugin's main package is a few lines:
//
//	func main() { sdk.Serve[myengine.Params](myengine.New()) }
//
// The host talks to the plugin over gRPC (hashicorp/go-plugin); the generated protocol
// code stays internal to this module, so an engine author sees only the Go types here.
package sdk

import (
	"context"
	"image"
)

// Engine is a tracer with parameters P, a struct whose field tags describe them (see
// Describe): it describes itself and turns an image into an SVG.
//
// Trace is called with a decoded, upright (EXIF orientation applied), non-premultiplied
// image and with the client's parameters decoded into P, checked against the schema,
// defaults filled in. It must return a complete SVG document (see package svg), must give
// byte-identical output for the same image and parameters, and should return ctx.Err()
// soon after ctx is cancelled. An engine serves one Trace at a time per process; it may
// use goroutines inside a Trace.
type Engine[P any] interface {
	// Describe returns the engine's self-description, with Params set to
	// sdk.Describe[P](). It is called once per process start and must return the same
	// value every time.
	Describe() Descriptor
	// Trace converts img into an SVG document.
	Trace(ctx context.Context, img *image.NRGBA, params P) ([]byte, error)
}

// MemoryBounded is an optional interface of an Engine that knows how much memory it
// keeps alive per pixel. Go's collector lets the heap grow to twice what was alive after
// the last collection, so a large job's garbage can double the process's peak; with
// JobMemory the plugin's server sets the runtime's soft memory limit
// (debug.SetMemoryLimit) to JobMemory(width*height) for the duration of each Trace, the
// collector then runs before the process grows past it, and the limit is lifted after
// the job (a lower limit the operator set with GOMEMLIMIT stays). A bound below what the
// job really keeps alive only makes the collector run more often; it never fails a job.
// 0 means no bound.
type MemoryBounded interface {
	JobMemory(pixels int) int64
}

// Stability says whether an engine is offered as stable or as an experiment. The host
// lists stable engines in the schema's "engines" and experimental ones in
// "experimentalEngines".
type Stability int

const (
	// Stable engines are listed in the schema's engines list.
	Stable Stability = iota + 1
	// Experimental engines are usable by name but listed apart.
	Experimental
)

// String returns "stable" or "experimental".
func (s Stability) String() string {
	switch s {
	case Stable:
		return "stable"
	case Experimental:
		return "experimental"
	}
	return "unknown"
}

// Descriptor is an engine's self-description.
type Descriptor struct {
	// Name is the engine's name as clients write it in settings ("potrace"). It must
	// match the plugin's file name, tracecraft-engine-<Name>.
	Name string
	// Version is the engine's own version, free-form ("1.2.0").
	Version string
	// Stability is Stable or Experimental.
	Stability Stability
	// Description says in one sentence what the engine is good at.
	Description string
	// Params is the parameter schema, in the order clients should see it:
	// sdk.Describe[P]() of the engine's parameter struct P.
	Params []Param
}

// Param returns the parameter called name.
func (d Descriptor) Param(name string) (Param, bool) {
	for _, p := range d.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}
