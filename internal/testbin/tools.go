package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Missing stops a test that lacks something make test installs, saying why: it fails
// under CI (the environment variable CI set), where the tool must be there, and skips
// elsewhere.
func Missing(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatal(why)
	}
	tb.Skip(why)
}

// ResvgModules returns the folder holding node_modules/@resvg/resvg-js, the renderer the
// bench scores with: $TRACECRAFT_RESVG_MODULES, or bin/tools/resvg in the module root
// (make fidelity-tools installs it there). Without node or the package it is Missing.
func ResvgModules(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		Missing(tb, "node is not installed")
	}
	for _, dir := range []string{os.Getenv("TRACECRAFT_RESVG_MODULES"), filepath.Join(Root(), "bin", "tools", "resvg")} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@resvg", "resvg-js")); err == nil {
			return dir
		}
	}
	Missing(tb, "@resvg/resvg-js is not installed in bin/tools/resvg (make fidelity-tools installs it)")
	return ""
}
