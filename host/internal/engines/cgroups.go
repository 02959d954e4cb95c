package engines

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// Containment is how the processes an engine starts are made to die with it.
//
// With cgroup v2 (Cgroups), each host run makes a cgroup under its own,
// tracecraft-<pid>-<nonce>, and starts every engine process directly inside a cgroup of
// its own below it (<engine>-<n>): one per process rather than per engine, because a
// process is killed alone (on a job timeout, a crash, an idle reap, an upgrade) while
// the engine's other processes keep working, and killing its cgroup must not kill them.
// Nothing can leave a cgroup it may not write, so setsid or setpgid do not let a
// grandchild escape. When the process exits or is killed, its cgroup is killed and
// removed; when the host stops, the run's cgroup is. The run's cgroup is recorded in
// the run folder, and the next host to start removes the cgroups of a host that died.
//
// With process groups (the fallback, and the one-shot trace command), each engine
// process leads a process group, recorded in the run folder (groups.go); a process that
// leaves its group (setsid, setpgid) is out of reach.
type Containment string

// The containment modes an operator may choose (--containment).
const (
	// ContainAuto uses cgroup v2 where the host may create one, process groups elsewhere.
	ContainAuto Containment = "auto"
	// ContainCgroup uses cgroup v2, and the host refuses to start without it.
	ContainCgroup Containment = "cgroup"
	// ContainPgroup uses process groups.
	ContainPgroup Containment = "pgroup"
)

// ParseContainment returns the containment mode named s.
func ParseContainment(s string) (Containment, error) {
	switch c := Containment(s); c {
	case ContainAuto, ContainCgroup, ContainPgroup:
		return c, nil
	}
	return "", fmt.Errorf("containment %q is not one of auto, cgroup, pgroup", s)
}

// cgroupPrefix starts the name of every run cgroup; the next host removes only cgroups
// so named.
const cgroupPrefix = "tracecraft-"

// Cgroups is a host run's cgroup v2 tree: the run's cgroup, and below it one cgroup per
// engine process. A nil *Cgroups means the engines run in process groups.
type Cgroups struct {
	dir    string
	record string // the record of dir in the run folder
	logger hclog.Logger
	n      atomic.Uint64 // names the processes' cgroups
	// logged holds the placements (pluginhost.PlacedBy*) already logged.
	logged sync.Map
}

// Contain prepares the containment of a host run whose run folder is runDir, as mode
// asks. For cgroup v2 it makes the run's cgroup under the host's own and records it in
// the run folder; it returns nil when the engines are to run in process groups: for
// ContainPgroup, and for ContainAuto when cgroup v2 cannot be used (the log says why).
// For ContainCgroup, that is an error.
func Contain(mode Containment, runDir string, logger hclog.Logger) (*Cgroups, error) {
	logger = logger.Named("engines")
	if mode == ContainPgroup {
		logger.Info("engine containment: process groups (--containment pgroup); a process that leaves its group outlives its engine")
		return nil, nil
	}
	c, err := makeCgroups(runDir, logger)
	if err != nil {
		if mode == ContainCgroup {
			return nil, fmt.Errorf("--containment cgroup: cannot use cgroup v2: %w", err)
		}
		logger.Info("engine containment: process groups, since cgroup v2 cannot be used; a process that leaves its group outlives its engine", "why", err.Error())
		return nil, nil
	}
	kill := "cgroup.kill"
	if _, err := os.Stat(filepath.Join(c.dir, "cgroup.kill")); err != nil {
		kill = "SIGKILL of each process (the kernel has no cgroup.kill)"
	}
	logger.Info("engine containment: cgroup v2, one cgroup per engine process", "cgroup", c.dir, "kill", kill)
	return c, nil
}

// makeCgroups makes the run's cgroup and its record.
func makeCgroups(runDir string, logger hclog.Logger) (*Cgroups, error) {
	if runDir == "" {
		return nil, errors.New("no run folder to record the cgroup in")
	}
	own, err := pluginhost.OwnCgroup()
	if err != nil {
		return nil, err
	}
	// Moving a process from the host's cgroup into one below it takes write access to
	// the cgroup.procs of their common ancestor, the host's cgroup.
	if err := unix.Access(filepath.Join(own, "cgroup.procs"), unix.W_OK); err != nil {
		return nil, fmt.Errorf("the host's cgroup %s is not writable: %w", own, err)
	}
	nonce := make([]byte, 4)
	_, _ = rand.Read(nonce)
	name := cgroupPrefix + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(nonce)
	dir := filepath.Join(own, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create a cgroup under the host's %s: %w", own, err)
	}
	// A threaded subtree takes threads, not processes.
	if typ, err := os.ReadFile(filepath.Join(dir, "cgroup.type")); err == nil && strings.TrimSpace(string(typ)) != "domain" {
		_ = pluginhost.RemoveCgroup(dir)
		return nil, fmt.Errorf("a cgroup made under the host's %s is of type %q, which cannot hold processes", own, strings.TrimSpace(string(typ)))
	}
	c := &Cgroups{dir: dir, logger: logger, record: filepath.Join(cgroupsDir(runDir), name)}
	err = os.MkdirAll(cgroupsDir(runDir), 0o700)
	if err == nil {
		err = os.WriteFile(c.record, []byte(bootID()+" "+dir+"\n"), 0o600)
	}
	if err != nil {
		_ = pluginhost.RemoveCgroup(dir)
		return nil, fmt.Errorf("cannot record the cgroup in the run folder: %w", err)
	}
	return c, nil
}

// Dir returns the run's cgroup.
func (c *Cgroups) Dir() string { return c.dir }

// Close kills whatever is left in the run's cgroup, removes it and its record.
func (c *Cgroups) Close() error {
	err := pluginhost.RemoveCgroup(c.dir)
	if err != nil {
		c.logger.Error("cannot remove the host's cgroup", "cgroup", c.dir, "error", err)
		return err
	}
	os.Remove(c.record)
	return nil
}

// start starts a process of engine name as l says: in a new cgroup of its own below
// the run's, or, with no Cgroups, as l alone says (in its process group).
func (c *Cgroups) start(name string, l pluginhost.Launch) (*pluginhost.Client, error) {
	if c == nil {
		return pluginhost.Start(l)
	}
	dir := filepath.Join(c.dir, name+"-"+strconv.FormatUint(c.n.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the engine process's cgroup: %w", err)
	}
	l.Cgroup = dir
	client, err := pluginhost.Start(l)
	if err != nil {
		return nil, err
	}
	if p := client.Placement(); p != "" {
		if _, seen := c.logged.LoadOrStore(p, true); !seen {
			if p == pluginhost.PlacedByClone {
				c.logger.Info("engine processes start inside their cgroup (CLONE_INTO_CGROUP)", "engine", name)
			} else {
				c.logger.Warn("the kernel refused to start an engine process inside its cgroup; it was moved there by its pid (a process it forks at once could stay out)", "engine", name)
			}
		}
	}
	return client, nil
}

// cgroupsDir is the folder of a run folder where the run's cgroups are recorded, one
// file per cgroup named as it is, holding the boot id and the cgroup's path.
func cgroupsDir(runDir string) string { return filepath.Join(runDir, "cgroups") }

// KillLeftCgroups kills and removes the cgroups recorded in the run folder of a host
// that is no longer running, with whatever its engines left in them. A recorded cgroup
// is touched only if it was recorded since the last boot, is a cgroup v2 directory
// named tracecraft-<pid>-..., <pid> being the dead host's (the run folder's name) and
// no running process: a running host's cgroup is named for its own pid. It returns the
// number of cgroups removed.
func KillLeftCgroups(runDir string, logger hclog.Logger) int {
	entries, err := os.ReadDir(cgroupsDir(runDir))
	if err != nil {
		return 0
	}
	hostPid, err := strconv.Atoi(filepath.Base(runDir))
	if err != nil || processAlive(hostPid) {
		return 0
	}
	boot := bootID()
	removed := 0
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(cgroupsDir(runDir), e.Name()))
		f := strings.Fields(string(data))
		if err != nil || len(f) != 2 || f[0] != boot {
			continue
		}
		dir := f[1]
		base := filepath.Base(dir)
		if !filepath.IsAbs(dir) || base != e.Name() || !strings.HasPrefix(base, cgroupPrefix+strconv.Itoa(hostPid)+"-") || !isCgroup2(dir) {
			continue
		}
		left, _ := pluginhost.CgroupProcesses(dir)
		if err := pluginhost.RemoveCgroup(dir); err != nil {
			logger.Warn("cannot remove the cgroup of a host that died", "cgroup", dir, "error", err)
			continue
		}
		logger.Warn("killed processes left by the engines of a host that died, and removed its cgroup", "cgroup", dir, "processes", len(left))
		removed++
	}
	return removed
}

// isCgroup2 reports whether dir is a directory of a cgroup v2 file system.
func isCgroup2(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC
}

// processAlive reports whether a process with the pid exists.
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
