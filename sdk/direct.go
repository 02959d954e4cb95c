package sdk

import (
	"context"
	"io"
	"net"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

// serveDirect serves Trace and Analyze calls on the direct channel (see package wire)
// until the host closes it. Calls go through the same methods as gRPC's, under the same
// lock.
func (s *server) serveDirect(conn net.Conn) {
	d := &directServer{s: s, conn: conn, rd: wire.NewFrameReader(conn), out: &frameWriter{conn: conn}}
	d.read()
}

// directServer is the plugin's end of the direct channel. One goroutine at a time reads
// its frames. The one that reads a call (Trace or Analyze) runs it itself, at once, and
// hands the reading on to a goroutine it starts, which reads the frames that come
// meanwhile (a cancel): the call waits for no other goroutine to be scheduled, and its
// answer is written by the goroutine that made it.
type directServer struct {
	s    *server
	conn net.Conn
	rd   *wire.FrameReader
	out  *frameWriter

	// mu guards the running call's id and the cancel of its context.
	mu      sync.Mutex
	current uint64
	cancel  context.CancelFunc
}

// read reads frames until one asks for a call, which it runs after starting the next
// reader, or until the channel closes.
func (d *directServer) read() {
	for {
		kind, id, payload, err := d.rd.Next(wire.MaxMessageBytes)
		if err != nil {
			if err != io.EOF {
				d.s.logger.Error("direct channel closed", "error", err)
			}
			d.mu.Lock()
			if d.cancel != nil {
				d.cancel()
			}
			d.mu.Unlock()
			d.conn.Close()
			return
		}
		switch kind {
		case wire.FrameTrace, wire.FrameAnalyze:
			var req proto.Message = new(tracev1.TraceRequest)
			if kind == wire.FrameAnalyze {
				req = new(tracev1.AnalyzeRequest)
			}
			if err := proto.Unmarshal(payload, req); err != nil {
				_ = d.out.write(wire.FrameError, id, []byte("cannot read the request: "+err.Error()))
				continue
			}
			ctx, stop := context.WithCancel(context.Background())
			d.mu.Lock()
			d.current, d.cancel = id, stop
			d.mu.Unlock()
			go d.read()
			d.run(ctx, id, req)
			stop()
			return
		case wire.FrameCancel:
			d.mu.Lock()
			if id == d.current && d.cancel != nil {
				d.cancel()
			}
			d.mu.Unlock()
		}
	}
}

// run runs call id, a Trace or an Analyze, and writes its answer.
func (d *directServer) run(ctx context.Context, id uint64, req proto.Message) {
	var err error
	switch r := req.(type) {
	case *tracev1.TraceRequest:
		var resp *tracev1.TraceResponse
		if resp, err = d.s.Trace(ctx, r); err == nil {
			err = d.out.writeTraceResponse(id, resp)
		}
	case *tracev1.AnalyzeRequest:
		var resp *tracev1.AnalyzeResponse
		if resp, err = d.s.Analyze(ctx, r); err == nil {
			var data []byte
			if data, err = proto.Marshal(resp); err == nil {
				err = d.out.write(wire.FrameResult, id, data)
			}
		}
	}
	if err != nil {
		// A call cancelled, or an answer that could not be written (the host has gone).
		_ = d.out.write(wire.FrameError, id, []byte(err.Error()))
	}
}

// writeTraceResponse writes resp as the answer to call id, its SVG straight from the
// engine's slice rather than copied into the marshalled message: the SVG field first,
// then the others (protobuf fields may come in any order), marshalled from resp with its
// SVG taken out for the while, so that a field the message gains is carried too.
func (w *frameWriter) writeTraceResponse(id uint64, resp *tracev1.TraceResponse) error {
	svg := resp.GetSvg()
	resp.Svg = nil
	tail, err := proto.Marshal(resp)
	resp.Svg = svg
	if err != nil {
		return err
	}
	if len(svg) == 0 {
		return w.write(wire.FrameResult, id, tail)
	}
	head := protowire.AppendTag(nil, 1, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(len(svg)))
	return w.write(wire.FrameResult, id, head, svg, tail)
}

// frameWriter writes whole frames to the direct channel, one at a time.
type frameWriter struct {
	mu   sync.Mutex
	conn io.Writer
}

func (w *frameWriter) write(kind byte, id uint64, parts ...[]byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return wire.WriteFrame(w.conn, kind, id, parts...)
}
