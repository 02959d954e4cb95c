package pluginhost

import (
	"bufio"
	"fmt"
	"io"

	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
)

// svgCodec is the host's gRPC codec: the standard protobuf codec, except that a large
// TraceResponse is read field by field from the received frames, its SVG copied once
// into a slice of its own size. The standard codec first joins the frames into one
// buffer and then copies the SVG out of it, so a 50 MB SVG would hold 150 MB at once.
type svgCodec struct{ encoding.CodecV2 }

// smallResponse is the size below which a TraceResponse is decoded by the standard
// codec: a message in one frame needs no joining, and reading it field by field would
// only cost a reader and its buffer.
const smallResponse = 16 << 10

func newSVGCodec() svgCodec { return svgCodec{encoding.GetCodecV2(grpcproto.Name)} }

// Unmarshal decodes data into v.
func (c svgCodec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(*tracev1.TraceResponse)
	if !ok || data.Len() < smallResponse {
		return c.CodecV2.Unmarshal(data, v)
	}
	rd := data.Reader()
	defer rd.Close()
	in := bufio.NewReaderSize(rd, 4096)
	var rest []byte // every field but svg, re-encoded for proto.Unmarshal
	var svg []byte
	for {
		tag, err := binaryUvarint(in)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		num, typ := protowire.DecodeTag(tag)
		if num == 1 && typ == protowire.BytesType {
			n, err := binaryUvarint(in)
			if err != nil {
				return err
			}
			if n > uint64(rd.Remaining()+in.Buffered()) {
				return fmt.Errorf("trace response: svg of %d bytes in a shorter message", n)
			}
			svg = make([]byte, n)
			if _, err := io.ReadFull(in, svg); err != nil {
				return err
			}
			continue
		}
		rest = protowire.AppendVarint(rest, tag)
		switch typ {
		case protowire.VarintType:
			x, err := binaryUvarint(in)
			if err != nil {
				return err
			}
			rest = protowire.AppendVarint(rest, x)
		case protowire.Fixed32Type, protowire.Fixed64Type:
			size := 4
			if typ == protowire.Fixed64Type {
				size = 8
			}
			b := make([]byte, size)
			if _, err := io.ReadFull(in, b); err != nil {
				return err
			}
			rest = append(rest, b...)
		case protowire.BytesType:
			n, err := binaryUvarint(in)
			if err != nil {
				return err
			}
			if n > 1<<20 {
				return fmt.Errorf("trace response: field %d of %d bytes", num, n)
			}
			b := make([]byte, n)
			if _, err := io.ReadFull(in, b); err != nil {
				return err
			}
			rest = protowire.AppendBytes(rest, b)
		default:
			return fmt.Errorf("trace response: field %d of unexpected wire type %d", num, typ)
		}
	}
	if err := proto.Unmarshal(rest, r); err != nil {
		return err
	}
	r.Svg = svg
	return nil
}

// binaryUvarint reads a protobuf varint; io.EOF only when nothing was read.
func binaryUvarint(in *bufio.Reader) (uint64, error) {
	var x uint64
	for i := 0; i < 10; i++ {
		b, err := in.ReadByte()
		if err != nil {
			if err == io.EOF && i > 0 {
				return 0, io.ErrUnexpectedEOF
			}
			return 0, err
		}
		x |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, fmt.Errorf("trace response: varint overflows")
}
