package sdk

import (
	"context"
	"errors"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

// Version is the version of this sdk, reported by plugins in their description.
const Version = wire.SDKVersion

// versionedPlugins returns the plugin set of the protocol version this sdk serves with
// s: the newest; the host keeps serving the one before (see the README's protocol
// policy).
func versionedPlugins(s *server) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		wire.PluginProtocol(): {wire.PluginName: &grpcPlugin{server: s}},
	}
}

// grpcPlugin binds the gRPC service (the same for protocols 1 and 2) to go-plugin, on the
// plugin side. Its server is the one the direct channel also calls, so that one job runs
// at a time whichever way it came.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	server *server
}

// GRPCServer registers the engine's service.
func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	tracev1.RegisterEngineServer(s, p.server)
	return nil
}

// GRPCClient is the host side's (package sdk/pluginhost), never called in a plugin.
func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("the engine side of the protocol has no client")
}
