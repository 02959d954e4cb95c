package engines

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/internal/testbin"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

func TestParseContainmentKnowsTheThreeModes(t *testing.T) {
	for _, s := range []string{"auto", "cgroup", "pgroup"} {
		if c, err := ParseContainment(s); err != nil || string(c) != s {
			t.Errorf("%q: %q, %v", s, c, err)
		}
	}
	for _, s := range []string{"", "cgroups", "CGROUP", "none"} {
		if _, err := ParseContainment(s); err == nil || !strings.Contains(err.Error(), "auto, cgroup, pgroup") {
			t.Errorf("%q: %v, want an error listing the modes", s, err)
		}
	}
}

func TestPgroupContainmentMakesNoCgroup(t *testing.T) {
	c, err := Contain(ContainPgroup, t.TempDir(), hclog.NewNullLogger())
	if c != nil || err != nil {
		t.Fatalf("got %v, %v; want no cgroups", c, err)
	}
}

// setupContained is setup with the engines in cgroups: it returns the registry and the
// run's cgroups, which it removes after the test.
func setupContained(t *testing.T, processes int, names ...string) (*Registry, *Cgroups) {
	t.Helper()
	testbin.RequireCgroup(t)
	dir := t.TempDir()
	for _, n := range names {
		testbin.Install(t, testbin.TestEngine(t, n, ""), dir, n)
	}
	runDir := filepath.Join(t.TempDir(), "run", strconv.Itoa(os.Getpid()))
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Info, Output: testWriter{t}})
	cg, err := Contain(ContainCgroup, runDir, logger)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cgroupsDir(runDir), filepath.Base(cg.Dir()))); err != nil {
		t.Errorf("the run's cgroup is not recorded in the run folder: %v", err)
	}
	r := New(Config{Dir: dir, RunDir: runDir, Processes: processes, Logger: logger, Cgroups: cg})
	t.Cleanup(func() {
		r.Close()
		if err := cg.Close(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(cg.Dir()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the run's cgroup %s is still there after Close: %v", cg.Dir(), err)
		}
	})
	if _, err := r.Reload(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return r, cg
}

// cgroupChildren returns the names of the cgroups just below dir.
func cgroupChildren(dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestEachEngineProcessRunsInACgroupOfItsOwn(t *testing.T) {
	r, cg := setupContained(t, 2, "alpha", "beta")
	if got := strings.Join(cgroupChildren(cg.Dir()), ","); got != "alpha-1,beta-2" {
		t.Errorf("cgroups %s, want alpha-1,beta-2 (one per process)", got)
	}
	for _, pid := range processesOf(t, r, "alpha") {
		procs, _ := os.ReadFile(filepath.Join(cg.Dir(), "alpha-1", "cgroup.procs"))
		if strings.TrimSpace(string(procs)) != strconv.Itoa(pid) {
			t.Errorf("alpha-1 holds %q, want the alpha process %d", procs, pid)
		}
	}
	if _, err := r.Trace(context.Background(), "beta", job(t, nil)); err != nil {
		t.Fatal(err)
	}
}

func TestAJobPastItsDeadlineKillsTheChildThatLeftItsProcessGroup(t *testing.T) {
	r, cg := setupContained(t, 1, "alpha")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	plugins := processesOf(t, r, "alpha")
	if len(plugins) != 1 {
		t.Fatalf("alpha processes %v, want 1", plugins)
	}
	var child int
	go func() {
		// Find the child while the job hangs.
		testbin.Eventually(2*time.Second, func() bool {
			pids, _ := pluginhost.CgroupProcesses(filepath.Join(cg.Dir(), "alpha-1"))
			for _, p := range pids {
				if p != plugins[0] {
					child = p
					return true
				}
			}
			return false
		})
	}()
	_, err := r.Trace(ctx, "alpha", job(t, map[string]any{"action": "escape", "ms": 60000.0}))
	if fault.Code(err) != fault.JobTimeout {
		t.Fatalf("got %v, want %s", err, fault.JobTimeout)
	}
	if child == 0 {
		t.Fatal("the engine started no child")
	}
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	waitGone(t, child)
	waitFor(t, func() bool {
		_, err := os.Stat(filepath.Join(cg.Dir(), "alpha-1"))
		return errors.Is(err, os.ErrNotExist)
	})
	if _, err := r.Trace(context.Background(), "alpha", job(t, nil)); err != nil {
		t.Fatalf("the next job failed: %v", err)
	}
}

// leftCgroup makes a cgroup named name below parent holding a sleeping process, and
// returns the cgroup and the process.
func leftCgroup(t *testing.T, parent, name string) (string, int) {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(f.Fd())}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return dir, cmd.Process.Pid
}

// deadPid returns the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// record writes a run folder for host pid holding a record of cgroup dir with boot id.
func record(t *testing.T, base string, pid int, dir, boot string) string {
	t.Helper()
	runDir := filepath.Join(base, strconv.Itoa(pid))
	if err := os.MkdirAll(cgroupsDir(runDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cgroupsDir(runDir), filepath.Base(dir)), []byte(boot+" "+dir+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return runDir
}

func TestTheCgroupsOfADeadHostAreRemovedAndNoOthers(t *testing.T) {
	parent := testbin.Cgroup(t)
	base := t.TempDir()
	dead := deadPid(t)
	live := exec.Command("sleep", "600") // stands for a running host
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	deadName := cgroupPrefix + strconv.Itoa(dead) + "-0001"
	tests := []struct {
		name    string
		host    int
		cgroup  string
		boot    string
		removed bool
	}{
		{"a dead host's", dead, deadName, bootID(), true},
		{"a live host's", live.Process.Pid, cgroupPrefix + strconv.Itoa(live.Process.Pid) + "-0002", bootID(), false},
		{"one recorded before the last boot", dead, cgroupPrefix + strconv.Itoa(dead) + "-0003", "an-earlier-boot", false},
		{"one named for another host", dead, cgroupPrefix + strconv.Itoa(live.Process.Pid) + "-0004", bootID(), false},
		{"one not named by a host", dead, "system.slice", bootID(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, sleeper := leftCgroup(t, parent, tt.cgroup)
			runDir := record(t, filepath.Join(base, tt.name), tt.host, dir, tt.boot)
			var log strings.Builder
			n := KillLeftCgroups(runDir, hclog.New(&hclog.LoggerOptions{Output: &log}))
			if tt.removed {
				if n != 1 || !strings.Contains(log.String(), "killed processes left by the engines of a host that died") || !strings.Contains(log.String(), "processes=1") {
					t.Errorf("removed %d cgroups, logged %q; want 1, saying so", n, log.String())
				}
				waitGone(t, sleeper)
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the cgroup is still there: %v", err)
				}
				return
			}
			if n != 0 || !testbin.Alive(sleeper) {
				t.Errorf("removed %d cgroups, the process in it alive: %v; want it untouched", n, testbin.Alive(sleeper))
			}
			if _, err := os.Stat(dir); err != nil {
				t.Errorf("the cgroup is gone: %v", err)
			}
		})
	}
}
