package refine

import (
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/planar"
)

func TestMarkOblique(t *testing.T) {
	const E, S = planar.East, planar.South
	tests := []struct {
		name   string
		steps  []planar.Dir
		closed bool
		want   string // x = oblique
	}{
		{"steep staircase: its single steps are oblique", []planar.Dir{S, S, S, E, S, S, S, E, S, S, S, E, S, S, S}, false, "...x...x...x..."},
		{"diagonal staircase: nothing is", []planar.Dir{E, S, E, S, E, S, E, S, E, S}, false, ".........."},
		{"straight run", []planar.Dir{E, E, E, E, E, E, E, E, E}, false, "........."},
		{"short edges keep every crack", []planar.Dir{S, S, E, S, S}, false, "....."},
		{"ends of an open edge are kept", []planar.Dir{E, S, S, S, S, S, S, S, E}, false, "........."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cracks := make([]crack, len(tt.steps))
			markOblique(cracks, tt.steps, tt.closed)
			got := make([]byte, len(cracks))
			for i, c := range cracks {
				got[i] = '.'
				if c.oblique {
					got[i] = 'x'
				}
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
