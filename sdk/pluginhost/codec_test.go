package pluginhost

import (
	"bytes"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
)

func TestSVGCodecReadsWhatTheProtobufCodecReads(t *testing.T) {
	big := bytes.Repeat([]byte(`<path d="M0 0"/>`), 100000)
	for _, want := range []*tracev1.TraceResponse{
		{},
		{Svg: []byte("<svg/>"), Width: 3, Height: 2, DecodeMicros: 1 << 40, TraceMicros: 7},
		{Failure: &tracev1.Failure{Code: "corrupt_image", Message: "bad"}},
		{Svg: big, Width: 1000, Height: 1},
	} {
		wire, err := proto.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		// Frames of 16 KiB, as the transport hands them over.
		var frames mem.BufferSlice
		for i := 0; i < len(wire); i += 16 << 10 {
			frames = append(frames, mem.SliceBuffer(wire[i:min(len(wire), i+16<<10)]))
		}
		got := &tracev1.TraceResponse{}
		if err := newSVGCodec().Unmarshal(frames, got); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got, want) {
			t.Errorf("decoded %d-byte message differs: got svg %d bytes, %v", len(wire), len(got.Svg), got.GetFailure())
		}
	}
	// A message cut short is an error, not a panic.
	wire, _ := proto.Marshal(&tracev1.TraceResponse{Svg: big})
	if err := newSVGCodec().Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire[:len(wire)/2])}, &tracev1.TraceResponse{}); err == nil {
		t.Error("a truncated message decoded")
	}
}

// BenchmarkSVGCodecSmall decodes the answer of a small trace, the usual size of a logo's
// SVG, as the host receives it in one frame.
func BenchmarkSVGCodecSmall(b *testing.B) {
	wire, err := proto.Marshal(&tracev1.TraceResponse{Svg: bytes.Repeat([]byte(`<path d="M0 0"/>`), 100), Width: 500, Height: 500, DecodeMicros: 5000, TraceMicros: 300})
	if err != nil {
		b.Fatal(err)
	}
	c := newSVGCodec()
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, &tracev1.TraceResponse{}); err != nil {
			b.Fatal(err)
		}
	}
}
