package engine_test

import (
	"testing"

	"github.com/tracecraft/tracecraft/plugins/potrace2/engine"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func TestConformance(t *testing.T) {
	enginetest.Run[engine.Params](t, engine.New)
}

// TestTraceCorpus writes the corpus SVGs for the bench when TRACECRAFT_SVG_OUT is set.
func TestTraceCorpus(t *testing.T) { enginetest.TraceCorpusFromEnv(t, engine.New()) }
