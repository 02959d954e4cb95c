package pluginhost

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

func TestImageFileRoundTrip(t *testing.T) {
	f, err := NewImageFile(0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Reused, growing and shrinking.
	for _, size := range []int{0, 1, 3<<20 + 7, imageFileMin, 5} {
		data := bytes.Repeat([]byte{1, 2, 3, 5, 8, 13, 21}, size/7+1)[:size]
		if err := f.set(data); err != nil {
			t.Fatal(err)
		}
		got, release, err := wire.RequestImage(nil, f.path, 0, 0)
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%d bytes: read back %d bytes, not the same", size, len(got))
		}
		release()
	}
}

func TestFillReadsAnImageIntoTheFileUpToItsCapacity(t *testing.T) {
	const capacity = 3<<20 + 5
	f, err := NewImageFile(capacity)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Reused, growing and shrinking; over the capacity by one byte; empty.
	for _, size := range []int{3<<20 + 5, 10, 3<<20 + 6, fillStep, fillStep + 1, 0, 700 << 10} {
		data := bytes.Repeat([]byte{1, 2, 3, 5, 8, 13, 21}, size/7+1)[:size]
		// iotest.OneByteReader would take minutes at 3 MiB; a reader of odd short reads
		// exercises the partial reads a multipart part gives.
		over, err := f.Fill(&shortReader{data: data, n: 4093})
		if err != nil {
			t.Fatal(err)
		}
		if want := size > capacity; over != want {
			t.Fatalf("%d bytes: over %v, want %v", size, over, want)
		}
		if over {
			continue
		}
		if !bytes.Equal(f.Bytes(), data) {
			t.Errorf("%d bytes: Bytes gives %d bytes, not the same", size, len(f.Bytes()))
		}
		got, release, err := wire.RequestImage(nil, f.path, 0, 0)
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%d bytes: the mapped file holds %d bytes, not the same", size, len(got))
		}
		release()
	}
}

func TestFillReportsTheReadersError(t *testing.T) {
	f, err := NewImageFile(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Fill(iotest.TimeoutReader(bytes.NewReader(make([]byte, 100)))); err == nil {
		t.Error("Fill returned no error for a failing reader")
	}
	if f.Bytes() != nil {
		t.Error("Bytes holds an image after a failed Fill")
	}
}

// shortReader yields data at most n bytes per Read.
type shortReader struct {
	data []byte
	n    int
}

func (r *shortReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.data)
	r.data = r.data[k:]
	return k, nil
}

func TestUnreadableImageFileAsksForTheImageInline(t *testing.T) {
	_, _, err := wire.RequestImage(nil, "/proc/self/fd/999999", 0, 0)
	if sdk.ErrorCode(err) != wire.CodeImageFileUnreadable {
		t.Errorf("got %v, want code %s", err, wire.CodeImageFileUnreadable)
	}
	got, release, err := wire.RequestImage([]byte("inline"), "", 0, 0)
	if err != nil || string(got) != "inline" {
		t.Errorf("inline image: %q, %v", got, err)
	}
	release()
}

// TestSelectedImageIsMappedAsARangeOrMovedToTheStart fills a file with an image between
// other bytes, as a request body holds it, and reads the image back as a plugin does:
// as a range of the file at offsets on and off page boundaries, and as the whole file
// once compacted.
func TestSelectedImageIsMappedAsARangeOrMovedToTheStart(t *testing.T) {
	f, err := NewImageFile(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	image := bytes.Repeat([]byte{1, 2, 3, 5, 8, 13, 21}, 20000)
	for _, off := range []int{0, 1, 4095, 4096, 4097, 70001} {
		for _, tail := range []int{0, 1, 300} {
			body := append(append(bytes.Repeat([]byte{'-'}, off), image...), bytes.Repeat([]byte{'-'}, tail)...)
			if over, err := f.Fill(bytes.NewReader(body)); over || err != nil {
				t.Fatalf("Fill: %v %v", over, err)
			}
			if err := f.Select(int64(off), int64(len(image))); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(f.Bytes(), image) {
				t.Fatalf("at %d: Bytes is not the image", off)
			}
			if want := off == 0 && tail == 0; f.whole() != want {
				t.Errorf("at %d, %d after: whole %v", off, tail, f.whole())
			}
			got, release, err := wire.RequestImage(nil, f.path, uint64(off), uint64(len(image)))
			if err != nil || !bytes.Equal(got, image) {
				t.Errorf("range at %d: %v, same %v", off, err, bytes.Equal(got, image))
			}
			release()
			if err := f.compact(); err != nil {
				t.Fatal(err)
			}
			got, release, err = wire.RequestImage(nil, f.path, 0, 0)
			if err != nil || !bytes.Equal(got, image) || !bytes.Equal(f.Bytes(), image) {
				t.Errorf("compacted from %d: %v, file is the image %v", off, err, bytes.Equal(got, image))
			}
			release()
		}
	}
	// Ranges outside the file or the filled bytes are refused.
	if _, _, err := wire.RequestImage(nil, f.path, 1, uint64(len(image))); sdk.ErrorCode(err) != wire.CodeImageFileUnreadable {
		t.Errorf("a range past the end: %v", err)
	}
	if _, _, err := wire.RequestImage(nil, f.path, 1<<62, 1<<62); sdk.ErrorCode(err) != wire.CodeImageFileUnreadable {
		t.Errorf("a huge range: %v", err)
	}
	if err := f.Select(0, int64(len(image))+1); err == nil {
		t.Error("Select took more than the file holds")
	}
}
