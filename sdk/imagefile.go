package sdk

import (
	"fmt"
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

// imageFile is an image written once into an anonymous in-memory file (memfd), which
// the plugin process opens through /proc and maps: the image crosses to the plugin
// without being copied through the gRPC message.
type imageFile struct {
	fd   int
	path string
}

// newImageFile creates an empty memfd.
func newImageFile() (*imageFile, error) {
	fd, err := unix.MemfdCreate("tracecraft-image", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &imageFile{fd: fd, path: "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + strconv.Itoa(fd)}, nil
}

// set makes data the file's whole content. Reusing one file keeps its pages allocated
// from one image to the next.
func (f *imageFile) set(data []byte) error {
	if err := unix.Ftruncate(f.fd, int64(len(data))); err != nil {
		return err
	}
	for off := 0; off < len(data); {
		n, err := unix.Pwrite(f.fd, data[off:], int64(off))
		if err != nil {
			return err
		}
		off += n
	}
	return nil
}

// Close releases the file; a plugin that still has it open keeps its own reference.
func (f *imageFile) Close() { unix.Close(f.fd) }

// mapImageFile maps the file at path read-only and returns its bytes with the function
// that unmaps them. The bytes must not be used after unmapping.
func mapImageFile(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	switch {
	case size == 0:
		return nil, func() {}, nil
	case size > MaxMessageBytes:
		return nil, nil, fmt.Errorf("image file of %d bytes is over the %d byte limit", size, MaxMessageBytes)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { _ = unix.Munmap(data) }, nil
}

// requestImage returns the image of a request: inline, or mapped from its file.
func requestImage(inline []byte, file string) ([]byte, func(), error) {
	if file == "" {
		return inline, func() {}, nil
	}
	data, unmap, err := mapImageFile(file)
	if err != nil {
		return nil, nil, Errorf(codeImageFileUnreadable, "cannot read the image file: %v", err)
	}
	return data, unmap, nil
}
