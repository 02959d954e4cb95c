package pluginhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"
	"golang.org/x/sys/unix"
)

// Containment in a cgroup v2: a process cannot leave a cgroup unless it may write to
// another one's cgroup.procs, so, unlike a process group (which setsid or setpgid
// leaves), a cgroup holds everything an engine starts, and killing the cgroup kills it
// all at once. Start puts the plugin in the cgroup as the kernel creates it
// (CLONE_INTO_CGROUP), so nothing it forks is ever outside; the cgroup is killed when
// the plugin exits or is killed, and removed once empty.

// Placement says how a plugin process was put in its cgroup.
const (
	// PlacedByClone: the kernel created the process inside its cgroup
	// (CLONE_INTO_CGROUP, Linux 5.7), so nothing it started was ever outside.
	PlacedByClone = "clone"
	// PlacedByProcs: the process was started, then moved by writing its pid to the
	// cgroup's cgroup.procs, because the kernel refused CLONE_INTO_CGROUP; a process it
	// forked in the moment between could have stayed outside.
	PlacedByProcs = "procs"
)

// cloneIntoCgroup is cleared by the tests to take the path of kernels that refuse
// CLONE_INTO_CGROUP.
var cloneIntoCgroup = true

var errCloneOff = errors.New("CLONE_INTO_CGROUP switched off")

// cgroupRunner is go-plugin's runner for a plugin contained in a cgroup v2: it starts
// the plugin inside the cgroup, kills the cgroup as soon as the plugin exits (seen on a
// pidfd, so even a plugin that exits on its own takes its children along) and removes
// the cgroup once the plugin has been reaped.
type cgroupRunner struct {
	logger hclog.Logger
	path   string
	env    []string
	stdin  io.Reader
	dir    string // the cgroup, made for this one process

	// extraFiles are passed to the plugin from file descriptor 3 on (the direct channel).
	extraFiles []*os.File

	cmd            *exec.Cmd
	stdout, stderr io.ReadCloser
	pid            int
	placement      string
	watched        chan struct{} // closed when the exit watcher is done
	reaped         atomic.Bool   // set once Wait has reaped the plugin
}

var _ runner.Runner = (*cgroupRunner)(nil)

// newCgroupRunner returns a runner for the plugin described by spec (go-plugin's command,
// holding the environment of the handshake), to run in the cgroup at dir.
func newCgroupRunner(logger hclog.Logger, path string, spec *exec.Cmd, dir string) *cgroupRunner {
	return &cgroupRunner{logger: logger, path: path, env: spec.Env, stdin: spec.Stdin, dir: dir}
}

// Start starts the plugin inside its cgroup, or, if the kernel refuses that, starts it
// and moves it there; if neither works the plugin is not left running.
func (r *cgroupRunner) Start(context.Context) error {
	cg, err := os.Open(r.dir)
	if err != nil {
		return fmt.Errorf("open the engine's cgroup: %w", err)
	}
	cloneErr := errCloneOff
	if cloneIntoCgroup {
		cloneErr = r.start(int(cg.Fd()))
	}
	cg.Close()
	if cloneErr == nil {
		r.placement = PlacedByClone
		return nil
	}
	if err := r.start(-1); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.dir, "cgroup.procs"), []byte(strconv.Itoa(r.pid)), 0); err != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		return fmt.Errorf("cannot put the engine process in its cgroup (starting it inside: %v; moving it there: %w)", cloneErr, err)
	}
	r.logger.Debug("engine process moved into its cgroup after it started", "pid", r.pid, "clone_error", cloneErr)
	r.placement = PlacedByProcs
	return nil
}

// start starts the plugin, inside the cgroup open as cgroupFD unless it is -1, and
// watches for its exit.
func (r *cgroupRunner) start(cgroupFD int) error {
	cmd := exec.Command(r.path)
	cmd.Env = r.env
	cmd.Stdin = r.stdin
	cmd.ExtraFiles = r.extraFiles
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if cgroupFD >= 0 {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cgroupFD
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		stdout.Close()
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	r.cmd, r.stdout, r.stderr, r.pid = cmd, stdout, stderr, cmd.Process.Pid
	// A pidfd of its own, non-blocking for the runtime's poller: the one exec can give
	// shares its file description with os.Process, whose Wait would then fail with
	// EAGAIN. The pid cannot have been reused: only Wait reaps the process.
	pidfd, err := unix.PidfdOpen(r.pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		pidfd = -1
	}
	r.watched = make(chan struct{})
	go r.watchExit(pidfd)
	return nil
}

// watchExit waits for the plugin to exit, then kills its cgroup, so what it started dies
// with it even if nobody calls Kill. Without a pidfd (Linux before 5.10) it does
// nothing: Kill still kills the cgroup.
func (r *cgroupRunner) watchExit(pidfd int) {
	defer close(r.watched)
	if pidfd < 0 {
		return
	}
	waitReadable(pidfd) // a pidfd turns readable when its process exits
	if err := killCgroup(r.dir); err != nil {
		r.logger.Warn("cannot kill the cgroup of an engine process that exited", "pid", r.pid, "cgroup", r.dir, "error", err)
	}
}

// Wait waits for the plugin to exit, then removes its cgroup, killing what is left in it.
func (r *cgroupRunner) Wait(context.Context) error {
	err := r.cmd.Wait()
	r.reaped.Store(true)
	<-r.watched
	if rerr := RemoveCgroup(r.dir); rerr != nil {
		r.logger.Warn("cannot remove the cgroup of an engine process", "pid", r.pid, "cgroup", r.dir, "error", rerr)
	}
	return err
}

// Kill kills the plugin and everything in its cgroup at once. If the cgroup cannot be
// killed, it kills the plugin's process group instead (while the plugin is not yet
// reaped, so that its pid, and so its group's id, cannot have been reused).
func (r *cgroupRunner) Kill(context.Context) error {
	if r.cmd == nil {
		return nil // never started
	}
	if err := killCgroup(r.dir); err != nil {
		r.logger.Warn("cannot kill the cgroup of an engine process; killing its process group", "pid", r.pid, "cgroup", r.dir, "error", err)
		if !r.reaped.Load() {
			_ = syscall.Kill(-r.pid, syscall.SIGKILL)
		}
	}
	if err := r.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// Stdout returns the plugin's stdout, where go-plugin reads the handshake.
func (r *cgroupRunner) Stdout() io.ReadCloser { return r.stdout }

// Stderr returns the plugin's stderr, its log.
func (r *cgroupRunner) Stderr() io.ReadCloser { return r.stderr }

// Name returns the plugin's path.
func (r *cgroupRunner) Name() string { return r.path }

// ID returns the plugin's pid ("0" if it did not start: go-plugin then still cleans up).
func (r *cgroupRunner) ID() string { return strconv.Itoa(r.pid) }

// Diagnose explains a failed handshake.
func (r *cgroupRunner) Diagnose(context.Context) string {
	return "the plugin is not a Tracecraft engine, is built for another system, or failed the handshake"
}

// PluginToHost returns the plugin's address unchanged: host and plugin share a network.
func (r *cgroupRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

// HostToPlugin returns the host's address unchanged: host and plugin share a network.
func (r *cgroupRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// waitReadable blocks until fd, which is non-blocking, is readable, through the
// runtime's poller (no thread is held while it waits), and closes it.
func waitReadable(fd int) {
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	ready := func(fd uintptr) bool {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, _ := unix.Poll(p, 0)
		return n > 0
	}
	rc, err := f.SyscallConn()
	if err == nil && rc.Read(ready) == nil {
		return
	}
	// Not pollable by the runtime: wait in poll(2), holding a thread.
	for {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(p, -1); n > 0 || err != nil && err != unix.EINTR {
			return
		}
	}
}

// killCgroup kills every process in the cgroup v2 at dir and in the cgroups below it:
// by writing 1 to its cgroup.kill (Linux 5.14), which the kernel applies to all of them
// at once, or, on kernels without it, by killPids. A cgroup that does not exist has no
// process to kill.
func killCgroup(dir string) error {
	err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return err
	case !exists(dir):
		return nil
	}
	return killPids(dir)
}

// killPids kills the processes of a cgroup tree without cgroup.kill: it sends SIGKILL to
// every pid listed in the cgroup.procs of dir and of each cgroup below it, and repeats
// until they are all empty, since a process may fork between the read and the kill. It
// gives up after 10 seconds.
func killPids(dir string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids, err := CgroupProcesses(dir)
		if err != nil || len(pids) == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d processes still in %s after 10 s of SIGKILL", len(pids), dir)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// CgroupProcesses returns the processes in the cgroup v2 at dir and in every cgroup below
// it; none if dir does not exist.
func CgroupProcesses(dir string) ([]int, error) {
	var pids []int
	err := walkCgroups(dir, func(d string) error {
		data, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
		return nil
	})
	return pids, err
}

// RemoveCgroup kills every process in the cgroup v2 at dir and in the cgroups below it,
// waits for them to be gone and removes the cgroups, deepest first. A dir that does not
// exist is not an error; a cgroup still populated after 10 seconds is.
func RemoveCgroup(dir string) error {
	if err := killCgroup(dir); err != nil {
		return err
	}
	var dirs []string
	if err := walkCgroups(dir, func(d string) error { dirs = append(dirs, d); return nil }); err != nil {
		return err
	}
	slices.Reverse(dirs) // children before their parents
	deadline := time.Now().Add(10 * time.Second)
	for _, d := range dirs {
		for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
			err := syscall.Rmdir(d)
			if err == nil || errors.Is(err, syscall.ENOENT) {
				break
			}
			if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
				return fmt.Errorf("remove cgroup %s: %w", d, err)
			}
			// Killed processes take a moment to leave; a process that slipped in between
			// (the fallback without cgroup.kill) is killed again.
			if populated(d) && delay >= 16*time.Millisecond {
				_ = killCgroup(d)
			}
			time.Sleep(delay)
		}
	}
	return nil
}

// populated reports whether the cgroup at dir or one below it holds a process, from its
// cgroup.events.
func populated(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	return err == nil && bytes.Contains(data, []byte("populated 1"))
}

// walkCgroups calls f with dir and every cgroup below it, parents first. A cgroup
// removed meanwhile is skipped.
func walkCgroups(dir string, f func(string) error) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		return f(path)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// OwnCgroup returns the directory of this process's cgroup in the cgroup v2 hierarchy:
// its path from the "0::" line of /proc/self/cgroup, under the mount point of a cgroup2
// file system (from /proc/self/mountinfo: /sys/fs/cgroup on a pure cgroup v2 system,
// often /sys/fs/cgroup/unified on a hybrid one). It fails, saying why, when no cgroup2
// file system is mounted or the process's cgroup is not visible in any.
func OwnCgroup() (string, error) {
	cgroups, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("cannot read the process's cgroups: %w", err)
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("cannot read the mount table: %w", err)
	}
	return ownCgroup(string(cgroups), string(mounts), func(dir string) bool {
		st, err := os.Stat(dir)
		return err == nil && st.IsDir()
	})
}

// ownCgroup is OwnCgroup on the text of /proc/self/cgroup and /proc/self/mountinfo;
// isDir says whether a candidate directory exists.
func ownCgroup(cgroups, mountinfo string, isDir func(string) bool) (string, error) {
	path := ""
	for _, line := range strings.Split(cgroups, "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path = p
		}
	}
	if path == "" {
		return "", errors.New("the process is in no cgroup v2 hierarchy (no 0:: line in /proc/self/cgroup: cgroup v1 only)")
	}
	if !strings.HasPrefix(path, "/") || slices.Contains(strings.Split(path, "/"), "..") {
		return "", fmt.Errorf("the process's cgroup v2 %q lies outside its cgroup namespace", path)
	}
	found := false
	for _, line := range strings.Split(mountinfo, "\n") {
		// id parent major:minor root mountpoint options [optional fields] - fstype source super-options
		fields := strings.Fields(line)
		sep := slices.Index(fields, "-")
		if sep < 5 || sep+1 >= len(fields) || fields[sep+1] != "cgroup2" {
			continue
		}
		found = true
		root, mountpoint := unescapeMount(fields[3]), unescapeMount(fields[4])
		rel, ok := strings.CutPrefix(path, root)
		if root == "/" {
			rel, ok = path, true
		} else if ok && rel != "" && !strings.HasPrefix(rel, "/") {
			ok = false // root /a does not hold /ab
		}
		if !ok {
			continue
		}
		if dir := filepath.Join(mountpoint, rel); isDir(dir) {
			return dir, nil
		}
	}
	if !found {
		return "", errors.New("no cgroup2 file system is mounted")
	}
	return "", fmt.Errorf("the process's cgroup v2 %q is not visible under any cgroup2 mount", path)
}

// unescapeMount undoes the octal escapes (\040 for a space...) of a mountinfo field.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
