package raster

import (
	"image"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/internal/coded"
)

// TestRecoveredTurnsADecoderPanicIntoCorruptImage covers the guard no real decoder bug
// can be relied on to reach.
func TestRecoveredTurnsADecoderPanicIntoCorruptImage(t *testing.T) {
	img, err := recovered(TIFF, func() (*image.NRGBA, error) {
		var s []byte
		_ = s[3] // index out of range
		return nil, nil
	})
	se, ok := err.(*coded.Error)
	if img != nil || !ok || se.Code != coded.CodeCorruptImage || !strings.Contains(se.Message, "TIFF") {
		t.Errorf("recovered = %v, %v; want nil and a corrupt_image error naming TIFF", img, err)
	}
}
