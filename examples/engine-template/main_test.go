package main

import (
	"testing"

	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// TestConformance runs the sdk's conformance suite on the engine, in process.
func TestConformance(t *testing.T) {
	enginetest.Run[Params](t, func() engine { return engine{} })
}
