package synth_test

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/synth"
)

// TestArtIsDeterministicAndInked draws every line-art kind twice and wants the same
// pixels with some ink and some paper. With CENTERLINE_LINEART_DIR set it also writes
// CENTERLINE_LINEART_N pictures of each kind (default 6) as DIR/lineart/<kind>-<seed>.png,
// in the layout of the bench corpus.
func TestArtIsDeterministicAndInked(t *testing.T) {
	dir := os.Getenv("CENTERLINE_LINEART_DIR")
	n := 1
	if dir != "" {
		n = 6
		if v := os.Getenv("CENTERLINE_LINEART_N"); v != "" {
			fmt.Sscan(v, &n)
		}
		if err := os.MkdirAll(filepath.Join(dir, "lineart"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range synth.ArtKinds {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			a, err := synth.Art(k, seed)
			if errors.Is(err, synth.ErrNoFonts) {
				t.Skipf("%s: %v", k, err)
			}
			if err != nil {
				t.Fatalf("%s %d: %v", k, seed, err)
			}
			b, _ := synth.Art(k, seed)
			if !bytes.Equal(a.Pix, b.Pix) {
				t.Errorf("%s %d: two draws differ", k, seed)
			}
			dark, light := 0, 0
			for i := 0; i < len(a.Pix); i += 4 {
				switch {
				case a.Pix[i] < 64:
					dark++
				case a.Pix[i] > 100:
					light++
				}
			}
			if dark < len(a.Pix)/4/200 || light < len(a.Pix)/4/2 {
				t.Errorf("%s %d: %d dark and %d light pixels of %d, want ink on paper", k, seed, dark, light, len(a.Pix)/4)
			}
			if dir == "" {
				continue
			}
			var buf bytes.Buffer
			if err := png.Encode(&buf, a); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "lineart", fmt.Sprintf("%s-%d.png", k, seed)), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
