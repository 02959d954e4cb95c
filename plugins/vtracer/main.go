// Command vtracer is the vtracer engine plugin of Tracecraft: VTracer's colour tracer,
// run by the host as a plugin process.
package main

import (
	"github.com/tracecraft/tracecraft/plugins/vtracer/engine"
	"github.com/tracecraft/tracecraft/sdk"
)

func main() { sdk.Serve[engine.Params](engine.New()) }
