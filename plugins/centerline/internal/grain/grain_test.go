package grain

import "testing"

func TestGrains(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"a small image's rows: all at once", Lines(328, 400, 16), 328},
		{"a large image's rows: the least", Lines(1607, 900, 16), 16},
		{"just MinPixels: the least", Lines(MinPixels/512, 512, 16), 16},
		{"just under MinPixels: all at once", Lines(MinPixels/512, 511, 16), MinPixels / 512},
		{"no lines: one", Lines(0, 400, 16), 1},
		{"bands of rows", Lines(10, 64*1000, 1), 1},
		{"few bands of rows", Lines(3, 64*1000, 1), 3},
		{"few pixels", Pixels(1000, 1<<16), 1000},
		{"many pixels", Pixels(MinPixels, 1<<16), 1 << 16},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}
