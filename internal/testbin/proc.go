package testbin

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Stat returns the fields of /proc/PID/stat after the command name (which is in
// parentheses and may hold spaces): the process state first, as field 3 of proc(5).
func Stat(pid int) ([]string, error) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])), nil
}

// Memory returns a memory field of /proc/PID/status in bytes: "VmRSS" (resident now)
// or "VmHWM" (the peak resident set).
func Memory(tb testing.TB, pid int, field string) int64 {
	tb.Helper()
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// Alive reports whether pid is a process that has not exited: zombies, which wait for
// their parent to reap them, count as gone.
func Alive(pid int) bool {
	fields, err := Stat(pid)
	return err == nil && len(fields) > 0 && fields[0] != "Z"
}

// Eventually polls cond every 20 ms for up to d and reports whether it held.
func Eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SolidPNG encodes a w x h image filled with c.
func SolidPNG(tb testing.TB, w, h int, c color.NRGBA) []byte {
	tb.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}
