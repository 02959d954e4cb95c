package main

import (
	"bytes"
	"image/color"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// traceCmd runs `tracecraft trace` with args, stdin, and stderr to a terminal when tty;
// it returns stdout, stderr and the exit code.
func traceCmd(t *testing.T, stdin []byte, tty bool, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(hostBinary(t), append([]string{"trace"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var read chan struct{}
	if tty {
		master, slave := openPTY(t)
		cmd.Stderr = slave
		read = make(chan struct{})
		go func() {
			defer close(read)
			_, _ = io.Copy(&errb, master) // ends with EIO once the command has exited
		}()
		defer master.Close()
		defer func() { slave.Close(); <-read }()
	}
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if tty {
		cmd.Stderr.(*os.File).Close()
		<-read
	}
	return out.String(), errb.String(), code
}

// openPTY opens a pseudo-terminal and returns its two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// logLine is a raw log line (hclog's timestamped format).
var logLine = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT.*\[(TRACE|DEBUG|INFO|WARN|ERROR)\]`)

func TestTraceCommandStdinAutoUnknownEngineAndTimeout(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "testengine", "other")
	img := testbin.SolidPNG(t, 6, 6, color.NRGBA{200, 30, 30, 255})

	// - reads the image from stdin; what auto chose is said on stderr.
	out, errOut, code := traceCmd(t, img, false, "--plugins-dir", dir, "-")
	if code != 0 || !strings.HasPrefix(out, "<svg") {
		t.Fatalf("trace -: exit %d, out %.80q, err %q", code, out, errOut)
	}
	if !regexp.MustCompile(`^tracecraft: auto chose (the \w+ preset \(engine \w+\)|engine \w+ at its defaults)\n$`).MatchString(errOut) {
		t.Errorf("trace -: stderr %q, want one line saying what auto chose", errOut)
	}
	// An explicit engine: nothing to say.
	if _, errOut, code := traceCmd(t, img, false, "--plugins-dir", dir, "--settings", `{"engine":"other"}`, "-"); code != 0 || errOut != "" {
		t.Errorf("an explicit engine: exit %d, stderr %q, want nothing", code, errOut)
	}

	// An unknown engine is named with the engines there are.
	_, errOut, code = traceCmd(t, img, false, "--plugins-dir", dir, "--settings", `{"engine":"nope"}`, "-")
	if code != 1 || !strings.Contains(errOut, `"nope"`) && !strings.Contains(errOut, "got nope") ||
		!strings.Contains(errOut, `"testengine"`) || !strings.Contains(errOut, `"other"`) || strings.Contains(errOut, "no engine plugins") {
		t.Errorf("an unknown engine: exit %d, stderr %q; want it named with the engines installed", code, errOut)
	}

	// A job past the time limit: one sentence, no log lines.
	_, errOut, code = traceCmd(t, img, false, "--plugins-dir", dir, "--job-timeout", "1s",
		"--settings", `{"engine":"testengine","testengine":{"action":"hang","ms":4000}}`, "-")
	if code != 1 || !strings.Contains(errOut, "job_timeout") || logLine.MatchString(errOut) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("a timeout: exit %d, stderr %q; want one line with job_timeout and no log lines", code, errOut)
	}
}

func TestTraceCommandTracesAFolderInParallel(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "testengine")
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"a.png", "b.png", "c.PNG", "d.png", "e.png"}
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(in, n), testbin.SolidPNG(t, 4+i, 4, color.NRGBA{uint8(40 * i), 0, 0, 255}), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(in, "notes.txt"), []byte("not an image"), 0o644)
	extra := filepath.Join(tmp, "extra.png")
	_ = os.WriteFile(extra, testbin.SolidPNG(t, 3, 3, color.NRGBA{0, 0, 255, 255}), 0o644)
	sleepy := `{"engine":"testengine","testengine":{"action":"sleep","ms":1000}}`

	// Six images, three at a time, into a folder: about 2 s, where one at a time is 6.
	outDir := filepath.Join(tmp, "out")
	_, errOut, code := traceCmd(t, nil, false, "--plugins-dir", dir, "--settings", sleepy, "-j", "3", "-o", outDir, in, extra)
	if code != 0 {
		t.Fatalf("batch: exit %d, stderr %q", code, errOut)
	}
	for _, n := range []string{"a", "b", "c", "d", "e", "extra"} {
		svg, err := os.ReadFile(filepath.Join(outDir, n+".svg"))
		if err != nil || !bytes.HasPrefix(svg, []byte("<svg")) {
			t.Errorf("%s.svg: %v %.40q", n, err, svg)
		}
		if !strings.Contains(errOut, n+".svg: engine testengine with the parameters given") {
			t.Errorf("stderr does not report %s: %q", n, errOut)
		}
	}
	m := regexp.MustCompile(`traced 6 of 6 images into \S+ in (\d+\.\d) s, 3 at a time`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no summary: %q", errOut)
	}
	if secs, _ := strconv.ParseFloat(m[1], 64); secs >= 4.5 {
		t.Errorf("six 1 s jobs three at a time took %s s", m[1])
	}
	if strings.Contains(errOut, "\x1b[") {
		t.Errorf("a progress bar on stderr that is not a terminal: %q", errOut)
	}

	// A bad file among them: the others are traced, the summary names it, exit 1.
	bad := filepath.Join(in, "broken.png")
	_ = os.WriteFile(bad, []byte("GIF89a..."), 0o644)
	_, errOut, code = traceCmd(t, nil, true, "--plugins-dir", dir, "-j", "2", "-o", filepath.Join(tmp, "out2"), in)
	if code != 1 || !strings.Contains(errOut, "traced 5 of 6 images") || !strings.Contains(errOut, "1 failed: "+bad) ||
		!strings.Contains(errOut, bad+": ") || !strings.Contains(errOut, "unsupported_format") {
		t.Errorf("a bad file in the folder: exit %d, stderr %q", code, errOut)
	}
	// On a terminal a bar is drawn and redrawn: [====...] n/6.
	if !strings.Contains(errOut, "\r\x1b[K[") || !strings.Contains(errOut, "] 6/6, 1 failed") {
		t.Errorf("no progress bar on a terminal: %q", errOut)
	}

	// Several inputs need -o DIR; names that would clash are refused before tracing.
	if _, errOut, code := traceCmd(t, nil, false, "--plugins-dir", dir, in); code != 1 || !strings.Contains(errOut, "-o DIR") {
		t.Errorf("a folder without -o: exit %d, stderr %q", code, errOut)
	}
	twin := filepath.Join(tmp, "twin")
	_ = os.MkdirAll(twin, 0o755)
	_ = os.WriteFile(filepath.Join(twin, "a.png"), testbin.SolidPNG(t, 3, 3, color.NRGBA{0, 0, 0, 255}), 0o644)
	if _, errOut, code := traceCmd(t, nil, false, "--plugins-dir", dir, "-o", filepath.Join(tmp, "out3"), in, filepath.Join(twin, "a.png")); code != 1 || !strings.Contains(errOut, "same file") {
		t.Errorf("two a.png: exit %d, stderr %q", code, errOut)
	}

	// In a folder each file ends with the settings' output.format, and holds that format.
	pdfs := filepath.Join(tmp, "out4")
	if _, errOut, code := traceCmd(t, nil, false, "--plugins-dir", dir, "--settings", `{"engine":"testengine","output":{"format":"pdf"}}`, "-o", pdfs, twin); code != 0 {
		t.Fatalf("a folder as PDF: exit %d, stderr %q", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(pdfs, "a.pdf")); err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Errorf("a folder as PDF: a.pdf is not a PDF (%v): %.20q", err, b)
	}
}
