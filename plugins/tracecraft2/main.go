// Command tracecraft-engine-tracecraft2 is the experimental tracecraft2 engine plugin
// (primitive recognition, smallest files), launched by the Tracecraft host.
package main

import (
	"github.com/tracecraft/tracecraft/plugins/tracecraft2/engine"
	"github.com/tracecraft/tracecraft/sdk"
)

func main() { sdk.Serve[engine.Params](engine.New()) }
