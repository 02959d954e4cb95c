package grain

import "testing"

func TestGrains(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"short lines: enough of them for Pixels", Lines(400, 16), Pixels/400 + 1},
		{"long lines: the least", Lines(Pixels, 16), 16},
		{"lines of Pixels / 4 exactly", Lines(Pixels/4, 1), 4},
		{"empty lines", Lines(0, 16), Pixels},
		{"small bands", Bands(64, 100), Pixels/6400 + 1},
		{"large bands: one", Bands(64, 4000), 1},
		{"empty bands", Bands(0, 100), Pixels},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}
