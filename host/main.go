// Command tracecraft is the Tracecraft host: the HTTP tracing service, the API key
// administration and a one-shot tracer, all running the engine plugins of a folder.
//
//	tracecraft serve [flags]                       run the HTTP service
//	tracecraft keys create --name NAME             issue an API key (printed alone on stdout)
//	tracecraft keys list                           list keys (never the keys themselves)
//	tracecraft keys revoke NAME                    revoke a key; a running server honours it at once
//	tracecraft trace [--settings JSON] IN > OUT    trace one image without a server
//	tracecraft trace -j N -o DIR IN... | FOLDER    trace several images into DIR
//
// Every flag can also be set with the environment variable TRACECRAFT_<FLAG> (upper
// case, dashes as underscores); a flag on the command line wins.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version is the host's build version, set with -ldflags "-X main.version=...".
var version = "dev"

const usage = `usage:
  tracecraft serve [flags]                      run the HTTP service
  tracecraft keys create --name NAME [flags]    issue an API key; prints it alone on stdout
  tracecraft keys list [flags]                  list keys: name, created, last used, revoked
  tracecraft keys revoke NAME [flags]           revoke a key
  tracecraft trace [--settings JSON] [flags] IN|- [> OUT.svg]
                                                trace one image through the plugins, no server
  tracecraft trace [--settings JSON] [-j N] -o DIR IN... | FOLDER...
                                                trace several images, N at a time, into DIR
  tracecraft version                            print the version

Run "tracecraft COMMAND -h" for a command's flags. Every flag can also be set as the
environment variable TRACECRAFT_<FLAG>, e.g. TRACECRAFT_PLUGINS_DIR.
`

// errUsage marks a command-line mistake: the usage has been printed, exit status 2.
var errUsage = errors.New("usage")

// errHelp means the help was asked for and printed: exit status 0.
var errHelp = errors.New("help")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil, errors.Is(err, errHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "tracecraft:", err)
		os.Exit(1)
	}
}

// run dispatches a command line to its command.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stderr)
	case "keys":
		return keys(ctx, args[1:], stdout, stderr)
	case "trace":
		return trace(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, buildVersion())
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "tracecraft: unknown command %q\n\n%s", args[0], usage)
	return errUsage
}

// buildVersion is version, or the VCS revision the binary was built from.
func buildVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "dev-" + s.Value[:12]
			}
		}
	}
	return version
}
