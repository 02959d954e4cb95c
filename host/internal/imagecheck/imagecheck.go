// Package imagecheck vets an upload before the host queues it: the format by its magic
// bytes, the dimensions from its header, the byte and pixel limits, and a cheap check that
// a PNG or WebP file is complete. It never decodes pixels; the engine processes do that
// with package raster, so a bad upload is refused here without costing a worker.
package imagecheck

import (
	"strconv"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// Default limits of the service: files of 10 MB (MiB) and 40 megapixels.
const (
	DefaultMaxBytes  = 10 << 20
	DefaultMaxPixels = raster.DefaultMaxPixels
)

// Limits are the most an upload may be. A zero (or negative) field means its default, so
// a zero Limits never switches a check off.
type Limits struct {
	// MaxBytes is the largest file accepted, in bytes.
	MaxBytes int64
	// MaxPixels is the largest width x height accepted.
	MaxPixels int64
}

// WithDefaults returns l with zero fields set to the defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	return l
}

// Info describes an upload that passed Check.
type Info struct {
	// Format is the format's lower-case name: "png", "jpeg", "webp", "bmp" or "tiff".
	Format string
	// Width and Height are the upright dimensions, after EXIF orientation.
	Width, Height int
	// Orientation is the EXIF orientation, 1 to 8, that engines will apply.
	Orientation int
	// Bytes is the size of the file.
	Bytes int64
}

// Pixels returns Width x Height.
func (i Info) Pixels() int64 { return int64(i.Width) * int64(i.Height) }

// Check vets the uploaded file data against lim, reading no more than its header (and,
// for PNG, its chunk lengths): it costs microseconds whatever the file's size. Errors are
// *fault.Error values with code fault.EmptyImage, fault.ImageTooLarge,
// fault.UnsupportedFormat, fault.CorruptImage, fault.TruncatedImage or
// fault.TooManyPixels, each with a sentence a person can act on. A file that passes can
// still fail to decode in the engine, for damage beyond its header.
func Check(data []byte, lim Limits) (Info, error) {
	lim = lim.WithDefaults()
	info := Info{Bytes: int64(len(data))}
	if len(data) == 0 {
		return info, fault.New(fault.EmptyImage, "the uploaded file is empty; attach the image file itself")
	}
	if info.Bytes > lim.MaxBytes {
		return info, fault.New(fault.ImageTooLarge,
			"the file is %s MB, over the limit of %s MB; compress it or scale it down and try again",
			Megabytes(info.Bytes, true), Megabytes(lim.MaxBytes, false))
	}
	h, err := raster.Check(data, lim.MaxPixels)
	info.Format = string(h.Format)
	info.Width, info.Height, info.Orientation = h.Width, h.Height, h.Orientation
	if err != nil {
		return info, fault.FromSDK(err)
	}
	return info, nil
}

// Megabytes formats n bytes in MB (2^20 bytes) to one decimal, trimmed when it is zero;
// a size over a limit is rounded up, so it never reads as equal to the limit.
func Megabytes(n int64, roundUp bool) string {
	const unit = 1 << 20
	t := (n*10 + unit/2) / unit
	if roundUp {
		t = (n*10 + unit - 1) / unit
	}
	s := strconv.FormatInt(t/10, 10)
	if t%10 != 0 {
		s += "." + strconv.FormatInt(t%10, 10)
	}
	return s
}
