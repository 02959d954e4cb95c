package sdk

import (
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

// ServeOption configures Serve.
type ServeOption func(*serveConfig)

type serveConfig struct {
	logger      hclog.Logger
	parentCheck time.Duration
}

// WithServeLogger replaces the logger Serve gives the engine. By default it writes JSON
// lines to stderr, which the host parses and writes into its own log.
func WithServeLogger(l hclog.Logger) ServeOption {
	return func(c *serveConfig) { c.logger = l }
}

// Serve runs e as a Tracecraft engine plugin and returns only when the host tells the
// plugin to stop. Call it from main:
//
//	func main() { sdk.Serve[myengine.Params](myengine.New()) }
//
// Run by hand rather than by the host, the binary says so and exits with status 1. The
// process also exits if its parent (the host) goes away, so plugin processes never
// outlive the host.
func Serve[P any](e Engine[P], opts ...ServeOption) {
	cfg := serveConfig{parentCheck: 500 * time.Millisecond}
	for _, o := range opts {
		o(&cfg)
	}
	b, bindErr := bind(e)
	desc := b.desc
	if cfg.logger == nil {
		cfg.logger = hclog.New(&hclog.LoggerOptions{
			Name:       desc.Name,
			Level:      hclog.Info,
			Output:     os.Stderr,
			JSONFormat: true,
		})
	}
	if bindErr != nil {
		// Nothing can be traced: the parameters cannot be decoded.
		cfg.logger.Error("engine parameters are invalid", "error", bindErr)
		os.Exit(1)
	}
	if err := desc.Validate(); err != nil {
		// Serve anyway: the host validates the description too and logs why it skips the
		// plugin, which is where an operator looks.
		cfg.logger.Error("engine description is invalid", "error", err)
	}
	if os.Getenv(wire.Handshake.MagicCookieKey) != wire.Handshake.MagicCookieValue {
		fmt.Fprintf(os.Stderr, "%s is a Tracecraft engine plugin (%s %s): the tracecraft host starts it; it is not meant to be run by hand.\n",
			os.Args[0], desc.Name, desc.Version)
		os.Exit(1)
	}
	go watchParent(os.Getppid(), cfg.parentCheck)
	srv := newServer(b, cfg.logger)
	if conn := wire.PluginDirectConn(); conn != nil && wire.ServesDirect() {
		// Before the handshake, so that the description says so from the first call.
		srv.direct = true
		go srv.serveDirect(conn)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: versionedPlugins(srv),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, grpc.MaxRecvMsgSize(wire.MaxMessageBytes), grpc.MaxSendMsgSize(wire.MaxMessageBytes),
				grpc.InitialWindowSize(wire.FlowWindow), grpc.InitialConnWindowSize(wire.FlowWindow),
				grpc.ReadBufferSize(wire.IOBuffer), grpc.WriteBufferSize(wire.IOBuffer))
			return grpc.NewServer(opts...)
		},
		Logger: cfg.logger,
	})
}

// watchParent exits the process when its parent changes, which happens when the host
// dies without killing its plugins. The host also asks the kernel to kill plugins when
// it dies (Pdeathsig); this is the fallback for plugins started any other way.
func watchParent(parent int, every time.Duration) {
	for range time.Tick(every) {
		if os.Getppid() != parent {
			os.Exit(2)
		}
	}
}
