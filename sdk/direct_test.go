package sdk

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net"
	"testing"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

// fillEveryField sets every field of m, and of the messages it holds, to a value other
// than its zero value.
func fillEveryField(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		var v protoreflect.Value
		switch f.Kind() {
		case protoreflect.BytesKind:
			v = protoreflect.ValueOfBytes([]byte("<svg>" + string(f.Name()) + "</svg>"))
		case protoreflect.StringKind:
			v = protoreflect.ValueOfString(string(f.Name()))
		case protoreflect.Uint32Kind:
			v = protoreflect.ValueOfUint32(uint32(100 + i))
		case protoreflect.Uint64Kind:
			v = protoreflect.ValueOfUint64(uint64(1<<40 + i))
		case protoreflect.BoolKind:
			v = protoreflect.ValueOfBool(true)
		case protoreflect.MessageKind:
			sub := m.NewField(f).Message()
			fillEveryField(sub)
			v = protoreflect.ValueOfMessage(sub)
		default:
			panic("fillEveryField: add kind " + f.Kind().String())
		}
		m.Set(f, v)
	}
}

// TestTheDirectAnswerCarriesEveryFieldOfTheResponse: the answer written with its SVG
// apart from the rest decodes, as a plain protobuf message, to the response itself, every
// field included (a field added to TraceResponse and not carried fails here).
func TestTheDirectAnswerCarriesEveryFieldOfTheResponse(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp *tracev1.TraceResponse
	}{
		{"every field", func() *tracev1.TraceResponse {
			r := new(tracev1.TraceResponse)
			fillEveryField(r.ProtoReflect())
			return r
		}()},
		{"a failure, no SVG", &tracev1.TraceResponse{Failure: &tracev1.Failure{Code: CodeInvalidSettings, Message: "no"}}},
		{"nothing", &tracev1.TraceResponse{}},
	} {
		var stream bytes.Buffer
		if err := (&frameWriter{conn: &stream}).writeTraceResponse(9, tt.resp); err != nil {
			t.Fatal(err)
		}
		kind, id, payload, err := wire.NewFrameReader(&stream).Next(1 << 20)
		if err != nil || kind != wire.FrameResult || id != 9 {
			t.Fatalf("%s: frame kind %d id %d, %v", tt.name, kind, id, err)
		}
		got := new(tracev1.TraceResponse)
		if err := proto.Unmarshal(payload, got); err != nil || !proto.Equal(got, tt.resp) {
			t.Errorf("%s: decoded %v (%v), want %v", tt.name, got, err, tt.resp)
		}
	}
}

// waitParams are waitEngine's parameters.
type waitParams struct {
	Wait bool `param:"wait" default:"false" desc:"wait until the call is cancelled"`
}

// waitEngine draws an empty SVG at once, or waits for its context to end.
type waitEngine struct{}

func (waitEngine) Describe() Descriptor {
	return Descriptor{Name: "wait", Version: "1.0.0", Stability: Stable, Description: "an engine that waits when asked", Params: Describe[waitParams]()}
}

func (waitEngine) Trace(ctx context.Context, img *image.NRGBA, p waitParams) ([]byte, error) {
	if p.Wait {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"></svg>`), nil
}

// TestTheDirectChannelAnswersCallsAndCancelsThem talks to serveDirect frame by frame: a
// call (Trace, then Analyze) is answered with its result, a call that waits ends when its cancel frame comes
// (with an error frame), and a request that cannot be read is an error frame too; the
// channel serves on after each.
func TestTheDirectChannelAnswersCallsAndCancelsThem(t *testing.T) {
	b, err := bind[waitParams](waitEngine{})
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(b, hclog.NewNullLogger())
	host, plugin := net.Pipe()
	defer host.Close()
	go s.serveDirect(plugin)
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewNRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	request := func(wait bool) []byte {
		p, err := proto.Marshal(&tracev1.TraceRequest{Image: img.Bytes(), HostChecksOutput: true,
			Params: map[string]*tracev1.Value{"wait": {Kind: &tracev1.Value_Flag{Flag: wait}}}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	rd := wire.NewFrameReader(host)
	expect := func(wantKind byte, wantID uint64) []byte {
		t.Helper()
		kind, id, payload, err := rd.Next(1 << 20)
		if err != nil || kind != wantKind || id != wantID {
			t.Fatalf("got frame kind %d id %d %q (%v), want kind %d id %d", kind, id, payload, err, wantKind, wantID)
		}
		return payload
	}
	steps := []struct {
		name   string
		send   func() error
		kind   byte
		id     uint64
		answer string
	}{
		{"a call", func() error { return wire.WriteFrame(host, wire.FrameTrace, 1, request(false)) }, wire.FrameResult, 1, "<svg"},
		{"a call that waits, then its cancel", func() error {
			if err := wire.WriteFrame(host, wire.FrameTrace, 2, request(true)); err != nil {
				return err
			}
			return wire.WriteFrame(host, wire.FrameCancel, 2, nil)
		}, wire.FrameError, 2, "canceled"},
		{"a request that is not a TraceRequest", func() error { return wire.WriteFrame(host, wire.FrameTrace, 3, []byte{0xff, 0xff}) }, wire.FrameError, 3, "cannot read the request"},
		{"a call after them", func() error { return wire.WriteFrame(host, wire.FrameTrace, 4, request(false)) }, wire.FrameResult, 4, "<svg"},
		{"an Analyze call", func() error {
			p, err := proto.Marshal(&tracev1.AnalyzeRequest{Image: img.Bytes()})
			if err != nil {
				return err
			}
			return wire.WriteFrame(host, wire.FrameAnalyze, 5, p)
		}, wire.FrameResult, 5, "colors"},
	}
	for _, st := range steps {
		sent := make(chan error, 1)
		go func() { sent <- st.send() }()
		payload := expect(st.kind, st.id)
		if err := <-sent; err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if st.kind == wire.FrameResult && st.answer == "colors" {
			var r tracev1.AnalyzeResponse
			if err := proto.Unmarshal(payload, &r); err != nil || r.GetWidth() != 2 || r.GetFeatures()["transparent_share"] != 1 {
				t.Errorf("%s: answer %v (%v), want the measures of a transparent 2 x 2 image", st.name, &r, err)
			}
		} else if st.kind == wire.FrameResult {
			var r tracev1.TraceResponse
			if err := proto.Unmarshal(payload, &r); err != nil || !bytes.Contains(r.GetSvg(), []byte(st.answer)) {
				t.Errorf("%s: answer %v (%v), want an SVG", st.name, &r, err)
			}
		} else if !bytes.Contains(payload, []byte(st.answer)) {
			t.Errorf("%s: error %q, want one saying %q", st.name, payload, st.answer)
		}
	}
}
