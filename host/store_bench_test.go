package main

import (
	"context"
	"fmt"
	"image/color"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/auth"
	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/store/postgres"
	"github.com/tracecraft/tracecraft/host/internal/store/postgres/pgtest"
	"github.com/tracecraft/tracecraft/host/internal/store/sqlite"
	"github.com/tracecraft/tracecraft/internal/testbin"
)

// The store benchmarks measure what a key costs a request on each store: through the
// real host (keyed against public requests of a tiny image), in the store alone (the
// key check and the usage write of one request), and the rate of usage writes the
// store sustains from many concurrent requests.

// storeCase is a store to benchmark: the --db value of a host on it, and how to open it.
type storeCase struct {
	name string
	db   func(b *testing.B) (dsn, dataDir string)
}

var storeCases = []storeCase{
	{"sqlite", func(b *testing.B) (string, string) { return "", b.TempDir() }},
	{"postgres", func(b *testing.B) (string, string) { return pgtest.FreshDatabase(b), b.TempDir() }},
}

// openBenchStore opens the store of a case directly.
func openBenchStore(b *testing.B, sc storeCase) store.Store {
	dsn, dir := sc.db(b)
	var s store.Store
	var err error
	if dsn == "" {
		s, err = sqlite.Open(context.Background(), filepath.Join(dir, store.DefaultFile))
	} else {
		s, err = postgres.Open(context.Background(), dsn)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// ms50and99 sorts ds and returns their 50th and 99th percentiles in milliseconds.
func ms50and99(ds []time.Duration) (float64, float64) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return percentile(ds, 50), percentile(ds, 99)
}

// BenchmarkKeyedRequest sends a tiny image alternately without and with a key to a host
// on each store, one request at a time, and reports the latency both ways and what the
// key adds (verifying it and writing its usage) at the 50th and 99th percentiles.
func BenchmarkKeyedRequest(b *testing.B) {
	img := testbin.SolidPNG(b, 8, 8, color.NRGBA{1, 2, 3, 255})
	for _, sc := range storeCases {
		b.Run(sc.name, func(b *testing.B) {
			dsn, data := sc.db(b)
			flags := []string{"--workers", "1"}
			if dsn != "" {
				flags = append(flags, "--db", dsn)
			}
			h := startHost(b, newPlugins(b, "testengine"), data, flags...)
			args := []string{"keys", "create", "--name", "bench", "--data-dir", data}
			if dsn != "" {
				args = append(args, "--db", dsn)
			}
			out, errOut, code := tracecraft(b, nil, args...)
			if code != 0 {
				b.Fatalf("keys create: %s", errOut)
			}
			key := strings.TrimSpace(out)
			var public, keyed []time.Duration
			send := func(header ...string) time.Duration {
				start := time.Now()
				if r := h.vectorize(img, `{"engine":"testengine"}`, header...); r.status != 200 {
					b.Fatalf("vectorize: %s", r)
				}
				return time.Since(start)
			}
			for range 20 { // warm up the engine process and the connections
				send()
				send("X-API-Key", key)
			}
			for b.Loop() {
				public = append(public, send())
				keyed = append(keyed, send("X-API-Key", key))
			}
			p50, p99 := ms50and99(public)
			k50, k99 := ms50and99(keyed)
			b.ReportMetric(p50, "public-p50-ms")
			b.ReportMetric(p99, "public-p99-ms")
			b.ReportMetric(k50, "keyed-p50-ms")
			b.ReportMetric(k99, "keyed-p99-ms")
			b.ReportMetric(k50-p50, "added-p50-ms")
			b.ReportMetric(k99-p99, "added-p99-ms")
		})
	}
}

// BenchmarkKeyCheckAndUsageWrite times, in the store alone, the two calls a keyed
// request makes: the key check (auth.Keys.Verify) and the usage write (RecordRequest).
func BenchmarkKeyCheckAndUsageWrite(b *testing.B) {
	ctx := context.Background()
	for _, sc := range storeCases {
		b.Run(sc.name, func(b *testing.B) {
			keys := &auth.Keys{Store: openBenchStore(b, sc)}
			plain, _, err := keys.Create(ctx, "bench")
			if err != nil {
				b.Fatal(err)
			}
			var verify, record []time.Duration
			for b.Loop() {
				start := time.Now()
				k, err := keys.Verify(ctx, plain)
				if err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				if err := keys.Store.RecordRequest(ctx, k.ID, store.Request{Status: 200, InputBytes: 1000, OutputBytes: 5000, Pixels: 64, EngineMillis: 2, At: mid}); err != nil {
					b.Fatal(err)
				}
				verify, record = append(verify, mid.Sub(start)), append(record, time.Since(mid))
			}
			v50, v99 := ms50and99(verify)
			r50, r99 := ms50and99(record)
			b.ReportMetric(v50, "verify-p50-ms")
			b.ReportMetric(v99, "verify-p99-ms")
			b.ReportMetric(r50, "record-p50-ms")
			b.ReportMetric(r99, "record-p99-ms")
		})
	}
}

// BenchmarkUsageWriteRate writes usage from 32 goroutines at once, all to one key's day
// (every write contends for the same rows: the worst case) or spread over 32 keys, and
// reports the writes per second the store sustains.
func BenchmarkUsageWriteRate(b *testing.B) {
	const writers = 32
	ctx := context.Background()
	for _, sc := range storeCases {
		for _, spread := range []int{1, writers} {
			b.Run(fmt.Sprintf("%s/keys=%d", sc.name, spread), func(b *testing.B) {
				s := openBenchStore(b, sc)
				ids := make([]int64, spread)
				for i := range ids {
					k, err := s.CreateKey(ctx, fmt.Sprintf("k%d", i), fmt.Sprintf("hash%d", i), "tc_abcd", time.Now())
					if err != nil {
						b.Fatal(err)
					}
					ids[i] = k.ID
				}
				var next atomic.Int64
				b.SetParallelism(max(1, writers/runtime.GOMAXPROCS(0)))
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					id := ids[int(next.Add(1))%spread]
					for pb.Next() {
						if err := s.RecordRequest(ctx, id, store.Request{Status: 200, InputBytes: 1, At: time.Now()}); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
			})
		}
	}
}
