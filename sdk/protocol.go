package sdk

import (
	"context"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
)

// Version is the version of this sdk, reported by plugins in their description.
const Version = "1.0.0"

// ProtocolVersion is the newest host-plugin protocol version this sdk speaks. The
// version is negotiated in the go-plugin handshake: the host offers every version it
// knows and the plugin picks the newest they share, so old plugins keep working when the
// protocol grows. A plugin of a version the host does not know fails the handshake and
// is skipped by the host.
const ProtocolVersion = 1

// MaxMessageBytes bounds one protocol message. A 10 MB upload or a 40-megapixel image
// fits easily; the bound is for the SVG coming back, which for a photograph can be
// many times the input.
const MaxMessageBytes = 512 << 20

// pluginName is the name under which the engine is dispensed.
const pluginName = "engine"

// Handshake is the go-plugin handshake shared by the host and every plugin. The magic
// cookie is not a secret: it only stops a user from running a plugin binary by hand
// by mistake.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "TRACECRAFT_PLUGIN_COOKIE",
	MagicCookieValue: "5e0c1f7a-trace-svg-engine",
}

// versionedPlugins returns the plugin sets of every protocol version this sdk serves,
// for an engine (plugin side) or for nil (host side).
func versionedPlugins(e Engine, logger hclog.Logger) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		1: {pluginName: &grpcPlugin{engine: e, logger: logger}},
	}
}

// grpcPlugin binds the v1 gRPC service to go-plugin, on both sides.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	engine Engine
	logger hclog.Logger
}

// GRPCServer registers the engine's service (plugin side).
func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	tracev1.RegisterEngineServer(s, newServer(p.engine, p.logger))
	return nil
}

// GRPCClient returns the protocol client (host side).
func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return tracev1.NewEngineClient(c), nil
}

// Transport tuning for the local connection between host and plugin: an image of
// several megabytes crosses it in one message, so HTTP/2 flow-control windows large
// enough for a whole image spare the round trips of window updates, and larger socket
// buffers mean fewer system calls.
const (
	flowWindow = 16 << 20
	ioBuffer   = 256 << 10
)
