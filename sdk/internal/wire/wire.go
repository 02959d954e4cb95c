// Package wire holds what both ends of the host-plugin protocol must agree on: the
// go-plugin handshake, the protocol versions, message and transport limits, the
// conversion of parameter values to and from the generated protocol types, and how a
// plugin reads an image handed over as a file. Package sdk (the plugin side) and package
// sdk/pluginhost (the host side) both use it; neither imports the other's internals.
package wire

import (
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/hashicorp/go-plugin"
	"golang.org/x/sys/unix"

	"github.com/tracecraft/tracecraft/sdk/internal/coded"
	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
)

// SDKVersion is the version of the sdk a plugin was built with, reported in its
// description (and shown by the host in /api/health). 2.0.0 brought typed parameters;
// 2.1.0 the Idle call, which lets the host keep a process whose job it cancelled; 2.2.0
// list parameters (sdk.List), which a plugin describes only to a host that says it
// understands them (DescribeRequest.lists), so both older hosts and older plugins keep
// working; 2.3.0 the image measures texture_share and top16_fine_share (package
// analysis), which the host's auto uses when an engine reports them; 2.4.0 leaves out
// its own check of the SVG when the host says it checks it (TraceRequest.
// host_checks_output), instead of making the answer wait for the same check twice;
// 2.5.0 serves Trace and Analyze on the direct channel the host passes it
// (DescribeResponse.direct_calls; see direct.go).
const SDKVersion = "2.5.0"

// The protocol policy: the host serves the newest protocol version N and the one before
// it, N-1, side by side (go-plugin's versioned plugins, negotiated in the handshake), so
// engines built with the previous sdk release keep working for one more release. A
// plugin serves the newest version of its sdk.
const (
	// ProtocolVersion is N, the protocol of this sdk release.
	ProtocolVersion = 2
	// OldestProtocol is N-1, the oldest protocol the host still serves.
	OldestProtocol = ProtocolVersion - 1
)

// SDKRelease names the sdk release line that speaks a protocol version, for the error a
// host gives a plugin it cannot speak to. Protocol 2 carries the same messages as
// protocol 1; its number moved with the sdk's major version, whose engines decode typed
// parameters.
func SDKRelease(protocol int) string {
	return strconv.Itoa(protocol) + ".x"
}

// servedProtocol and reportedSDK, when set at link time
// (-X github.com/tracecraft/tracecraft/sdk/internal/wire.servedProtocol=1), make a plugin
// serve that protocol only and report that sdk version: the tests build an engine as the
// previous sdk release did.
var servedProtocol, reportedSDK string

// PluginProtocol is the protocol version a plugin of this sdk serves.
func PluginProtocol() int {
	if n, err := strconv.Atoi(servedProtocol); err == nil {
		return n
	}
	return ProtocolVersion
}

// ServesDirect reports whether a plugin of this sdk serves the direct channel: not one
// built as an earlier release (reportedSDK set at link time), which did not.
func ServesDirect() bool { return reportedSDK == "" }

// ReportedSDKVersion is the sdk version a plugin reports in its description.
func ReportedSDKVersion() string {
	if reportedSDK != "" {
		return reportedSDK
	}
	return SDKVersion
}

// MaxMessageBytes bounds one protocol message. A 10 MB upload or a 40-megapixel image
// fits easily; the bound is for the SVG coming back, which for a photograph can be
// many times the input.
const MaxMessageBytes = 512 << 20

// PluginName is the name under which the engine is dispensed.
const PluginName = "engine"

// Handshake is the go-plugin handshake shared by the host and every plugin. The magic
// cookie is not a secret: it only stops a user from running a plugin binary by hand
// by mistake.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "TRACECRAFT_PLUGIN_COOKIE",
	MagicCookieValue: "5e0c1f7a-trace-svg-engine",
}

// Transport tuning for the local connection between host and plugin: an image of
// several megabytes crosses it in one message, so HTTP/2 flow-control windows large
// enough for a whole image spare the round trips of window updates, and larger socket
// buffers mean fewer system calls.
const (
	FlowWindow = 16 << 20
	IOBuffer   = 256 << 10
)

// CodeNoKeptImage is the failure of a Trace with use_kept when no image is kept.
const CodeNoKeptImage = "no_kept_image"

// CodeImageFileUnreadable is the failure a plugin answers when it cannot read the image
// file it was given; the host then sends the image in the message instead.
const CodeImageFileUnreadable = "image_file_unreadable"

var engineName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// reservedNames cannot be engine names: they are settings keys or the auto selector.
var reservedNames = map[string]bool{"auto": true, "preset": true, "engine": true, "none": true, "output": true, "background": true}

// ValidEngineName reports whether name can name an engine: lower-case letters, digits,
// '-' and '_', starting with a letter, at most 32 bytes, and not a reserved settings key.
func ValidEngineName(name string) bool {
	return engineName.MatchString(name) && !reservedNames[name]
}

// ValueToProto converts a parameter value (float64, int, string, bool, or a list of
// strings as []string or []any) to the protocol's form.
func ValueToProto(v any) (*tracev1.Value, error) {
	switch x := v.(type) {
	case []string:
		return &tracev1.Value{Kind: &tracev1.Value_List{List: &tracev1.StringList{Items: x}}}, nil
	case []any:
		items := make([]string, len(x))
		for i, it := range x {
			s, ok := it.(string)
			if !ok {
				return nil, fmt.Errorf("list item %d, %v of type %T, is not a string", i, it, it)
			}
			items[i] = s
		}
		return &tracev1.Value{Kind: &tracev1.Value_List{List: &tracev1.StringList{Items: items}}}, nil
	case float64:
		return &tracev1.Value{Kind: &tracev1.Value_Number{Number: x}}, nil
	case int:
		return &tracev1.Value{Kind: &tracev1.Value_Number{Number: float64(x)}}, nil
	case string:
		return &tracev1.Value{Kind: &tracev1.Value_Text{Text: x}}, nil
	case bool:
		return &tracev1.Value{Kind: &tracev1.Value_Flag{Flag: x}}, nil
	}
	return nil, fmt.Errorf("parameter value %v of type %T is not a number, string, boolean or list of strings", v, v)
}

// ValueFromProto converts a protocol value to float64, string, bool or []string (nil if
// unset).
func ValueFromProto(v *tracev1.Value) any {
	switch k := v.GetKind().(type) {
	case *tracev1.Value_List:
		return append([]string{}, k.List.GetItems()...)
	case *tracev1.Value_Number:
		return k.Number
	case *tracev1.Value_Text:
		return k.Text
	case *tracev1.Value_Flag:
		return k.Flag
	}
	return nil
}

// mapImageFile maps the file at path read-only and returns its bytes, or the n bytes at
// off when n is not 0, with the function that unmaps them. The bytes must not be used
// after unmapping.
func mapImageFile(path string, off, n uint64) ([]byte, func(), error) {
	// The file is opened, measured and mapped with plain system calls: an *os.File would
	// add the poller's registration (refused for a memfd) and, for Fd, two fcntl calls
	// to make it blocking again.
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	size := uint64(st.Size)
	if n == 0 {
		off, n = 0, size
	}
	switch {
	case off > size || n > size-off:
		return nil, nil, fmt.Errorf("%d bytes at %d are outside the image file's %d", n, off, size)
	case n == 0:
		return nil, func() {}, nil
	case n > MaxMessageBytes:
		return nil, nil, fmt.Errorf("image of %d bytes is over the %d byte limit", n, MaxMessageBytes)
	}
	// Mappings start on a page boundary.
	start := off &^ uint64(os.Getpagesize()-1)
	m, err := unix.Mmap(fd, int64(start), int(n+off-start), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return m[off-start:], func() { _ = unix.Munmap(m) }, nil
}

// RequestImage returns the image of a request: inline, or mapped from its file (the n
// bytes at off when n is not 0).
func RequestImage(inline []byte, file string, off, n uint64) ([]byte, func(), error) {
	if file == "" {
		return inline, func() {}, nil
	}
	data, unmap, err := mapImageFile(file, off, n)
	if err != nil {
		return nil, nil, coded.Errorf(CodeImageFileUnreadable, "cannot read the image file: %v", err)
	}
	return data, unmap, nil
}
