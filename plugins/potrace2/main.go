// Command tracecraft-engine-potrace2 is the experimental potrace2 engine plugin (colour
// Potrace), launched by the Tracecraft host.
package main

import (
	"github.com/tracecraft/tracecraft/plugins/potrace2/engine"
	"github.com/tracecraft/tracecraft/sdk"
)

func main() { sdk.Serve[engine.Params](engine.New()) }
