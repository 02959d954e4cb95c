// Command tracecraft-engine-tracecraft is the tracecraft engine plugin.
package main

import (
	"github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	"github.com/tracecraft/tracecraft/sdk"
)

func main() { sdk.Serve[engine.Params](engine.New()) }
