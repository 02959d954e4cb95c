package enginemem_test

import (
	"image"
	"path/filepath"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// drawingPNG is a 16.6 MP line drawing: the corpus's openclipart-trumpet enlarged to
// 5184 x 3200 (2.88 times) by nearest neighbour, so its lines are 2.88 times as wide.
func drawingPNG(t *testing.T) []byte {
	t.Helper()
	src := enginetest.LoadPNG(t, filepath.Join(enginetest.CorpusDir(t), "lineart", "openclipart-trumpet.png"))
	const w, h = 5184, 3200
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	for y := range h {
		sy := y * sh / h
		for x := range w {
			sx := x * sw / w
			copy(img.Pix[img.PixOffset(x, y):img.PixOffset(x, y)+4], src.Pix[src.PixOffset(sx, sy):])
		}
	}
	return encode(t, img)
}

// centerlinePeakLimit bounds the centerline process's peak on a 16.6 MP drawing: 100 MB
// for the rest and 18 bytes a pixel. A trace keeps about 12 bytes a pixel alive at its
// peak, while thinning (the image 4, its darkness 1, the ink mask 1, the distance map 4,
// the thinning grid 1 and the visit order 4 per ink pixel; the engine's JobMemory), and
// the garbage collector lets the heap grow past what is live: the process peaked at
// 260 MB (limit 398 MB) in November 2026.
const centerlinePeakLimit = 100<<20 + 18*5184*3200

// TestCenterlinePeakMemoryOnA16MPDrawing traces a 16.6 MP line drawing through the
// centerline and potrace plugin processes and reports each one's peak resident memory;
// centerline's must stay under centerlinePeakLimit.
func TestCenterlinePeakMemoryOnA16MPDrawing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("traces a 16.6 MP image with two engines")
	}
	img := drawingPNG(t)
	for _, name := range []string{"centerline", "potrace"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			peak := tracePeak(t, name, "16.6 MP drawing", img)
			if name == "centerline" && peak > centerlinePeakLimit {
				t.Errorf("centerline's process peaked at %d MB on a 16.6 MP drawing, want at most %d MB", peak>>20, centerlinePeakLimit>>20)
			}
		})
	}
}
