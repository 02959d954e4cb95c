// Command tracecraft-engine-potrace is the potrace engine plugin, launched by the
// Tracecraft host.
package main

import (
	"github.com/tracecraft/tracecraft/plugins/potrace/engine"
	"github.com/tracecraft/tracecraft/sdk"
)

func main() { sdk.Serve[engine.Params](engine.New()) }
