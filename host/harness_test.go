package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/internal/testbin"
)

// hostBinary builds the host once per test binary.
func hostBinary(t testing.TB) string { return testbin.Build(t, "./host", "main.version=test") }

// host is a running `tracecraft serve` process.
type host struct {
	t          testing.TB
	url        string
	cmd        *exec.Cmd
	pluginsDir string
	dataDir    string
	args       []string
	log        *logBuffer
	exited     chan struct{}
}

// logBuffer collects a process's stderr lines.
type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBuffer) add(line string) {
	b.mu.Lock()
	b.lines = append(b.lines, line)
	b.mu.Unlock()
}

// String returns everything logged so far.
func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

// waitFor waits up to d for a log line matching re and returns it.
func (b *logBuffer) waitFor(t testing.TB, re *regexp.Regexp, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		for _, l := range b.lines {
			if re.MatchString(l) {
				b.mu.Unlock()
				return l
			}
		}
		b.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no log line matching %s within %v; log:\n%s", re, d, b.String())
	return ""
}

// newPlugins returns a plugins folder holding the test engine under each of names.
func newPlugins(t testing.TB, names ...string) string {
	dir := t.TempDir()
	for _, n := range names {
		testbin.Install(t, testbin.TestEngine(t, n, ""), dir, n)
	}
	return dir
}

var listening = regexp.MustCompile(`listening: addr=(\S+)`)

// startHost runs the host on a free port with the plugins folder and extra flags, and
// stops it (SIGTERM) when the test ends.
//
// The tests that start hosts run in parallel (t.Parallel, at most -parallel at once,
// GOMAXPROCS by default): each host has a port of its own (127.0.0.1:0), a data folder
// of its own (t.TempDir, unless the test shares one between its own hosts), a database
// of its own (pgtest.FreshDatabase) and a cgroup of its own; a test that needs the whole
// process to itself (counting goroutines) does not call t.Parallel.
func startHost(t testing.TB, pluginsDir, dataDir string, flags ...string) *host {
	t.Helper()
	h := spawnHost(t, pluginsDir, dataDir, flags...)
	h.waitListening()
	return h
}

// spawnHost starts the host like startHost but returns without waiting for it to listen,
// so that a test can start several at once; waitListening waits.
func spawnHost(t testing.TB, pluginsDir, dataDir string, flags ...string) *host {
	t.Helper()
	return spawnHostBinary(t, hostBinary(t), pluginsDir, dataDir, flags...)
}

// startHostWithEnv is startHost with extra environment variables ("NAME=value") for the
// host process only, so that a test of an environment variable can run in parallel
// (t.Setenv would change the whole test process).
func startHostWithEnv(t testing.TB, env []string, pluginsDir, dataDir string, flags ...string) *host {
	t.Helper()
	h := spawnHostProcess(t, hostBinary(t), env, pluginsDir, dataDir, flags...)
	h.waitListening()
	return h
}

// spawnHostBinary is spawnHost with another build of the host (a benchmark's baseline).
func spawnHostBinary(t testing.TB, binary, pluginsDir, dataDir string, flags ...string) *host {
	t.Helper()
	return spawnHostProcess(t, binary, nil, pluginsDir, dataDir, flags...)
}

// spawnHostProcess starts binary as the host with extra environment variables env.
func spawnHostProcess(t testing.TB, binary string, env []string, pluginsDir, dataDir string, flags ...string) *host {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--plugins-dir", pluginsDir, "--data-dir", dataDir}, flags...)
	h := &host{t: t, pluginsDir: pluginsDir, dataDir: dataDir, args: args, log: &logBuffer{}, exited: make(chan struct{})}
	h.cmd = exec.Command(binary, args...)
	if env != nil {
		h.cmd.Env = append(os.Environ(), env...)
	}
	stderr, err := h.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			h.log.add(sc.Text())
		}
		_ = h.cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() {
		h.stop()
		removeLeftCgroups(dataDir)
		if t.Failed() {
			t.Logf("host log:\n%s", h.log.String())
		}
	})
	return h
}

// removeLeftCgroups removes the cgroups that hosts killed outright (by a test, or on
// the stop timeout) recorded in dataDir, as a next host on it would: the data folder is
// about to go, and their cgroups would otherwise stay on the machine.
func removeLeftCgroups(dataDir string) {
	runs, _ := filepath.Glob(filepath.Join(dataDir, "run", "[0-9]*"))
	for _, run := range runs {
		engines.KillLeftCgroups(run, hclog.NewNullLogger())
	}
}

// waitListening waits for the host's "listening" log line and sets its URL.
func (h *host) waitListening() {
	h.t.Helper()
	line := h.log.waitFor(h.t, listening, 30*time.Second)
	h.url = "http://" + listening.FindStringSubmatch(line)[1]
}

// stop ends the host with SIGTERM (SIGKILL after 15 s) and waits for it.
func (h *host) stop() {
	select {
	case <-h.exited:
		return
	default:
	}
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.exited:
	case <-time.After(15 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.exited
	}
}

// tracecraft runs the host binary with args and returns its stdout, stderr and exit
// code.
func tracecraft(t testing.TB, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(hostBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// reply is a decoded HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

// errorCode returns the error.code of an error body.
func (r reply) errorCode() string {
	e, _ := r.json["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// details returns the fields named by an error body's details.
func (r reply) details() []string {
	e, _ := r.json["error"].(map[string]any)
	ds, _ := e["details"].([]any)
	var out []string
	for _, d := range ds {
		m, _ := d.(map[string]any)
		out = append(out, fmt.Sprint(m["field"]))
	}
	return out
}

func (r reply) String() string {
	b := r.body
	if len(b) > 600 {
		b = b[:600]
	}
	return fmt.Sprintf("%d %s", r.status, b)
}

// do sends req and reads the whole answer.
func do(t testing.TB, req *http.Request) reply {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := reply{status: resp.StatusCode, header: resp.Header, body: body}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(body, &r.json); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v\n%s", req.Method, req.URL, err, body)
		}
	}
	return r
}

// get fetches path from the host.
func (h *host) get(path string) reply {
	req, _ := http.NewRequest(http.MethodGet, h.url+path, nil)
	return do(h.t, req)
}

// part is one multipart field; file parts have a filename.
type part struct {
	name, filename string
	data           []byte
}

// form encodes parts as a multipart body.
func form(parts ...part) (string, []byte) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		var fw io.Writer
		if p.filename != "" {
			fw, _ = w.CreateFormFile(p.name, p.filename)
		} else {
			fw, _ = w.CreateFormField(p.name)
		}
		_, _ = fw.Write(p.data)
	}
	_ = w.Close()
	return w.FormDataContentType(), b.Bytes()
}

// vectorizeRequest builds a tracing request with an image and, if not empty, settings.
func (h *host) vectorizeRequest(img []byte, settings string, header ...string) *http.Request {
	parts := []part{{name: "image", filename: "in.png", data: img}}
	if settings != "" {
		parts = append(parts, part{name: "settings", data: []byte(settings)})
	}
	ctype, body := form(parts...)
	req, _ := http.NewRequest(http.MethodPost, h.url+"/api/vectorize", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// vectorize posts img with settings and optional header name/value pairs.
func (h *host) vectorize(img []byte, settings string, header ...string) reply {
	h.t.Helper()
	return do(h.t, h.vectorizeRequest(img, settings, header...))
}

// children returns the pids of the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range dirs {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == pid {
			p, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			out = append(out, p)
		}
	}
	return out
}

// corpusDir returns the bench corpus: $TRACECRAFT_CORPUS, or ../shared/bench/corpus.
func corpusDir() string {
	if dir := os.Getenv("TRACECRAFT_CORPUS"); dir != "" {
		return dir
	}
	return filepath.Join(testbin.Root(), "..", "shared", "bench", "corpus")
}
