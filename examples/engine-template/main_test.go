package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// TestConformance runs the sdk's conformance suite on the engine, in process.
func TestConformance(t *testing.T) {
	enginetest.Run[Params](t, func() engine { return engine{} })
}

// TestBinary builds the plugin under its file name and runs it as the host does.
func TestBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tracecraft-engine-silhouette")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	enginetest.RunBinary(t, bin)
}
