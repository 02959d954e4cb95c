// Package testbin builds the module's binaries for tests that run real processes: the
// host, the bundled engine plugins and the test engine in its variants. Each binary is
// built once per test process, into a temporary folder removed by Cleanup.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	dir   string
	built = map[string]string{}
)

// Root returns the module's root folder.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// Build compiles the main package pkg (an import path or a path relative to the module
// root, like "./host") with the given -ldflags -X assignments and returns the binary's
// path. Results are cached by pkg and flags.
func Build(tb testing.TB, pkg string, vars ...string) string {
	tb.Helper()
	key := pkg + "|" + strings.Join(vars, "|")
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[key]; ok {
		return p
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "tracecraft-testbin-")
		if err != nil {
			tb.Fatal(err)
		}
		dir = d
	}
	out := filepath.Join(dir, fmt.Sprintf("bin%d", len(built)))
	args := []string{"build", "-o", out}
	if len(vars) > 0 {
		x := make([]string, len(vars))
		for i, v := range vars {
			x[i] = "-X " + v
		}
		args = append(args, "-ldflags", strings.Join(x, " "))
	}
	args = append(args, pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = Root()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	built[key] = out
	return out
}

// TestEngine builds the test engine called name in the given variant ("" for the normal
// one; see internal/testengine) and returns its path.
func TestEngine(tb testing.TB, name, variant string) string {
	tb.Helper()
	return Build(tb, "./internal/testengine", "main.name="+name, "main.variant="+variant)
}

// Install copies the binary at src into the plugins folder dir as the engine called
// name, atomically (write to a temporary name, then rename), and returns its path.
func Install(tb testing.TB, src, dir, name string) string {
	tb.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	dst := filepath.Join(dir, "tracecraft-engine-"+name)
	tmp := filepath.Join(dir, ".tmp-"+name)
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// Main runs a package's tests and then removes the binaries they built: a TestMain of
// one line, testbin.Main(m).
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Cleanup removes the built binaries; call it from TestMain after m.Run.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
}
