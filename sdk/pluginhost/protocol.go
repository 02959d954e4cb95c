package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

// Handshake is the go-plugin handshake the host and every plugin share, for tools that
// speak the protocol by hand (the tests' engine of an unknown protocol version).
var Handshake = wire.Handshake

// ProtocolVersion is the newest host-plugin protocol version the host speaks (N).
const ProtocolVersion = wire.ProtocolVersion

// OldestProtocol is the oldest protocol version the host speaks (N-1): engines built
// with the previous sdk release keep working.
const OldestProtocol = wire.OldestProtocol

// MaxMessageBytes bounds one protocol message, and so the SVG an engine can return.
const MaxMessageBytes = wire.MaxMessageBytes

// ValidEngineName reports whether name can name an engine: lower-case letters, digits,
// '-' and '_', starting with a letter, at most 32 bytes, and not a reserved settings key.
func ValidEngineName(name string) bool { return wire.ValidEngineName(name) }

// hostPlugins returns the plugin sets of every protocol version the host speaks, N and
// N-1; go-plugin negotiates the newest the plugin also speaks.
func hostPlugins() map[int]plugin.PluginSet {
	sets := map[int]plugin.PluginSet{}
	for v := OldestProtocol; v <= ProtocolVersion; v++ {
		sets[v] = plugin.PluginSet{wire.PluginName: &grpcPlugin{}}
	}
	return sets
}

// pluginVersion finds the plugin's protocol version in go-plugin's handshake error.
var pluginVersion = regexp.MustCompile(`Plugin version: (\d+)`)

// VersionError is a failed handshake that was a protocol mismatch. Its message says
// which protocol the plugin speaks and which sdk release to rebuild it with, and holds
// no file paths, so a host may show it publicly.
type VersionError struct {
	// Protocol is the protocol version the plugin speaks.
	Protocol int
	msg      string
}

// Error returns the explanation.
func (e *VersionError) Error() string { return e.msg }

// versionError returns err as a *VersionError when go-plugin's handshake error shows a
// protocol mismatch, else err itself.
func versionError(err error) error {
	m := pluginVersion.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	v, _ := strconv.Atoi(m[1])
	hint := fmt.Sprintf("rebuild the engine with sdk release %s", wire.SDKRelease(ProtocolVersion))
	if v > ProtocolVersion {
		hint += ", or upgrade the host to one that speaks protocol " + m[1]
	}
	return &VersionError{Protocol: v, msg: fmt.Sprintf("the engine speaks protocol %d, this host protocols %d to %d (sdk releases %s to %s): %s",
		v, OldestProtocol, ProtocolVersion, wire.SDKRelease(OldestProtocol), wire.SDKRelease(ProtocolVersion), hint)}
}

// grpcPlugin binds the v1 gRPC service to go-plugin, on the host side.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

// GRPCServer is the plugin side's (package sdk), never called in the host.
func (p *grpcPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the host side of the protocol serves no engine")
}

// GRPCClient returns the protocol client.
func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return tracev1.NewEngineClient(c), nil
}

// statusCode returns the gRPC status code of err, or codes.Unknown.
func statusCode(err error) codes.Code {
	if s, ok := status.FromError(err); ok {
		return s.Code()
	}
	return codes.Unknown
}

// This part holds the host side's adapters from the generated protocol types to the
// sdk's Go types; the plugin side's are in package sdk.

var paramTypes = map[sdk.ParamType]tracev1.ParamType{
	sdk.Number:  tracev1.ParamType_PARAM_TYPE_NUMBER,
	sdk.Enum:    tracev1.ParamType_PARAM_TYPE_ENUM,
	sdk.Boolean: tracev1.ParamType_PARAM_TYPE_BOOLEAN,
	sdk.String:  tracev1.ParamType_PARAM_TYPE_STRING,
	sdk.List:    tracev1.ParamType_PARAM_TYPE_LIST,
}

func descriptorFromProto(r *tracev1.DescribeResponse) sdk.Descriptor {
	d := sdk.Descriptor{Name: r.GetName(), Version: r.GetVersion(), Description: r.GetDescription()}
	switch r.GetStability() {
	case tracev1.Stability_STABILITY_STABLE:
		d.Stability = sdk.Stable
	case tracev1.Stability_STABILITY_EXPERIMENTAL:
		d.Stability = sdk.Experimental
	}
	for _, pp := range r.GetParams() {
		p := sdk.Param{
			Name: pp.GetName(), Description: pp.GetDescription(),
			Min: pp.GetMin(), Max: pp.GetMax(), Step: pp.GetStep(), Integer: pp.GetInteger(),
			Values: pp.GetValues(), Format: pp.GetFormat(), MaxLength: int(pp.GetMaxLength()),
			MaxItems: int(pp.GetMaxItems()),
		}
		for t, pt := range paramTypes {
			if pt == pp.GetType() {
				p.Type = t
			}
		}
		if pp.Default != nil {
			p.Default = wire.ValueFromProto(pp.Default)
		}
		d.Params = append(d.Params, p)
	}
	return d
}

func paramsToProto(given map[string]any) (map[string]*tracev1.Value, error) {
	out := make(map[string]*tracev1.Value, len(given))
	for _, k := range slices.Sorted(maps.Keys(given)) {
		v, err := wire.ValueToProto(given[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// ParamValues returns the value of every parameter of d for a trace with the given
// parameters (already checked with d.CheckValues): the given value, else the default.
// A parameter with neither is left out.
func ParamValues(d sdk.Descriptor, given map[string]any) map[string]any {
	out := make(map[string]any, len(d.Params))
	for _, p := range d.Params {
		if v, ok := given[p.Name]; ok {
			out[p.Name] = v
		} else if p.Default != nil {
			out[p.Name] = p.Default
		}
	}
	return out
}
