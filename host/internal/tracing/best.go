package tracing

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// BestCandidates is how many settings preset best traces an image with: the selector's
// choice and its runner-up (selector.Candidates), in parallel.
const BestCandidates = 2

// The time budget of preset best: once the first trace is ready, the runner-up may run
// on for BestBudget times the wall time the measurement and first trace took, at least
// BestMinWait, and never past three quarters of the job's remaining time (the rest is for
// scoring and converting); past that it is stopped and the first trace kept. The two
// traces run at once on two engine processes, so on a server with a core free best
// costs the slower trace plus the scoring, not the sum.
const (
	BestBudget  = 4.0
	BestMinWait = 10 * time.Second
)

// Tried is one setting preset best traced.
type Tried struct {
	// Preset and Variant are the settings' preset and variant; Engine the engine run.
	Preset, Variant, Engine string
	// Quality is the trace's score, nil when it failed.
	Quality *fidelity.Score
	// Bytes is the SVG's size.
	Bytes int
	// Err is why the trace has no score: the engine's error, or the budget running out.
	Err error
}

// errOverBudget is a runner-up stopped because the first trace was ready long before it.
var errOverBudget = errors.New("stopped: over preset best's time budget")

// best is what runBest kept.
type best struct {
	a     pluginhost.Analysis
	r     settings.Resolved
	out   engines.Result
	score *fidelity.Score
	tried []Tried
}

// sameSettings reports whether two resolved settings trace the same way.
func sameSettings(a, b settings.Resolved) bool {
	return a.Engine == b.Engine && maps.EqualFunc(a.Params, b.Params, func(x, y any) bool { return fmt.Sprint(x) == fmt.Sprint(y) })
}

// runBest traces the image with the candidates pick gives for its features
// (selector.Candidates for preset best, selector.AutoCandidates for auto): the first on
// the engine that measured it, the runner-up at once on another process, within the
// time budget; scores each against the image (package fidelity, as output.quality) and
// keeps the one with the higher SSIM, the smaller SVG on a tie. With one distinct
// setting it is scored only when scoreAlone is set (preset best answers with the score
// and its one candidate; auto then traces as any preset does).
func (s *Service) runBest(ctx context.Context, job Job, pick func(map[string]float64) []settings.Choice, scoreAlone bool) (best, error) {
	image, file, set, cat := job.Image, job.File, job.Settings, job.Catalog
	start := time.Now()
	type traced struct {
		out engines.Result
		err error
	}
	second := make(chan traced, 1)
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	var cands []settings.Resolved
	var b best
	var err error
	b.a, b.out, err = s.Engines.AnalyzeAndTrace(ctx, selector.LikelyEngines(image, job.Info),
		pluginhost.AnalyzeRequest{Image: image, File: file, MaxPixels: s.MaxPixels},
		func(a pluginhost.Analysis) (string, pluginhost.TraceRequest, error) {
			for _, c := range pick(a.Features) {
				r, err := settings.Resolve(set, cat, c)
				if err != nil {
					if len(cands) == 0 {
						return "", pluginhost.TraceRequest{}, err
					}
					continue
				}
				if !slices.ContainsFunc(cands, func(o settings.Resolved) bool { return sameSettings(o, r) }) {
					cands = append(cands, r)
				}
				if len(cands) == BestCandidates {
					break
				}
			}
			if len(cands) > 1 {
				r := cands[1]
				go func() {
					out, err := s.Engines.Trace(ctx2, r.Engine, pluginhost.TraceRequest{Image: image, File: file, Params: r.Params, MaxPixels: s.MaxPixels})
					second <- traced{out, err}
				}()
			}
			return cands[0].Engine, pluginhost.TraceRequest{Image: image, File: file, Params: cands[0].Params, MaxPixels: s.MaxPixels}, nil
		})
	if len(cands) == 0 {
		return b, err
	}
	if len(cands) == 1 && !scoreAlone {
		b.r = cands[0]
		return b, err
	}
	// The first trace is decoded against and scored while the runner-up still runs.
	img, _, derr := raster.DecodeContext(ctx, image, s.MaxPixels)
	keep := -1
	add := func(i int, t traced) {
		tr := Tried{Preset: cands[i].Preset, Variant: cands[i].Variant, Engine: cands[i].Engine, Err: t.err}
		if t.err == nil && derr == nil {
			score, err := fidelity.ScoreSVG(ctx, img, t.out.SVG)
			if err != nil {
				tr.Err = err
			} else {
				tr.Quality, tr.Bytes = &score, len(t.out.SVG)
				if keep < 0 || better(score, len(t.out.SVG), *b.tried[keep].Quality, b.tried[keep].Bytes) {
					keep = i
				}
			}
		} else if t.err == nil {
			tr.Err = derr
		}
		b.tried = append(b.tried, tr)
	}
	results := []traced{{b.out, err}}
	var timer *time.Timer
	if len(cands) > 1 {
		wait := max(time.Duration(float64(time.Since(start))*BestBudget), BestMinWait)
		if deadline, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(deadline)*3/4)
		}
		timer = time.NewTimer(wait)
		defer timer.Stop()
	}
	add(0, results[0])
	if len(cands) > 1 {
		var t traced
		select {
		case t = <-second:
		case <-timer.C:
			t = traced{err: errOverBudget}
		case <-ctx.Done():
			t = traced{err: ctx.Err()}
		}
		cancel()
		results = append(results, t)
		add(1, t)
	}
	if keep < 0 {
		if err == nil {
			err = b.tried[0].Err
		}
		return b, err
	}
	b.r, b.out, b.score = cands[keep], results[keep].out, b.tried[keep].Quality
	// The kept setting first, the others after in the order tried.
	tried := []Tried{b.tried[keep]}
	for i, t := range b.tried {
		if i != keep {
			tried = append(tried, t)
		}
	}
	b.tried = tried
	return b, nil
}

// better reports whether a trace scoring a with na bytes beats one scoring b with nb
// bytes: a higher SSIM at the precision answers show (4 decimals), then fewer bytes; the
// PSNR when the image is too small for an SSIM.
func better(a fidelity.Score, na int, b fidelity.Score, nb int) bool {
	ra, rb := a.Round(), b.Round()
	if ra.SSIM != nil && rb.SSIM != nil && *ra.SSIM != *rb.SSIM {
		return *ra.SSIM > *rb.SSIM
	}
	if (ra.SSIM == nil || rb.SSIM == nil) && ra.PSNR != rb.PSNR {
		return ra.PSNR > rb.PSNR
	}
	return na < nb
}
