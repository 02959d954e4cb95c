package main

import (
	"errors"
	"fmt"
	"image/color"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// The tests of containment: what an engine starts dies with it. Each runs with
// --containment pgroup and, where this machine lets the host make cgroups v2 (else the
// subtest is skipped, saying why), with --containment cgroup.

// forEachContainment runs f as a subtest per containment mode.
func forEachContainment(t *testing.T, f func(t *testing.T, mode string)) {
	for _, mode := range []string{"pgroup", "cgroup"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cgroup" {
				testbin.RequireCgroup(t)
			}
			f(t, mode)
		})
	}
}

var runCgroup = regexp.MustCompile(`engine containment: cgroup v2.*cgroup=(\S+)`)

// containment checks that h says in its log it runs mode, and returns its run's cgroup
// for the cgroup mode.
func (h *host) containment(mode string) string {
	h.t.Helper()
	h.log.waitFor(h.t, regexp.MustCompile(`listening: .*containment=`+mode), time.Second)
	if mode != "cgroup" {
		return ""
	}
	dir := runCgroup.FindStringSubmatch(h.log.waitFor(h.t, runCgroup, time.Second))[1]
	if _, err := os.Stat(dir); err != nil {
		h.t.Fatalf("the host's cgroup: %v", err)
	}
	return dir
}

// engineChild sends h a job that has the test engine start a child (sleep 600) with
// action (spawn: in its process group; escape: in a session of its own) and hang for ms
// (0: answer at once); it returns the child's pid once it runs, and kills it after the
// test. A hanging job's answer is ignored: the test kills the host or the job times out.
func engineChild(t *testing.T, h *host, action string, ms int) int {
	t.Helper()
	req := h.vectorizeRequest(testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255}), fmt.Sprintf(`{"engine":"testengine","testengine":{"action":%q,"ms":%d}}`, action, ms))
	answered := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	if ms == 0 {
		if status := <-answered; status != 200 {
			t.Fatalf("the job that starts a child answered %d", status)
		}
	}
	var child, engine int
	if !testbin.Eventually(20*time.Second, func() bool {
		for _, plugin := range children(h.cmd.Process.Pid) {
			for _, c := range children(plugin) {
				if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c)); strings.HasPrefix(string(cmd), "sleep\x00600") && testbin.Alive(c) {
					child, engine = c, plugin
					return true
				}
			}
		}
		return false
	}) {
		t.Fatal("the engine's child never started")
	}
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	// The engine process leads its process group; an escaped child leads its own.
	want := map[string]int{"spawn": engine, "escape": child}[action]
	if pg, err := syscall.Getpgid(child); pg != want {
		t.Fatalf("the %s child %d is in process group %d (%v), want %d", action, child, pg, err, want)
	}
	return child
}

// killHost kills h with SIGKILL and waits for it to be gone.
func killHost(t *testing.T, h *host) {
	t.Helper()
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-h.exited
}

// TestWhatAnEngineStartsDiesWithTheHost has the test engine start a child (sleep 600)
// and hang, kills the host with SIGKILL, and checks that the child, which outlives
// both (the kernel kills only the plugin), is killed by the next host started on the
// same data folder, which also removes the dead host's cgroup.
func TestWhatAnEngineStartsDiesWithTheHost(t *testing.T) {
	t.Parallel()
	forEachContainment(t, func(t *testing.T, mode string) {
		dir := newPlugins(t, "testengine")
		data := t.TempDir()
		h := startHost(t, dir, data, "--containment", mode)
		cgroup := h.containment(mode)
		child := engineChild(t, h, "spawn", 600000)
		killHost(t, h)
		// The premise: the child outlives the host and its plugin.
		time.Sleep(time.Second)
		if !testbin.Alive(child) {
			t.Fatal("the engine's child died with the host: nothing left to test")
		}
		h2 := startHost(t, dir, data, "--containment", mode)
		if !testbin.Eventually(10*time.Second, func() bool { return !testbin.Alive(child) }) {
			t.Fatalf("the engine's child %d still runs after a new host started on the same data folder", child)
		}
		if mode == "pgroup" {
			h2.log.waitFor(t, regexp.MustCompile(`killed processes left by an engine`), 5*time.Second)
			return
		}
		h2.log.waitFor(t, regexp.MustCompile(`killed processes left by the engines of a host that died, and removed its cgroup: cgroup=`+regexp.QuoteMeta(cgroup)+` processes=1`), 5*time.Second)
		if _, err := os.Stat(cgroup); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the dead host's cgroup %s is still there: %v", cgroup, err)
		}
	})
}

// TestAChildThatLeavesItsProcessGroupDiesOnlyWithCgroups has the test engine start a
// child in a session of its own (setsid), out of its process group. In cgroups, the
// child is killed with its engine when the job times out, and by the next host after
// the host is killed; in process groups it survives both: the documented limit of
// --containment pgroup.
func TestAChildThatLeavesItsProcessGroupDiesOnlyWithCgroups(t *testing.T) {
	t.Parallel()
	forEachContainment(t, func(t *testing.T, mode string) {
		dir := newPlugins(t, "testengine")
		data := t.TempDir()
		h := startHost(t, dir, data, "--containment", mode, "--job-timeout", "2s")
		h.containment(mode)
		child := engineChild(t, h, "escape", 600000)
		// The job times out and its engine process is killed.
		h.log.waitFor(t, regexp.MustCompile(`killing engine process: engine=testengine`), 20*time.Second)
		if mode == "cgroup" {
			if !testbin.Eventually(10*time.Second, func() bool { return !testbin.Alive(child) }) {
				t.Fatalf("the child %d of an engine process killed on a job timeout still runs", child)
			}
		} else {
			time.Sleep(time.Second)
			if !testbin.Alive(child) {
				t.Fatalf("the child %d that left its process group died with its engine: update the README, which says it survives", child)
			}
		}

		// An idle engine's child, and the host killed.
		child = engineChild(t, h, "escape", 0)
		killHost(t, h)
		time.Sleep(time.Second)
		if !testbin.Alive(child) {
			t.Fatal("the engine's child died with the host: nothing left to test")
		}
		startHost(t, dir, data, "--containment", mode)
		if mode == "cgroup" {
			if !testbin.Eventually(10*time.Second, func() bool { return !testbin.Alive(child) }) {
				t.Fatalf("the child %d still runs after a new host started on the same data folder", child)
			}
		} else {
			time.Sleep(time.Second)
			if !testbin.Alive(child) {
				t.Fatalf("the child %d that left its process group was killed by the next host: update the README, which says it survives", child)
			}
		}
	})
}

// TestAHostRemovesItsCgroupWhenItStops stops a host whose engines ran in cgroups:
// its cgroup, with those of its engine processes, is gone.
func TestAHostRemovesItsCgroupWhenItStops(t *testing.T) {
	t.Parallel()
	testbin.RequireCgroup(t)
	h := startHost(t, newPlugins(t, "testengine", "other"), "", "--containment", "cgroup")
	cgroup := h.containment("cgroup")
	entries, err := os.ReadDir(cgroup)
	if err != nil {
		t.Fatal(err)
	}
	var engines []string
	for _, e := range entries {
		if e.IsDir() {
			engines = append(engines, e.Name())
		}
	}
	if len(engines) != 2 {
		t.Errorf("the host's cgroup holds %v, want one cgroup per engine process (2)", engines)
	}
	h.stop()
	if _, err := os.Stat(cgroup); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the host's cgroup %s is still there after it stopped: %v", cgroup, err)
	}
}

func TestContainmentFlagRefusesAnUnknownMode(t *testing.T) {
	t.Parallel()
	_, errOut, code := tracecraft(t, nil, "serve", "--containment", "jail", "--plugins-dir", t.TempDir(), "--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(errOut, `containment "jail" is not one of auto, cgroup, pgroup`) {
		t.Errorf("exit %d, stderr %q; want 2 and the modes", code, errOut)
	}
}
