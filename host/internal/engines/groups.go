package engines

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// Containment without cgroup v2 (see Containment for both modes): every plugin process
// leads a process group of its own (pluginhost.Start), so
// killing the group ends whatever the engine started. The kernel kills a plugin when the
// host dies (Pdeathsig), but not what the plugin started: after a kill -9 of the host
// those processes would live on, re-parented to init. So the registry records each
// plugin's group in the run folder (groupsDir), and the next host to start kills the
// groups its dead predecessors left (KillLeftGroups).

// groupsDir is the folder of a run folder where the groups of plugin processes are
// recorded, one file per group named by its id (the plugin's pid), holding the boot id
// and the plugin's start time, so that a group id reused after a reboot or by an
// unrelated process is never killed.
func groupsDir(runDir string) string { return filepath.Join(runDir, "groups") }

// recordGroup notes the process group led by pid in the run folder, and forgets the
// recorded groups that have no process left. It does nothing without a run folder, or
// when the engines run in cgroups (the run's cgroup is recorded instead).
func (r *Registry) recordGroup(pid int) {
	if r.cfg.RunDir == "" || r.cfg.Cgroups != nil || pid <= 0 {
		return
	}
	dir := groupsDir(r.cfg.RunDir)
	start, err := startTime(pid)
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)), []byte(bootID()+" "+strconv.FormatUint(start, 10)+"\n"), 0o600)
	}
	if err != nil {
		r.logger.Warn("cannot record an engine process group; what it starts may outlive a crash of the host", "pid", pid, "error", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if g, err := strconv.Atoi(e.Name()); err == nil && g != pid && errors.Is(syscall.Kill(-g, 0), syscall.ESRCH) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// KillLeftGroups kills the process groups recorded in the run folder of a host that is
// no longer running: whatever its engines started and left behind. A group is killed
// only if it was recorded since the last boot and each of its processes started no
// earlier than its plugin did. It returns the number of groups killed.
func KillLeftGroups(runDir string, logger hclog.Logger) int {
	dir := groupsDir(runDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	boot := bootID()
	killed := 0
	for _, e := range entries {
		g, err := strconv.Atoi(e.Name())
		if err != nil || g <= 1 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		f := strings.Fields(string(data))
		if err != nil || len(f) != 2 || f[0] != boot {
			continue
		}
		since, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			continue
		}
		members := groupMembers(g)
		if len(members) == 0 {
			continue
		}
		if !ours(members, since, startTime) {
			logger.Warn("a recorded engine process group now holds other processes; left alone", "group", g)
			continue
		}
		if err := syscall.Kill(-g, syscall.SIGKILL); err == nil {
			logger.Warn("killed processes left by an engine of a host that died", "group", g, "processes", len(members))
			killed++
		}
	}
	return killed
}

// ours says whether every one of members, the processes of a recorded group, started
// no earlier than since, the group's plugin, by start (startTime). A member that has
// exited since the group was listed (its /proc entry gone: a dying plugin, reaped as
// the next host starts) is no longer in the group and does not count; a member whose
// start cannot be read for another reason counts as not ours.
func ours(members []int, since uint64, start func(pid int) (uint64, error)) bool {
	for _, pid := range members {
		st, err := start(pid)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil || st < since {
			return false
		}
	}
	return true
}

// groupMembers returns the processes of process group g.
func groupMembers(g int) []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if f, err := procStat(pid); err == nil && len(f) > 2 && f[2] == strconv.Itoa(g) {
			out = append(out, pid)
		}
	}
	return out
}

// procStat returns the fields of /proc/PID/stat after the command name, the state
// first (field 3 of proc(5)).
func procStat(pid int) ([]string, error) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return strings.Fields(string(stat[i+1:])), nil
}

// startTime returns when pid started, in clock ticks since boot (field 22 of proc(5)).
func startTime(pid int) (uint64, error) {
	f, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	if len(f) < 20 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// bootID returns the kernel's id of the current boot, or "unknown".
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
