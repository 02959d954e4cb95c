package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
)

// The direct channel carries Trace and Analyze calls beside gRPC, on a socket pair the
// host makes for each plugin process: its end is the plugin's file descriptor named by
// DirectEnv. A call on it is one frame each way, written and read by the goroutines that
// make and serve it, without the HTTP/2 stream, the writer and reader goroutines and the
// wake-ups between them that a gRPC call costs on each side (0.5 ms of a 4 MP upload's
// overhead beyond the engine's own time, where a bare round trip between two processes
// costs 0.1 ms). A plugin that serves it says so in its description (direct_calls); the host
// sends it Trace and Analyze calls there only then, and the others (Describe, Idle) over
// gRPC.
//
// A frame is a header of DirectHeader bytes, the length of the payload (4 bytes, big
// endian), the frame's kind (1 byte) and the call's id (8 bytes, big endian), then the
// payload: a TraceRequest (FrameTrace) or an AnalyzeRequest (FrameAnalyze), the
// TraceResponse or AnalyzeResponse answering it (FrameResult), the message of a call that
// failed without an answer (FrameError), or nothing (FrameCancel). Calls run one at a
// time: the host sends the next one once the last one's answer has come.

// DirectEnv names the plugin's file descriptor of the direct channel, in the plugin's
// environment.
const DirectEnv = "TRACECRAFT_DIRECT_FD"

// DirectHeader is the size of a frame's header.
const DirectHeader = 13

// The kinds of frames.
const (
	// FrameTrace asks the plugin to run a Trace call (host to plugin).
	FrameTrace byte = 1
	// FrameCancel cancels the call of its id, if it still runs (host to plugin).
	FrameCancel byte = 2
	// FrameResult answers the call of its id (plugin to host).
	FrameResult byte = 3
	// FrameError says the call of its id ended without an answer: cancelled, or the
	// request could not be read (plugin to host).
	FrameError byte = 4
	// FrameAnalyze asks the plugin to run an Analyze call (host to plugin).
	FrameAnalyze byte = 5
)

// ErrFrameTooLarge reports a frame longer than its reader accepts; the rest of the
// stream cannot be read.
var ErrFrameTooLarge = errors.New("direct channel: frame too large")

// WriteFrame writes one frame to w, its payload made of parts, in one write where the
// connection allows it (net.Buffers: writev on a socket).
func WriteFrame(w io.Writer, kind byte, id uint64, parts ...[]byte) error {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	if size > MaxMessageBytes {
		return fmt.Errorf("direct channel: a frame of %d bytes is over the %d byte limit", size, MaxMessageBytes)
	}
	var hdr [DirectHeader]byte
	binary.BigEndian.PutUint32(hdr[0:4], uint32(size))
	hdr[4] = kind
	binary.BigEndian.PutUint64(hdr[5:], id)
	bufs := make(net.Buffers, 0, 1+len(parts))
	bufs = append(bufs, hdr[:])
	for _, p := range parts {
		if len(p) > 0 {
			bufs = append(bufs, p)
		}
	}
	_, err := bufs.WriteTo(w)
	return err
}

// FrameReader reads frames. A read that fails part way through a frame (a deadline
// passed) can be resumed by the next call of Next, which goes on with the same frame.
type FrameReader struct {
	r *bufio.Reader
	// hdr holds the header of the frame being read, n of its bytes read so far; payload
	// its payload once the header is whole (nil before), got of its bytes read.
	hdr     [DirectHeader]byte
	n       int
	payload []byte
	got     int
}

// NewFrameReader returns a reader of the frames on r.
func NewFrameReader(r io.Reader) *FrameReader {
	return &FrameReader{r: bufio.NewReaderSize(r, 4096)}
}

// Next reads the next frame, whose payload may be at most max bytes; a longer one is
// ErrFrameTooLarge. The payload is the frame's own (not reused).
func (f *FrameReader) Next(max int) (kind byte, id uint64, payload []byte, err error) {
	for f.n < DirectHeader {
		n, err := f.r.Read(f.hdr[f.n:])
		f.n += n
		if err != nil {
			if err == io.EOF && f.n > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, 0, nil, err
		}
	}
	if f.payload == nil {
		size := binary.BigEndian.Uint32(f.hdr[0:4])
		if int64(size) > int64(max) {
			return 0, 0, nil, fmt.Errorf("%w: %d bytes, at most %d", ErrFrameTooLarge, size, max)
		}
		f.payload, f.got = make([]byte, size), 0
	}
	for f.got < len(f.payload) {
		n, err := f.r.Read(f.payload[f.got:])
		f.got += n
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, 0, nil, err
		}
	}
	kind, id, payload = f.hdr[4], binary.BigEndian.Uint64(f.hdr[5:]), f.payload
	f.n, f.payload, f.got = 0, nil, 0
	return kind, id, payload, nil
}

// DirectPair makes the socket pair of a direct channel: the host's end as a connection,
// and the plugin's as a file to pass to the process (cmd.ExtraFiles), for the host to
// close once the process has started. Both are close-on-exec in the host.
func DirectPair() (*net.UnixConn, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("direct channel: %w", err)
	}
	hostFile := os.NewFile(uintptr(fds[0]), "tracecraft-direct-host")
	defer hostFile.Close()
	conn, err := net.FileConn(hostFile)
	if err != nil {
		syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("direct channel: %w", err)
	}
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		conn.Close()
		syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("direct channel: unexpected connection type %T", conn)
	}
	return uc, os.NewFile(uintptr(fds[1]), "tracecraft-direct-plugin"), nil
}

// PluginDirectConn returns the plugin's end of the direct channel that the host passed
// it, or nil if it passed none (an older host) or the descriptor cannot be used. The
// variable is removed from the environment and the descriptor made close-on-exec, so
// that processes the engine starts do not inherit them.
func PluginDirectConn() net.Conn {
	v, ok := os.LookupEnv(DirectEnv)
	if !ok {
		return nil
	}
	os.Unsetenv(DirectEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "tracecraft-direct")
	defer f.Close()
	conn, err := net.FileConn(f)
	if err != nil {
		return nil
	}
	return conn
}
