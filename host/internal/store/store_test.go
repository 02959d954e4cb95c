package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/store/sqlite"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"a plain name is valid", "alice", true},
		{"letters, digits, dot, underscore and dash are valid", "Ab9.x_y-z", true},
		{"a name of 64 characters is valid", strings.Repeat("a", 64), true},
		{"a single character is valid", "-", true},
		{"an empty name is invalid", "", false},
		{"a name of 65 characters is invalid", strings.Repeat("a", 65), false},
		{"a space is invalid", "a b", false},
		{"a slash is invalid", "a/b", false},
		{"a non-ASCII letter is invalid", "zoë", false},
		{"a newline is invalid", "a\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := store.ValidName(tc.in); (err == nil) != tc.ok {
				t.Errorf("ValidName(%q) = %v, want valid: %v", tc.in, err, tc.ok)
			}
		})
	}
}

func TestRequestNormalized(t *testing.T) {
	at := time.Date(2024, 3, 10, 1, 0, 0, 0, time.FixedZone("UTC+5", 5*3600))
	tests := []struct {
		name    string
		in      store.Request
		wantDay string // "" wants an error
	}{
		{"an empty day becomes the UTC day of At", store.Request{Status: 200, At: at}, "2024-03-09"},
		{"an explicit day is kept", store.Request{Day: "2024-03-11", Status: 200, At: at}, "2024-03-11"},
		{"a failure status is valid", store.Request{Status: 503, At: at}, "2024-03-09"},
		{"a request without a time is invalid", store.Request{Status: 200}, ""},
		{"a malformed day is invalid", store.Request{Day: "09.03.2024", Status: 200, At: at}, ""},
		{"status 99 is invalid", store.Request{Status: 99, At: at}, ""},
		{"status 600 is invalid", store.Request{Status: 600, At: at}, ""},
		{"negative pixels are invalid", store.Request{Status: 200, Pixels: -1, At: at}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Normalized()
			if tc.wantDay == "" {
				if err == nil {
					t.Errorf("Normalized() of %+v succeeded with %+v, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got.Day != tc.wantDay {
				t.Errorf("Normalized() of %+v = day %q, %v; want day %q", tc.in, got.Day, err, tc.wantDay)
			}
		})
	}
}

func TestRequestSuccess(t *testing.T) {
	for status, want := range map[int]bool{199: false, 200: true, 204: true, 299: true, 300: false, 400: false, 503: false} {
		if got := (store.Request{Status: status}).Success(); got != want {
			t.Errorf("Success() of status %d = %v, want %v", status, got, want)
		}
	}
}

func TestARequestIsASuccessACancellationOrAFailure(t *testing.T) {
	tests := []struct {
		status                     int
		wantSuccess, wantCancelled int
	}{
		{200, 1, 0}, {204, 1, 0}, {499, 0, 1}, {400, 0, 0}, {503, 0, 0},
	}
	for _, tt := range tests {
		success, cancelled := store.Request{Status: tt.status}.Outcome()
		if success != tt.wantSuccess || cancelled != tt.wantCancelled {
			t.Errorf("Outcome() of status %d = %d, %d, want %d, %d", tt.status, success, cancelled, tt.wantSuccess, tt.wantCancelled)
		}
	}
}

// TestAnOlderHostsCancellationsReadAsCancelled folds the rows of a usage query: a
// failure under 499, as hosts of schema version 1 recorded a client's going away, is
// read as cancelled.
func TestAnOlderHostsCancellationsReadAsCancelled(t *testing.T) {
	day := store.Usage{Day: "2026-11-26", Requests: 6, Successes: 1, Cancelled: 2}
	var days []store.Usage
	days = store.AppendUsageRow(days, day, true, 400, 1)
	days = store.AppendUsageRow(days, day, true, 499, 2)
	days = store.AppendUsageRow(days, store.Usage{Day: "2026-11-27", Requests: 1, Successes: 1}, false, 0, 0)
	if len(days) != 2 || days[0].Cancelled != 4 || len(days[0].Failures) != 1 || days[0].Failures[400] != 1 ||
		days[1].Cancelled != 0 || len(days[1].Failures) != 0 {
		t.Errorf("folded %+v, want 4 cancelled and one 400 on the first day, nothing more on the second", days)
	}
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		dsn      func(dir string) string
		wantFile string // relative to dir; "" wants an error
	}{
		{"an empty DSN opens tracecraft.db in the data directory, creating it", func(string) string { return "" }, "data/sub/tracecraft.db"},
		{"sqlite:PATH opens that file", func(dir string) string { return "sqlite:" + filepath.Join(dir, "other.db") }, "other.db"},
		{"sqlite: without a path is refused", func(string) string { return "sqlite:" }, ""},
		{"an unknown scheme is refused", func(string) string { return "mysql://user:secret@host/db" }, ""},
		{"a bare path is refused", func(dir string) string { return filepath.Join(dir, "x.db") }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			dsn := tc.dsn(dir)
			s, err := store.Open(ctx, dsn, filepath.Join(dir, "data", "sub"))
			if tc.wantFile == "" {
				if err == nil {
					s.Close()
					t.Fatalf("Open(%q) succeeded, want an error", dsn)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("Open(%q)'s error shows the password: %v", dsn, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open(%q) failed: %v", dsn, err)
			}
			defer s.Close()
			if _, ok := s.(*sqlite.Store); !ok {
				t.Errorf("Open(%q) returned a %T, want *sqlite.Store", dsn, s)
			}
			if _, err := os.Stat(filepath.Join(dir, tc.wantFile)); err != nil {
				t.Errorf("Open(%q) did not create %s: %v", dsn, tc.wantFile, err)
			}
		})
	}
}

func TestOpenWithoutDSNOrDataDirFails(t *testing.T) {
	if s, err := store.Open(context.Background(), "", ""); err == nil {
		s.Close()
		t.Errorf("Open with no DSN and no data directory succeeded, want an error")
	}
}
