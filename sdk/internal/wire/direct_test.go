package wire

import (
	"bytes"
	"errors"
	"net"
	"testing"
	"time"
)

func TestFramesComeOutAsTheyWentIn(t *testing.T) {
	tests := []struct {
		name  string
		kind  byte
		id    uint64
		parts [][]byte
		want  []byte
	}{
		{"no payload", FrameCancel, 7, nil, []byte{}},
		{"one part", FrameTrace, 1, [][]byte{[]byte("request")}, []byte("request")},
		{"parts joined", FrameResult, 1 << 40, [][]byte{[]byte("ab"), nil, []byte("cde")}, []byte("abcde")},
		{"larger than the reader's buffer", FrameResult, 3, [][]byte{bytes.Repeat([]byte{'x'}, 10000), []byte("end")}, append(bytes.Repeat([]byte{'x'}, 10000), "end"...)},
	}
	var stream bytes.Buffer
	for _, tt := range tests {
		if err := WriteFrame(&stream, tt.kind, tt.id, tt.parts...); err != nil {
			t.Fatal(err)
		}
	}
	rd := NewFrameReader(&stream)
	for _, tt := range tests {
		kind, id, payload, err := rd.Next(1 << 20)
		if err != nil || kind != tt.kind || id != tt.id || !bytes.Equal(payload, tt.want) {
			t.Errorf("%s: got kind %d id %d %.20q %v, want kind %d id %d %.20q", tt.name, kind, id, payload, err, tt.kind, tt.id, tt.want)
		}
	}
	if _, _, _, err := rd.Next(1 << 20); err == nil {
		t.Error("read a frame past the end of the stream")
	}
}

func TestAFrameOverTheLimitIsRefusedFromItsHeader(t *testing.T) {
	var stream bytes.Buffer
	if err := WriteFrame(&stream, FrameResult, 1, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := NewFrameReader(&stream).Next(999)
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("got %v, want ErrFrameTooLarge", err)
	}
}

// TestAFrameReadCutOffByADeadlineIsReadOnAfterwards cuts the read off in the header and
// again in the payload: the next Next goes on where the last one stopped.
func TestAFrameReadCutOffByADeadlineIsReadOnAfterwards(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	var frame bytes.Buffer
	payload := bytes.Repeat([]byte("svg "), 3000)
	if err := WriteFrame(&frame, FrameResult, 42, payload); err != nil {
		t.Fatal(err)
	}
	whole := frame.Bytes()
	rd := NewFrameReader(b)
	// 5 bytes of the header, then the rest of it and 700 bytes of the payload, then the rest.
	for _, cut := range []int{5, DirectHeader - 5 + 700, len(whole) - DirectHeader - 700} {
		sent := make(chan struct{})
		go func(part []byte) {
			defer close(sent)
			_, _ = a.Write(part)
		}(whole[:cut])
		whole = whole[cut:]
		// net.Pipe hands each write to the reads: Next takes the part, then waits.
		_ = b.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		kind, id, got, err := rd.Next(1 << 20)
		<-sent
		if len(whole) > 0 {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("with %d bytes still to come: got %v, want a timeout", len(whole), err)
			}
			continue
		}
		if err != nil || kind != FrameResult || id != 42 || !bytes.Equal(got, payload) {
			t.Fatalf("got kind %d id %d, %d bytes, %v; want the whole frame", kind, id, len(got), err)
		}
	}
}
