package sdk_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/sdk"
)

// BenchmarkTraceTransport times Client.Trace with a real plugin process and subtracts
// what the plugin reports for decoding and tracing: what remains is the protocol's cost
// of carrying the image there and the SVG back.
func BenchmarkTraceTransport(b *testing.B) {
	c := start(b, "")
	for _, size := range []struct {
		name string
		w, h int
	}{{"0.25MP", 500, 500}, {"4MP", 2000, 2000}} {
		img := image.NewNRGBA(image.Rect(0, 0, size.w, size.h))
		rng := rand.New(rand.NewSource(1))
		for i := range img.Pix {
			img.Pix[i] = uint8(i/4%size.w) + uint8(rng.Intn(8))
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var cost []time.Duration
			for b.Loop() {
				start := time.Now()
				r, err := c.Trace(context.Background(), sdk.TraceRequest{Image: data})
				if err != nil {
					b.Fatal(err)
				}
				cost = append(cost, time.Since(start)-r.Decode-r.Trace)
			}
			sort.Slice(cost, func(i, j int) bool { return cost[i] < cost[j] })
			b.ReportMetric(float64(cost[len(cost)/2].Microseconds())/1000, "transport-p50-ms")
			b.ReportMetric(float64(len(data))/1e6, "file-MB")
		})
	}
}
