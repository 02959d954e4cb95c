package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

// directChannel is the host's end of a plugin's direct channel (see package wire), for
// Trace and Analyze calls: the calling goroutine writes its request frame and reads the
// answer itself, so a call costs the two processes' wake-ups and nothing between them.
type directChannel struct {
	conn    *net.UnixConn
	maxRecv int
	// turn holds a token while a call is under way, from its request until its answer
	// has been read: by the call itself, or, when its context ended first, by the
	// goroutine that reads the answer it gave up on. A call waits for its turn only as
	// long as its context lasts. rd, next and the connection's deadline are the turn's.
	turn chan struct{}
	rd   *wire.FrameReader
	next uint64
	// broken is set once the stream cannot be read on (a frame over the limit, a read
	// that failed otherwise): the plugin's calls go over gRPC from then on, and the
	// host's end is closed, so that the plugin's end closes too (its writer may be stuck
	// on an answer nobody will read).
	broken atomic.Bool
}

func newDirectChannel(conn *net.UnixConn, maxRecv int) *directChannel {
	return &directChannel{conn: conn, maxRecv: maxRecv, rd: wire.NewFrameReader(conn), turn: make(chan struct{}, 1)}
}

// sound reports whether calls can still go on the channel.
func (d *directChannel) sound() bool { return !d.broken.Load() }

// close closes the host's end; a call waiting on it fails.
func (d *directChannel) close() {
	d.broken.Store(true)
	d.conn.Close()
}

// errDirectCall is a call that ended without an answer on the plugin's side.
var errDirectCall = errors.New("direct call failed")

// trace runs one Trace call on the channel (see call); an answer over the receive limit
// is the failure CodeOutputTooLarge.
func (d *directChannel) trace(ctx context.Context, req *tracev1.TraceRequest) (*tracev1.TraceResponse, error) {
	payload, err := d.call(ctx, wire.FrameTrace, req)
	if errors.Is(err, wire.ErrFrameTooLarge) {
		return &tracev1.TraceResponse{Failure: d.tooLarge()}, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeTraceResponse(payload)
}

// analyze runs one Analyze call on the channel (see call).
func (d *directChannel) analyze(ctx context.Context, req *tracev1.AnalyzeRequest) (*tracev1.AnalyzeResponse, error) {
	payload, err := d.call(ctx, wire.FrameAnalyze, req)
	if errors.Is(err, wire.ErrFrameTooLarge) {
		return &tracev1.AnalyzeResponse{Failure: d.tooLarge()}, nil
	}
	if err != nil {
		return nil, err
	}
	r := new(tracev1.AnalyzeResponse)
	if err := proto.Unmarshal(payload, r); err != nil {
		return nil, err
	}
	return r, nil
}

// tooLarge is the failure of an answer over the receive limit.
func (d *directChannel) tooLarge() *tracev1.Failure {
	return &tracev1.Failure{Code: sdk.CodeOutputTooLarge,
		Message: fmt.Sprintf("the engine's answer is larger than the %d MB the service can carry", d.maxRecv>>20)}
}

// call sends req as a frame of kind and returns the payload of its answer. When ctx ends
// first, the plugin is told to cancel the call and call returns ctx's error at once; the
// answer the plugin still sends is read and dropped before the next call is sent (a call
// that waits for that gives up when its own ctx ends). Errors
// other than ctx's mean the process died or broke the protocol (Client.callError makes
// them ErrCrashed); an answer over the receive limit is wire.ErrFrameTooLarge, and the
// channel is given up.
func (d *directChannel) call(ctx context.Context, kind byte, req proto.Message) ([]byte, error) {
	payload, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case d.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	d.next++
	id := d.next
	if err := wire.WriteFrame(d.conn, kind, id, payload); err != nil {
		d.close()
		<-d.turn
		return nil, err
	}
	cancelled := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(cancelled)
		_ = wire.WriteFrame(d.conn, wire.FrameCancel, id, nil)
		// Wakes the read below; the call's answer is read on after it.
		_ = d.conn.SetReadDeadline(time.Now())
	})
	answer, err := d.answer(id)
	if stop() {
		<-d.turn
		return answer, err
	}
	// ctx ended: the cancel frame is sent and the deadline set, or being set.
	<-cancelled
	_ = d.conn.SetReadDeadline(time.Time{})
	if !errors.Is(err, errReadDeadline) {
		<-d.turn
		return answer, err
	}
	go func() {
		defer func() { <-d.turn }()
		_, _ = d.answer(id)
	}()
	return nil, ctx.Err()
}

// errReadDeadline is a read cut off by the deadline a cancelled call set.
var errReadDeadline = errors.New("direct channel: read cut off")

// answer reads frames until the answer to call id and returns its payload, dropping the
// frames of earlier calls. The caller has the turn.
func (d *directChannel) answer(id uint64) ([]byte, error) {
	for {
		kind, got, payload, err := d.rd.Next(d.maxRecv)
		switch {
		case errors.Is(err, wire.ErrFrameTooLarge):
			d.close()
			return nil, err
		case err != nil:
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return nil, fmt.Errorf("%w: %v", errReadDeadline, err)
			}
			d.close()
			return nil, err
		case got != id:
			continue
		case kind == wire.FrameError:
			return nil, fmt.Errorf("%w: %s", errDirectCall, payload)
		case kind != wire.FrameResult:
			d.close()
			return nil, fmt.Errorf("direct channel: unexpected frame kind %d", kind)
		}
		return payload, nil
	}
}

// decodeTraceResponse decodes a TraceResponse whose SVG stays in payload, not copied.
func decodeTraceResponse(payload []byte) (*tracev1.TraceResponse, error) {
	var svg []byte
	var rest []byte
	for b := payload; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		if num == 1 && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n:])
			svg = v[:len(v):len(v)]
		} else {
			rest = append(rest, b[:n+m]...)
		}
		b = b[n+m:]
	}
	r := new(tracev1.TraceResponse)
	if err := proto.Unmarshal(rest, r); err != nil {
		return nil, err
	}
	r.Svg = svg
	return r, nil
}
