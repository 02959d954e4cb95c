// Command tracecraft-engine-centerline is the centerline engine plugin, launched by
// the Tracecraft host.
package main

import (
	"github.com/tracecraft/tracecraft/plugins/centerline/engine"
	"github.com/tracecraft/tracecraft/sdk"
)

func main() { sdk.Serve[engine.Params](engine.New()) }
