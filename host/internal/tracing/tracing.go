// Package tracing runs one tracing job end to end, the same way for the HTTP service and
// the one-shot trace command: measure the image when the service must choose, resolve
// the preset, engine and parameters, and trace on the engine's process pool within the
// job time limit. For the HTTP service it also holds one request's other steps (see
// Request): its lane, the upload budget, and the usage of its API key.
package tracing

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/lanes"
	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// Engines is what a Service needs of the engine processes: *engines.Registry, or in a
// unit test an in-memory stand-in.
type Engines interface {
	// Engines returns the loaded engines, for their descriptions.
	Engines() []*engines.Engine
	// Statuses reports every engine, loaded or failed, for /api/health.
	Statuses() []engines.Status
	// Trace runs one job on the engine called name.
	Trace(ctx context.Context, name string, req pluginhost.TraceRequest) (engines.Result, error)
	// AnalyzeAndTrace measures the image, lets choose pick the engine and job, and
	// traces.
	AnalyzeAndTrace(ctx context.Context, prefer []string, image pluginhost.AnalyzeRequest, choose engines.Chooser) (pluginhost.Analysis, engines.Result, error)
}

var _ Engines = (*engines.Registry)(nil)

// Service traces images with the engines of a registry.
type Service struct {
	// Engines runs the engine processes.
	Engines Engines
	// Presets are the presets clients may name.
	Presets []settings.Preset
	// MaxPixels bounds width x height of an image.
	MaxPixels int64
	// JobTimeout bounds one job, measurement and trace together; 0 means no bound.
	JobTimeout time.Duration
	// AutoOnce makes preset auto trace once, with the selector's first choice, even when
	// the image's measures leave it in doubt; by default auto then also traces the
	// runner-up and keeps the trace scoring higher (selector.AutoCandidates).
	AutoOnce bool

	// The fields below serve the HTTP service's requests (Begin); the one-shot trace
	// command leaves them unset.

	// Public and Keyed are the lanes for requests without and with an API key.
	Public, Keyed *lanes.Lane
	// Uploads bounds the memory held by uploads being received or waiting; nil bounds
	// nothing.
	Uploads *Budget
	// Senders bounds the uploads one client address sends at once; nil bounds nothing.
	Senders *ClientUploads
	// Pace bounds how slowly a request body may arrive (the receiver of the HTTP
	// service enforces it); the zero value bounds nothing. A refusal for too many
	// uploads from one address forecasts from it when a place frees.
	Pace UploadPace
	// Usage counts the requests made with an API key.
	Usage Ledger
	// Logger receives the failures to count usage; nil logs nothing.
	Logger hclog.Logger
	// Now returns the time requests are counted at; nil means time.Now.
	Now func() time.Time
}

// Catalog returns the installed engines and the presets, for settings validation.
func (s *Service) Catalog() settings.Catalog {
	all := s.Engines.Engines()
	descs := make([]sdk.Descriptor, len(all))
	for i, e := range all {
		descs[i] = e.Desc
	}
	return settings.Catalog{Engines: descs, Presets: s.Presets, Fallback: selector.PreferredAnalyzers, NamedOnly: selector.NamedOnly}
}

// Result is a traced image.
type Result struct {
	SVG []byte
	// Engine and EngineVersion name what traced the image; Preset is the preset applied
	// ("" for none) and Variant its variant ("" for the preset's own settings).
	Engine, EngineVersion, Preset, Variant string
	Width, Height                          int
	// Params are all the parameters the engine used, defaults included.
	Params map[string]any
	// Analyze, Decode and Trace time the measurement and the plugin's own work.
	Analyze, Decode, Trace time.Duration
	// Traced is the image file the engine traced: the upload, or, with background:
	// remove, the PNG of the upload without its background. The quality score compares
	// the trace with it.
	Traced []byte
	// Quality is the trace's score when the job computed it (preset best), so that an
	// answer asking for it does not compute it again; nil otherwise.
	Quality *fidelity.Score
	// Tried lists the settings preset best traced and scored, the kept one first; empty
	// for other presets.
	Tried []Tried
}

// choose returns the selector's choice for an image with the features f under the
// settings set: the category for an auto preset, and the preset's variant.
func choose(set settings.Settings, f map[string]float64) settings.Choice {
	category := set.Preset
	if category == settings.Auto || category == settings.Best {
		category = selector.Choose(f)
	}
	return settings.Choice{Category: category, Variant: selector.Variant(category, f)}
}

// Job is one image to trace, checked and with its settings validated.
type Job struct {
	// Image is the uploaded file.
	Image []byte
	// File, when set, is the ImageFile whose content Image is: plugins map it instead of
	// receiving a copy.
	File *pluginhost.ImageFile
	// Info is what imagecheck.Check read from the image's header.
	Info imagecheck.Info
	// Settings were validated against Catalog, which also resolves them, so that the
	// engines a job runs with are the ones its settings were checked against.
	Settings settings.Settings
	Catalog  settings.Catalog
}

// Run traces a job's image. Errors are *fault.Error values, or ctx's error when the
// caller gave up.
func (s *Service) Run(ctx context.Context, job Job) (Result, error) {
	if s.JobTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.JobTimeout)
		defer cancel()
	}
	var res Result
	job, err := s.removeBackground(job)
	if err != nil {
		return res, err
	}
	image, file, set, cat := job.Image, job.File, job.Settings, job.Catalog
	res.Traced = image
	var r settings.Resolved
	var out engines.Result
	switch {
	case set.Preset == settings.Best, set.Preset == settings.Auto && set.NeedsAnalysis() && !s.AutoOnce:
		// auto traces with a second setting only when the image's measures leave the
		// choice in doubt (selector.AutoCandidates); best always does.
		pick, alone := selector.Candidates, true
		if set.Preset == settings.Auto {
			pick, alone = selector.AutoCandidates, false
		}
		var b best
		b, err = s.runBest(ctx, job, pick, alone)
		r, out, res.Quality, res.Tried = b.r, b.out, b.score, b.tried
		res.Analyze = b.a.Took - b.a.Decode
		res.Decode = b.a.Decode
	case set.NeedsAnalysis():
		// The engine measuring the image traces it too when it is the one chosen, without
		// decoding it again: the header's hint names the likeliest.
		var a pluginhost.Analysis
		a, out, err = s.Engines.AnalyzeAndTrace(ctx, selector.LikelyEngines(image, job.Info),
			pluginhost.AnalyzeRequest{Image: image, File: file, MaxPixels: s.MaxPixels},
			func(a pluginhost.Analysis) (string, pluginhost.TraceRequest, error) {
				var err error
				r, err = settings.Resolve(set, cat, choose(set, a.Features))
				return r.Engine, pluginhost.TraceRequest{Image: image, File: file, Params: r.Params, MaxPixels: s.MaxPixels}, err
			})
		res.Analyze = a.Took - a.Decode
		res.Decode = a.Decode
	default:
		r, err = settings.Resolve(set, cat, settings.Choice{})
		if err == nil {
			out, err = s.Engines.Trace(ctx, r.Engine, pluginhost.TraceRequest{Image: image, File: file, Params: r.Params, MaxPixels: s.MaxPixels})
		}
	}
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Code == fault.JobTimeout && s.JobTimeout > 0 {
		// The engine does not know the limit; the client should.
		err = fault.Wrap(fe.Err, fault.JobTimeout, "%s (the limit is %s per job)", fe.Message, s.JobTimeout)
	}
	if err != nil {
		return res, err
	}
	res.SVG, res.Engine, res.EngineVersion, res.Preset, res.Variant = out.SVG, out.Engine, out.Version, r.Preset, r.Variant
	res.Width, res.Height, res.Decode, res.Trace = out.Width, out.Height, res.Decode+out.Decode, out.TraceResult.Trace
	if desc, ok := cat.Engine(r.Engine); ok {
		res.Params = pluginhost.ParamValues(desc, r.Params)
	}
	return res, nil
}
