package sdk

import (
	"bytes"
	"testing"
)

func TestImageFileRoundTrip(t *testing.T) {
	f, err := newImageFile()
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
		got, release, err := requestImage(nil, f.path)
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%d bytes: read back %d bytes, not the same", size, len(got))
		}
		release()
	}
}

func TestUnreadableImageFileAsksForTheImageInline(t *testing.T) {
	_, _, err := requestImage(nil, "/proc/self/fd/999999")
	if ErrorCode(err) != codeImageFileUnreadable {
		t.Errorf("got %v, want code %s", err, codeImageFileUnreadable)
	}
	got, release, err := requestImage([]byte("inline"), "")
	if err != nil || string(got) != "inline" {
		t.Errorf("inline image: %q, %v", got, err)
	}
	release()
}
