package pluginhost

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// imageFileMin is the smallest image the client hands over as a file rather than in the
// message: below it the copies cost less than the file.
const imageFileMin = 64 << 10

// ImageFile is an image held in an anonymous in-memory file (memfd) that plugin processes
// open through /proc and map, so the image crosses to them without being copied through
// the gRPC message. The host reads an upload straight into one with Fill, checks it
// through Bytes, and hands it to Client.Trace and Client.Analyze; a file is reused from
// one image to the next, keeping its pages. An ImageFile is used by one goroutine at a
// time, and must not be refilled while a call that was given it runs.
type ImageFile struct {
	fd   int
	path string
	// mapped is a read-write shared mapping of capacity bytes, made by the first Fill;
	// only its first size bytes are backed by the file, and data is its first n bytes.
	mapped   []byte
	capacity int64
	size     int64
	data     []byte
	// off is where data starts in the file.
	off int64
}

// NewImageFile creates an empty file that Fill can read images of up to capacity bytes
// into; capacity 0 makes a file that is only written whole, by the client itself.
func NewImageFile(capacity int64) (*ImageFile, error) {
	fd, err := unix.MemfdCreate("tracecraft-image", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &ImageFile{fd: fd, capacity: max(0, capacity), path: "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + strconv.Itoa(fd)}, nil
}

// fillStep is how much the file grows at a time while Fill reads into it.
const fillStep = 256 << 10

// Fill replaces the file's content with what r yields, up to the file's capacity. over
// reports that r had more than that; the content is then incomplete and must not be used.
func (f *ImageFile) Fill(r io.Reader) (over bool, err error) {
	if f.capacity == 0 {
		return false, errors.New("image file has no capacity to fill")
	}
	if f.mapped == nil {
		// One byte past the capacity tells a file of exactly the capacity from a longer one.
		m, err := unix.Mmap(f.fd, 0, int(f.capacity)+1, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			return false, err
		}
		f.mapped = m
	}
	f.data, f.off = nil, 0
	var n int64
	for {
		if n == f.size {
			grow := min(f.size+fillStep, f.capacity+1)
			if grow == f.size {
				return true, nil
			}
			if err := unix.Ftruncate(f.fd, grow); err != nil {
				return false, err
			}
			f.size = grow
		}
		m, err := r.Read(f.mapped[n:f.size])
		n += int64(m)
		if n > f.capacity {
			return true, nil
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false, err
		}
	}
	// The file's size is the image's: the plugin maps what the file holds. Pages past it
	// are freed; those below stay for the next image.
	if n != f.size {
		if err := unix.Ftruncate(f.fd, n); err != nil {
			return false, err
		}
		f.size = n
	}
	f.data = f.mapped[:n:n]
	return false, nil
}

// Select makes the image the n bytes at off of what the last successful Fill read, for
// a caller that read a whole request body into the file: the image stays where it lies.
// A plugin that reads ranges of files maps just those bytes; for one that does not, the
// client moves them to the start of the file first.
func (f *ImageFile) Select(off, n int64) error {
	if off < 0 || n < 0 || off+n > f.off+int64(len(f.data)) || off < f.off {
		return fmt.Errorf("image file: %d bytes at %d are outside the %d it holds", n, off, len(f.data))
	}
	f.data, f.off = f.mapped[off:off+n:off+n], off
	return nil
}

// whole reports whether the image is the file's whole content.
func (f *ImageFile) whole() bool { return f.off == 0 && int64(len(f.data)) == f.size }

// compact makes the selected image the file's whole content, moving it to the start.
func (f *ImageFile) compact() error {
	if f.whole() {
		return nil
	}
	n := int64(len(f.data))
	copy(f.mapped, f.data)
	f.data, f.off = f.mapped[:n:n], 0
	if err := unix.Ftruncate(f.fd, n); err != nil {
		return err
	}
	f.size = n
	return nil
}

// Bytes returns the image the last successful Fill read, or the part of it Select
// chose. The slice is valid until the next Fill or Close.
func (f *ImageFile) Bytes() []byte { return f.data }

// set makes data the file's whole content (the client's copy of an image given as
// bytes, for a plugin that maps files).
func (f *ImageFile) set(data []byte) error {
	if err := unix.Ftruncate(f.fd, int64(len(data))); err != nil {
		return err
	}
	f.size = int64(len(data))
	for off := 0; off < len(data); {
		n, err := unix.Pwrite(f.fd, data[off:], int64(off))
		if err != nil {
			return err
		}
		off += n
	}
	return nil
}

// Close releases the file and its mapping; a plugin that still has it open keeps its
// own reference.
func (f *ImageFile) Close() error {
	if f.mapped != nil {
		_ = unix.Munmap(f.mapped)
		f.mapped, f.data = nil, nil
	}
	return unix.Close(f.fd)
}
