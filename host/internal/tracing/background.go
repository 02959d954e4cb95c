package tracing

import (
	"bytes"
	"image/png"

	"github.com/tracecraft/tracecraft/host/internal/background"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// removeBackground returns the job with its image's background made transparent (see
// background.Remove) when its settings ask for it, and the job itself otherwise.
//
// It runs in the host, before any engine sees the image, so that every engine, of any
// protocol version and from any author, traces the image without its background: the
// decoded image is written as a PNG (which keeps the transparency; EXIF orientation is
// applied already) and sent instead of the upload. The cost is one decode and one fast
// PNG encode in the host per such job, and the decoded image (4 bytes a pixel) is held
// while it lasts.
func (s *Service) removeBackground(job Job) (Job, error) {
	if job.Settings.Background != settings.BackgroundRemove {
		return job, nil
	}
	data := job.Image
	if job.File != nil {
		data = job.File.Bytes()
	}
	img, _, err := raster.Decode(data, s.MaxPixels)
	if err != nil {
		return job, fault.FromSDK(err)
	}
	background.Remove(img)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return job, fault.Wrap(err, fault.Internal, "the image without its background could not be encoded")
	}
	job.Image, job.File = buf.Bytes(), nil
	return job, nil
}
