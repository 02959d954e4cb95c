package sdk

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

// codeImageFileUnreadable is the failure a plugin answers when it cannot read the image
// file it was given; the client then sends the image in the message instead.
const codeImageFileUnreadable = "image_file_unreadable"

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

// mapImageFile maps the file at path read-only and returns its bytes, or the n bytes at
// off when n is not 0, with the function that unmaps them. The bytes must not be used
// after unmapping.
func mapImageFile(path string, off, n uint64) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := uint64(st.Size())
	if n == 0 {
		off, n = 0, size
	}
	switch {
	case off > size || n > size-off:
		return nil, nil, fmt.Errorf("%d bytes at %d are outside the image file's %d", n, off, size)
	case n == 0:
		return nil, func() {}, nil
	case n > MaxMessageBytes:
		return nil, nil, fmt.Errorf("image of %d bytes is over the %d byte limit", n, MaxMessageBytes)
	}
	// Mappings start on a page boundary.
	start := off &^ uint64(os.Getpagesize()-1)
	m, err := unix.Mmap(int(f.Fd()), int64(start), int(n+off-start), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return m[off-start:], func() { _ = unix.Munmap(m) }, nil
}

// requestImage returns the image of a request: inline, or mapped from its file (the n
// bytes at off when n is not 0).
func requestImage(inline []byte, file string, off, n uint64) ([]byte, func(), error) {
	if file == "" {
		return inline, func() {}, nil
	}
	data, unmap, err := mapImageFile(file, off, n)
	if err != nil {
		return nil, nil, Errorf(codeImageFileUnreadable, "cannot read the image file: %v", err)
	}
	return data, unmap, nil
}
