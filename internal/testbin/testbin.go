// Package testbin builds the module's binaries for tests that run real processes: the
// host, the bundled engine plugins and the test engine in its variants. The binaries are
// kept between test processes and runs (see Build), so each is linked again only when
// its code changed.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	mu    sync.Mutex
	built = map[string]string{}
)

// Root returns the module's root folder.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// Build compiles the main package pkg (an import path or a path relative to the module
// root, like "./host") with the given -ldflags -X assignments and returns the binary's
// path.
//
// The binary is written to a folder of the user's cache that belongs to this checkout
// (Dir), under a name made of pkg and the flags, and is never removed: go build links
// again only when the file there is out of date, so the test processes of one go test
// run share each binary, and a second run links none it linked before. (Linking is a
// good part of a warm test run's CPU: the host alone takes some 4 CPU seconds, and the
// host's tests use about thirty binaries.) An exclusive lock on the folder serialises
// the builds of concurrent test processes; tests copy a binary (Install) rather than
// run or change it in place.
func Build(tb testing.TB, pkg string, vars ...string) string {
	tb.Helper()
	key := pkg + "|" + strings.Join(vars, "|")
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[key]; ok {
		return p
	}
	dir, err := Dir()
	if err != nil {
		tb.Fatal(err)
	}
	unlock, err := lock(filepath.Join(dir, ".lock"))
	if err != nil {
		tb.Fatal(err)
	}
	defer unlock()
	sum := sha256.Sum256([]byte(key))
	out := filepath.Join(dir, strings.Trim(strings.NewReplacer("/", "-", ".", "").Replace(pkg), "-")+"-"+hex.EncodeToString(sum[:6]))
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

// Dir returns the folder Build keeps the binaries of this checkout in, creating it:
// tracecraft-testbin/ROOT-HASH in the user's cache folder (os.UserCacheDir), or in the
// temporary folder when there is none. Each checkout has its own, so two clones do not
// overwrite each other's binaries; as Go trims its build cache, the folders of
// checkouts that built nothing for unusedFor are removed.
func Dir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(Root()))
	parent := filepath.Join(base, "tracecraft-testbin")
	dir := filepath.Join(parent, hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	trim(parent, dir, time.Now())
	return dir, nil
}

// unusedFor is how long a checkout's folder of binaries is kept after its last build.
const unusedFor = 7 * 24 * time.Hour

// trim removes the folders in parent, other than keep, whose lock file (touched by
// every build) is older than unusedFor.
func trim(parent, keep string, now time.Time) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		dir := filepath.Join(parent, e.Name())
		if dir == keep || !e.IsDir() {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, ".lock")); err == nil && now.Sub(st.ModTime()) > unusedFor {
			os.RemoveAll(dir)
		}
	}
}

// lock takes an exclusive lock on the file at path, creating it, and returns what
// releases it.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The lock file's time says when the folder was last used (see trim).
	now := time.Now()
	os.Chtimes(path, now, now)
	return func() { f.Close() }, nil
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
