package pluginhost_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/sdk/pluginhost"
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
		// The image as bytes, which the client copies into its own file for the plugin.
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			transportCost(b, c, pluginhost.TraceRequest{Image: data})
			b.ReportMetric(float64(len(data))/1e6, "file-MB")
		})
		// The image already in an ImageFile, as the host reads uploads: no copy at all.
		b.Run(size.name+"/file", func(b *testing.B) {
			f, err := pluginhost.NewImageFile(int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			if over, err := f.Fill(bytes.NewReader(data)); over || err != nil {
				b.Fatal(over, err)
			}
			transportCost(b, c, pluginhost.TraceRequest{File: f})
		})
	}
	// A 1 px image, traced at once or after the plugin has slept 10 ms: the protocol's
	// fixed cost, and how much of it is waking two idle processes again (on a virtual
	// machine whose idle cores sleep, that alone can cost more than the rest).
	var dot bytes.Buffer
	if err := png.Encode(&dot, image.NewNRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		b.Fatal(err)
	}
	for _, idle := range []int{0, 10} {
		b.Run(fmt.Sprintf("1px/after-%dms", idle), func(b *testing.B) {
			transportCost(b, c, pluginhost.TraceRequest{Image: dot.Bytes(), Params: map[string]any{"action": "sleep", "ms": idle}})
		})
	}
	// The same for an Analyze call (preset auto's first call), the plugin's own decode
	// and measurement subtracted.
	b.Run("analyze/1px", func(b *testing.B) {
		var cost []time.Duration
		for b.Loop() {
			start := time.Now()
			a, err := c.Analyze(context.Background(), pluginhost.AnalyzeRequest{Image: dot.Bytes()})
			if err != nil {
				b.Fatal(err)
			}
			cost = append(cost, time.Since(start)-a.Took)
		}
		sort.Slice(cost, func(i, j int) bool { return cost[i] < cost[j] })
		b.ReportMetric(float64(cost[len(cost)/2].Microseconds())/1000, "transport-p50-ms")
	})
}

// transportCost runs req until the benchmark ends and reports the median of the call's
// time minus the plugin's own decode and trace.
func transportCost(b *testing.B, c *pluginhost.Client, req pluginhost.TraceRequest) {
	var cost []time.Duration
	for b.Loop() {
		start := time.Now()
		r, err := c.Trace(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		cost = append(cost, time.Since(start)-r.Decode-r.Trace)
	}
	sort.Slice(cost, func(i, j int) bool { return cost[i] < cost[j] })
	b.ReportMetric(float64(cost[len(cost)/2].Microseconds())/1000, "transport-p50-ms")
}
