package enginetest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/sdk"
)

// Environment variables read by TraceCorpusFromEnv.
const (
	// SVGOutEnv names the folder TraceCorpusFromEnv writes into.
	SVGOutEnv = "TRACECRAFT_SVG_OUT"
	// ParamsEnv holds the engine parameters as a JSON object ({"alphaMax": 0}).
	ParamsEnv = "TRACECRAFT_PARAMS"
)

// TraceCorpus traces every PNG of the bench corpus with e and params and writes
// dir/<category>/<name>.svg and dir/timings.json, the milliseconds of each Trace call
// keyed "category/name", in the layout ../shared/bench's score command reads
// (bench.sh score --svgs DIR --timings DIR/timings.json).
func TraceCorpus[P any](tb testing.TB, e sdk.Engine[P], params P, dir string) {
	tb.Helper()
	corpus := CorpusDir(tb)
	paths, err := filepath.Glob(filepath.Join(corpus, "*", "*.png"))
	if err != nil {
		tb.Fatal(err)
	}
	timings := map[string]float64{}
	for _, p := range paths {
		rel, _ := filepath.Rel(corpus, p)
		key := strings.TrimSuffix(filepath.ToSlash(rel), ".png")
		img := LoadPNG(tb, p)
		start := time.Now()
		out, err := e.Trace(context.Background(), img, params)
		timings[key] = float64(time.Since(start).Microseconds()) / 1000
		if err != nil {
			tb.Errorf("%s: %v", key, err)
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(key)+".svg")
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(dst, out, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	js, _ := json.MarshalIndent(timings, "", " ")
	if err := os.WriteFile(filepath.Join(dir, "timings.json"), js, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TraceCorpusFromEnv runs TraceCorpus when $TRACECRAFT_SVG_OUT names a folder, with the
// parameters in $TRACECRAFT_PARAMS, and skips otherwise. An engine's tests call it from
// a test of its own so a developer can score the engine before a host exists:
//
//	TRACECRAFT_SVG_OUT=/tmp/mine go test ./plugins/mine/engine -run TestTraceCorpus
func TraceCorpusFromEnv[P any](t *testing.T, e sdk.Engine[P]) {
	t.Helper()
	dir := os.Getenv(SVGOutEnv)
	if dir == "" {
		t.Skipf("set %s to write the corpus SVGs", SVGOutEnv)
	}
	given := map[string]any{}
	if js := os.Getenv(ParamsEnv); js != "" {
		if err := json.Unmarshal([]byte(js), &given); err != nil {
			t.Fatalf("%s: %v", ParamsEnv, err)
		}
	}
	params, err := sdk.Decode[P](given)
	if err != nil {
		t.Fatalf("%s: %v", ParamsEnv, err)
	}
	TraceCorpus(t, e, params, dir)
}
