package sdk

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestAJobRunsUnderTheEnginesMemoryBound checks that the server sets the engine's
// JobMemory as the soft memory limit for a job, keeps a lower limit already set, and
// puts the previous limit back after the job.
func TestAJobRunsUnderTheEnginesMemoryBound(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(orig)
	for _, tt := range []struct {
		name          string
		before        int64
		bound         func(int) int64
		during, after int64
	}{
		{"no bound", math.MaxInt64, nil, math.MaxInt64, math.MaxInt64},
		{"bound by pixels", math.MaxInt64, func(px int) int64 { return 10 * int64(px) }, 10_000_000, math.MaxInt64},
		{"zero means none", math.MaxInt64, func(int) int64 { return 0 }, math.MaxInt64, math.MaxInt64},
		{"a lower limit stays", 5_000_000, func(px int) int64 { return 10 * int64(px) }, 5_000_000, 5_000_000},
	} {
		debug.SetMemoryLimit(tt.before)
		s := &server{jobMemory: tt.bound}
		restore := s.boundMemory(1_000_000)
		if got := debug.SetMemoryLimit(-1); got != tt.during {
			t.Errorf("%s: limit during the job %d, want %d", tt.name, got, tt.during)
		}
		restore()
		if got := debug.SetMemoryLimit(-1); got != tt.after {
			t.Errorf("%s: limit after the job %d, want %d", tt.name, got, tt.after)
		}
	}
}
