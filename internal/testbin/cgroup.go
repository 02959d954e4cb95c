package testbin

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// CgroupUsable returns "" when this process may make cgroups v2 below its own, as a host
// started by it would in --containment auto, and otherwise why not: no cgroup2 file
// system is mounted, this process's cgroup is not visible in it, or it is not writable.
func CgroupUsable() string {
	own, err := pluginhost.OwnCgroup()
	if err != nil {
		return err.Error()
	}
	dir, err := makeCgroup(own)
	if err != nil {
		return "cannot create a cgroup under " + own + ": " + err.Error()
	}
	if err := pluginhost.RemoveCgroup(dir); err != nil {
		return "cannot remove a cgroup: " + err.Error()
	}
	return ""
}

// RequireCgroup skips the test, saying why, on a machine where this process may not make
// cgroups v2 (CgroupUsable); the tests of cgroup containment therefore run wherever
// cgroup v2 is mounted writable, under CI too.
func RequireCgroup(tb testing.TB) {
	tb.Helper()
	if why := CgroupUsable(); why != "" {
		tb.Skip("cgroup v2 is not usable here, so the cgroup containment is not tested: " + why)
	}
}

// Cgroup returns a new, empty cgroup v2 below this process's own, removed (with any
// process left in it) after the test, or skips the test as RequireCgroup does.
func Cgroup(tb testing.TB) string {
	tb.Helper()
	RequireCgroup(tb)
	own, _ := pluginhost.OwnCgroup()
	dir, err := makeCgroup(own)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := pluginhost.RemoveCgroup(dir); err != nil {
			tb.Error(err)
		}
	})
	return dir
}

// makeCgroup makes a cgroup with a name of its own below parent.
func makeCgroup(parent string) (string, error) {
	nonce := make([]byte, 4)
	_, _ = rand.Read(nonce)
	dir := filepath.Join(parent, "tracecraft-test-"+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(nonce))
	return dir, os.Mkdir(dir, 0o755)
}
