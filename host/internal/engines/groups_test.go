package engines

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestOursCountsOnlyTheMembersStillThere(t *testing.T) {
	starts := map[int]uint64{10: 500, 11: 600, 12: 400}
	start := func(pid int) (uint64, error) {
		switch pid {
		case 20:
			// Exited between the group's listing and this read.
			return 0, fmt.Errorf("read /proc/20/stat: %w", fs.ErrNotExist)
		case 21:
			return 0, errors.New("malformed /proc/21/stat")
		}
		return starts[pid], nil
	}
	for _, c := range []struct {
		name    string
		members []int
		want    bool
	}{
		{"all started after the plugin", []int{10, 11}, true},
		{"one started before it: a reused group id", []int{10, 12}, false},
		{"one exited meanwhile", []int{10, 20, 11}, true},
		{"only exited ones", []int{20}, true},
		{"one unreadable", []int{10, 21}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ours(c.members, 500, start); got != c.want {
				t.Errorf("ours(%v) = %v, want %v", c.members, got, c.want)
			}
		})
	}
}
