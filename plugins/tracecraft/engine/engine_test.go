package engine_test

import (
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func TestConformance(t *testing.T) {
	enginetest.Run[engine.Params](t, engine.New)
}

func TestTraceCorpus(t *testing.T) { enginetest.TraceCorpusFromEnv(t, engine.New()) }
