package pluginhost_test

import (
	"context"
	"errors"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tracecraft/tracecraft/internal/testbin"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// startIn launches the test engine in a new cgroup below parent and kills it after the
// test; it returns the client and the cgroup.
func startIn(t *testing.T, parent string) (*pluginhost.Client, string) {
	t.Helper()
	dir := filepath.Join(parent, "engine")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := pluginhost.Start(pluginhost.Launch{Path: testbin.TestEngine(t, "testengine", ""), Cgroup: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Kill)
	return c, dir
}

// escapedChild has the plugin start a child in a session of its own, out of its process
// group, and returns the child's pid. The trace hangs for ms, or returns at once for 0.
func escapedChild(t *testing.T, c *pluginhost.Client, ms float64) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := c.Trace(ctx, pluginhost.TraceRequest{Image: testbin.SolidPNG(t, 2, 2, color.NRGBA{A: 255}), Params: map[string]any{"action": "escape", "ms": ms}})
	if ms > 0 && !errors.Is(err, context.DeadlineExceeded) || ms == 0 && err != nil {
		t.Fatalf("the trace gave %v", err)
	}
	kids := childrenOf(t, c.Pid())
	if len(kids) != 1 {
		t.Fatalf("the plugin has children %v, want the one it started", kids)
	}
	child := kids[0]
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	if pg, _ := syscall.Getpgid(child); pg == c.Pid() {
		t.Fatalf("the child %d is in the plugin's process group: it did not escape", child)
	}
	return child
}

// cgroupOf returns the cgroup v2 path of pid, from its /proc/PID/cgroup.
func cgroupOf(t *testing.T, pid int) string {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p
		}
	}
	t.Fatalf("process %d is in no cgroup v2", pid)
	return ""
}

// atLeastKernel reports whether the running kernel is at least major.minor.
func atLeastKernel(major, minor int) bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	parts := strings.SplitN(unix.ByteSliceToString(u.Release[:]), ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return ma > major || ma == major && mi >= minor
}

func TestAPluginInACgroupStartsInsideIt(t *testing.T) {
	parent := testbin.Cgroup(t)
	c, dir := startIn(t, parent)
	want := "/" + filepath.Base(parent) + "/engine"
	if got := cgroupOf(t, c.Pid()); !strings.HasSuffix(got, want) {
		t.Errorf("the plugin is in cgroup %s, want one ending in %s (%s)", got, want, dir)
	}
	switch p := c.Placement(); {
	case atLeastKernel(5, 7) && p != pluginhost.PlacedByClone:
		t.Errorf("placement %q on a kernel with CLONE_INTO_CGROUP, want %q", p, pluginhost.PlacedByClone)
	case p != pluginhost.PlacedByClone && p != pluginhost.PlacedByProcs:
		t.Errorf("placement %q", p)
	}
	if _, err := c.Trace(context.Background(), pluginhost.TraceRequest{Image: testbin.SolidPNG(t, 2, 2, color.NRGBA{A: 255})}); err != nil {
		t.Errorf("the plugin does not trace in its cgroup: %v", err)
	}
}

func TestAPluginIsMovedIntoItsCgroupWhereTheKernelCannotStartItThere(t *testing.T) {
	parent := testbin.Cgroup(t)
	defer pluginhost.SetCloneIntoCgroup(pluginhost.SetCloneIntoCgroup(false))
	c, dir := startIn(t, parent)
	if p := c.Placement(); p != pluginhost.PlacedByProcs {
		t.Errorf("placement %q, want %q", p, pluginhost.PlacedByProcs)
	}
	if got, want := cgroupOf(t, c.Pid()), "/"+filepath.Base(parent)+"/engine"; !strings.HasSuffix(got, want) {
		t.Errorf("the plugin is in cgroup %s, want one ending in %s", got, want)
	}
	child := escapedChild(t, c, 60000)
	c.Kill()
	if testbin.Alive(child) {
		t.Errorf("the escaped child %d is alive after Kill returned", child)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plugin's cgroup is still there after Kill: %v", err)
	}
}

func TestKillingAPluginInACgroupKillsTheChildThatLeftItsProcessGroup(t *testing.T) {
	c, dir := startIn(t, testbin.Cgroup(t))
	child := escapedChild(t, c, 60000)
	plugin := c.Pid()
	c.Kill()
	if testbin.Alive(child) {
		t.Errorf("the escaped child %d is alive after Kill returned", child)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(plugin)); err == nil {
		t.Errorf("the plugin %d has not been reaped after Kill returned", plugin)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plugin's cgroup is still there after Kill: %v", err)
	}
}

func TestAPluginInACgroupThatDiesTakesItsChildrenAlong(t *testing.T) {
	c, dir := startIn(t, testbin.Cgroup(t))
	child := escapedChild(t, c, 0)
	// Killed from outside, while idle: nobody calls Kill.
	if err := syscall.Kill(c.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return !testbin.Alive(child) })
	waitFor(t, func() bool { _, err := os.Stat(dir); return errors.Is(err, os.ErrNotExist) })
}

// TestAProcessGroupMissesAChildThatLeftIt is the limit of containment without cgroups:
// a child that leaves the plugin's process group outlives Kill.
func TestAProcessGroupMissesAChildThatLeftIt(t *testing.T) {
	c := start(t, "")
	child := escapedChild(t, c, 60000)
	c.Kill()
	time.Sleep(200 * time.Millisecond)
	if !testbin.Alive(child) {
		t.Errorf("the escaped child %d died with its plugin's process group: update the README, which says it survives", child)
	}
}

func TestAPluginThatCannotStartLeavesNoCgroup(t *testing.T) {
	dir := filepath.Join(testbin.Cgroup(t), "engine")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := pluginhost.Start(pluginhost.Launch{Path: filepath.Join(t.TempDir(), "missing"), Cgroup: dir})
	if err == nil {
		t.Fatal("a missing plugin started")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cgroup of a plugin that did not start is still there: %v", err)
	}
}

func TestKillPidsEmptiesACgroupTreeWithoutCgroupKill(t *testing.T) {
	parent := testbin.Cgroup(t)
	var pids []int
	for _, sub := range []string{"a", "a/b"} {
		dir := filepath.Join(parent, sub)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cg, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		// A shell that keeps forking children into the cgroup.
		cmd := exec.Command("sh", "-c", "while :; do sleep 600 & sleep 0.01; done")
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(cg.Fd()), Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cg.Close()
		go func() { _ = cmd.Wait() }()
		pids = append(pids, cmd.Process.Pid)
	}
	waitFor(t, func() bool { n, _ := pluginhost.CgroupProcesses(parent); return len(n) >= 6 })
	if err := pluginhost.KillPids(parent); err != nil {
		t.Fatal(err)
	}
	if left, _ := pluginhost.CgroupProcesses(parent); len(left) > 0 {
		t.Fatalf("processes %v are left in the cgroups", left)
	}
	for _, pid := range pids {
		waitFor(t, func() bool { return !testbin.Alive(pid) })
	}
}
