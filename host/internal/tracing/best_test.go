package tracing

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/analysis"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// halfBlack is a 16x16 PNG whose left half is black, the rest white.
func halfBlack(t *testing.T) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 16, 16))
	for y := range 16 {
		for x := range 16 {
			img.SetGray(x, y, color.Gray{Y: map[bool]uint8{true: 0, false: 255}[x < 8]})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The fake engine's two traces of halfBlack: red draws the black half (faithful), blue
// draws nothing (a white page).
const (
	faithfulSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path d="M0 0H8V16H0Z" fill="#000"/></svg>`
	blankSVG    = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"></svg>`
)

// bestEngines measures every image as a flat logo (so best traces the logo preset first,
// then poster), and traces with the colour's SVG; slow, when set, traces a colour
// instead.
type bestEngines struct {
	fakeEngines
	slow map[string]func(ctx context.Context) (engines.Result, error)
	// features, when set, are what the image measures instead of a flat logo's.
	features map[string]float64
}

func (f *bestEngines) Trace(ctx context.Context, name string, req pluginhost.TraceRequest) (engines.Result, error) {
	p, err := sdk.Decode[fakeParams](req.Params)
	if err != nil {
		return engines.Result{}, fault.FromSDK(err)
	}
	if slow := f.slow[p.Color]; slow != nil {
		return slow(ctx)
	}
	svg := map[string]string{"red": faithfulSVG, "blue": blankSVG}[p.Color]
	return engines.Result{TraceResult: pluginhost.TraceResult{SVG: []byte(svg), Width: 16, Height: 16}, Engine: name, Version: "2.0.0"}, nil
}

func (f *bestEngines) AnalyzeAndTrace(ctx context.Context, prefer []string, image pluginhost.AnalyzeRequest, choose engines.Chooser) (pluginhost.Analysis, engines.Result, error) {
	a := pluginhost.Analysis{Features: map[string]float64{analysis.Top4Share: 1, analysis.GrayShare: 0.1}}
	if f.features != nil {
		a.Features = f.features
	}
	name, req, err := choose(a)
	if err != nil {
		return a, engines.Result{}, err
	}
	res, err := f.Trace(ctx, name, req)
	return a, res, err
}

// TestBestKeepsTheTraceThatScoresHigher checks that preset best traces the selector's
// choice and its runner-up and answers with the one whose quality score is higher,
// whichever order they come in, and keeps the first when the runner-up fails or runs
// over the time budget.
func TestBestKeepsTheTraceThatScoresHigher(t *testing.T) {
	hang := func(ctx context.Context) (engines.Result, error) {
		<-ctx.Done()
		return engines.Result{}, ctx.Err()
	}
	crash := func(ctx context.Context) (engines.Result, error) {
		return engines.Result{}, fault.New(fault.EngineCrashed, "engine %q crashed", "fake")
	}
	tests := []struct {
		name          string
		logo, poster  string // the colour each preset traces with
		slow          map[string]func(ctx context.Context) (engines.Result, error)
		wantPreset    string
		wantSVG       string
		wantSecondErr error // the runner-up's error, nil when it was scored
	}{
		{name: "the runner-up is better", logo: "blue", poster: "red", wantPreset: selector.Poster, wantSVG: faithfulSVG},
		{name: "the first is better", logo: "red", poster: "blue", wantPreset: selector.Logo, wantSVG: faithfulSVG},
		{name: "the runner-up runs over the budget", logo: "blue", poster: "red",
			slow: map[string]func(ctx context.Context) (engines.Result, error){"red": hang}, wantPreset: selector.Logo, wantSVG: blankSVG,
			wantSecondErr: errOverBudget},
		{name: "the runner-up crashes", logo: "blue", poster: "red",
			slow: map[string]func(ctx context.Context) (engines.Result, error){"red": crash}, wantPreset: selector.Logo, wantSVG: blankSVG,
			wantSecondErr: fault.New(fault.EngineCrashed, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newService(t, &bestEngines{slow: tt.slow}, 1<<20, &fakeLedger{})
			s.JobTimeout = 400 * time.Millisecond // the budget is then 3/4 of it
			s.Presets = []settings.Preset{
				{Name: selector.Logo, Engine: "fake", Params: map[string]any{"color": tt.logo}},
				{Name: selector.Poster, Engine: "fake", Params: map[string]any{"color": tt.poster}},
				{Name: selector.Photo, Engine: "fake", Params: map[string]any{"color": tt.poster}},
			}
			job := jobOf(t, s, `{"preset":"best"}`)
			job.Image, job.Info = halfBlack(t), imagecheck.Info{Format: "png", Width: 16, Height: 16}
			res, err := s.Run(context.Background(), job)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Preset != tt.wantPreset || string(res.SVG) != tt.wantSVG {
				t.Errorf("kept preset %q with %s, want %q with %s", res.Preset, res.SVG, tt.wantPreset, tt.wantSVG)
			}
			if len(res.Tried) != 2 || res.Tried[0].Preset != tt.wantPreset || res.Quality != res.Tried[0].Quality {
				t.Fatalf("tried %+v, want 2 settings, the kept one first with the answer's score", res.Tried)
			}
			second := res.Tried[1]
			switch {
			case tt.wantSecondErr == nil && (second.Err != nil || second.Quality == nil || *second.Quality.SSIM >= *res.Quality.SSIM):
				t.Errorf("runner-up %+v, want a score below the kept one's %v", second, *res.Quality.SSIM)
			case tt.wantSecondErr == errOverBudget && !errors.Is(second.Err, errOverBudget):
				t.Errorf("runner-up error %v, want %v", second.Err, errOverBudget)
			case tt.wantSecondErr != nil && tt.wantSecondErr != errOverBudget && fault.Code(second.Err) != fault.Code(tt.wantSecondErr):
				t.Errorf("runner-up error %v, want code %s", second.Err, fault.Code(tt.wantSecondErr))
			}
		})
	}
}

// TestBestTracesDuplicateSettingsOnce checks that candidates resolving to the same
// engine and parameters are traced once.
func TestBestTracesDuplicateSettingsOnce(t *testing.T) {
	s := newService(t, &bestEngines{}, 1<<20, &fakeLedger{})
	s.Presets = []settings.Preset{
		{Name: selector.Logo, Engine: "fake", Params: map[string]any{"color": "red"}},
		{Name: selector.Poster, Engine: "fake", Params: map[string]any{"color": "red"}},
		{Name: selector.Photo, Engine: "fake", Params: map[string]any{"color": "blue"}},
	}
	job := jobOf(t, s, `{"preset":"best"}`)
	job.Image = halfBlack(t)
	res, err := s.Run(context.Background(), job)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Tried) != 2 || res.Tried[0].Preset != selector.Logo || res.Tried[1].Preset != selector.Photo {
		t.Errorf("tried %+v, want logo then photo (poster's settings are logo's)", res.Tried)
	}
}

// TestAutoTracesTheRunnerUpOnlyWhenInDoubt checks that auto traces an image whose
// measures are ambiguous with the selector's choice and its runner-up and keeps the one
// scoring higher, as best does, and traces an unambiguous one once, unscored; with
// AutoOnce (--auto-compare=false) it traces every image once.
func TestAutoTracesTheRunnerUpOnlyWhenInDoubt(t *testing.T) {
	for _, tt := range []struct {
		name       string
		features   map[string]float64
		once       bool
		wantPreset string
		wantSVG    string
		wantTried  int
	}{
		{"a flat logo measured without 6-bit colours (an older sdk): in doubt",
			map[string]float64{analysis.Top4Share: 1, analysis.GrayShare: 0.1}, false, selector.Poster, faithfulSVG, 2},
		{"the same logo with AutoOnce: the first choice alone",
			map[string]float64{analysis.Top4Share: 1, analysis.GrayShare: 0.1}, true, selector.Logo, blankSVG, 0},
		{"a flat logo of few colours even at 6 bits: no doubt",
			map[string]float64{analysis.Top4Share: 1, analysis.GrayShare: 0.1, analysis.Top16FineShare: 1}, false, selector.Logo, blankSVG, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newService(t, &bestEngines{features: tt.features}, 1<<20, &fakeLedger{})
			s.AutoOnce = tt.once
			s.Presets = []settings.Preset{
				{Name: selector.Logo, Engine: "fake", Params: map[string]any{"color": "blue"}},
				{Name: selector.Poster, Engine: "fake", Params: map[string]any{"color": "red"}},
				{Name: selector.Photo, Engine: "fake", Params: map[string]any{"color": "red"}},
			}
			job := jobOf(t, s, `{}`)
			job.Image, job.Info = halfBlack(t), imagecheck.Info{Format: "png", Width: 16, Height: 16}
			res, err := s.Run(context.Background(), job)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Preset != tt.wantPreset || string(res.SVG) != tt.wantSVG || len(res.Tried) != tt.wantTried {
				t.Errorf("kept preset %q with %s after trying %d, want %q with %s after %d", res.Preset, res.SVG, len(res.Tried), tt.wantPreset, tt.wantSVG, tt.wantTried)
			}
			if (tt.wantTried == 0) != (res.Quality == nil) {
				t.Errorf("quality %v: want a score exactly when two settings were compared", res.Quality)
			}
		})
	}
}
