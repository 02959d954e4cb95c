package testbin

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTrimRemovesOnlyFoldersUnusedForAWeek(t *testing.T) {
	parent := t.TempDir()
	now := time.Now()
	folders := []struct {
		name    string
		lastUse time.Duration // before now; 0: no lock file
		kept    bool
	}{
		{"this checkout", 30 * 24 * time.Hour, true},
		{"used an hour ago", time.Hour, true},
		{"used six days ago", 6 * 24 * time.Hour, true},
		{"unused for eight days", 8 * 24 * time.Hour, false},
		{"no lock file", 0, true},
	}
	for _, f := range folders {
		dir := filepath.Join(parent, f.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if f.lastUse > 0 {
			lock := filepath.Join(dir, ".lock")
			if err := os.WriteFile(lock, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(lock, now.Add(-f.lastUse), now.Add(-f.lastUse)); err != nil {
				t.Fatal(err)
			}
		}
	}
	trim(parent, filepath.Join(parent, "this checkout"), now)
	for _, f := range folders {
		_, err := os.Stat(filepath.Join(parent, f.name))
		if kept := err == nil; kept != f.kept {
			t.Errorf("%s: kept %v, want %v", f.name, kept, f.kept)
		}
	}
}
