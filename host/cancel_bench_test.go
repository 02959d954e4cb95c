package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"golang.org/x/image/draw"
)

// photo4MP returns a 4 MP photograph: the corpus's retina photo scaled to 2000 x 2000
// (Catmull-Rom), else a generated photo-like image.
func photo4MP(b testing.TB) []byte {
	f, err := os.Open(filepath.Join(corpusDir(), "photo", "skimage-retina.png"))
	if err != nil {
		return photoPNG(b, 2000, 2000)
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		b.Fatal(err)
	}
	dst := image.NewNRGBA(image.Rect(0, 0, 2000, 2000))
	draw.CatmullRom.Scale(dst, dst.Rect, src, src.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	if err := png.Encode(&buf, dst); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkCancelFreesTheWorker measures, on a real host with one worker and the
// tracecraft and vtracer engines, how soon a worker is free again after the client of
// a job on a 4 MP photo goes away (closes its connection):
//
//   - running: the client leaves at a random moment of the trace; a small job queued
//     behind it starts once the engine has stopped and said so (the Idle call). The
//     time from leaving to that start is free-ms (its percentiles): the small job's
//     queue time (from its answer) counted from when /api/health showed it queued, so
//     at most the health request's few milliseconds late.
//   - queued: a second 4 MP job waits behind a running one and its client leaves; the
//     time until /api/health no longer counts it is leave-ms (polled every
//     millisecond, so within about a millisecond).
//
// kills counts the engine processes killed because a cancelled job did not stop within
// the cancel grace. Run it with -benchtime=Nx for N cancellations per engine.
func BenchmarkCancelFreesTheWorker(b *testing.B) {
	h := startHost(b, bundledPlugins(b, "tracecraft", "vtracer"), "", "--workers", "1", "--queue", "8")
	photo, small := photo4MP(b), photoPNG(b, 16, 16)
	for _, engine := range []string{"tracecraft", "vtracer"} {
		b.Run(engine, func(b *testing.B) {
			settings := fmt.Sprintf(`{"engine":%q}`, engine)
			// One whole trace, to know how long one takes.
			start := time.Now()
			if r := h.vectorize(photo, settings); r.status != 200 {
				b.Fatalf("a whole trace: %s", r)
			}
			whole := time.Since(start)
			b.Logf("one whole trace: %v", whole.Round(time.Millisecond))
			finished := 0
			rng := rand.New(rand.NewSource(1))
			kills0 := len(killedProcess.FindAllString(h.log.String(), -1))
			var free, leave []time.Duration
			for b.Loop() {
				job := h.send(photo, settings, "")
				h.waitLane(b, "public", 1, 0)
				// A queued 4 MP job whose client leaves.
				queued := h.send(photo, settings, "")
				h.waitLane(b, "public", 1, 1)
				queued.cancel()
				left := time.Now()
				for h.lane("public")["queued"] != 0.0 {
					time.Sleep(time.Millisecond)
				}
				leave = append(leave, time.Since(left))
				next := h.send(small, settings, "")
				h.waitLane(b, "public", 1, 1)
				queuedBy := time.Now() // the small job was in the queue by then
				// Leave the running job at a random moment of its trace (the upload and
				// decode come first).
				time.Sleep(time.Duration(rng.Int63n(int64(whole) * 8 / 10)))
				gone := time.Now()
				job.cancel()
				r := next.wait(b)
				if r.status != 200 {
					b.Fatalf("the job behind the cancelled one: %s", r)
				}
				tm, _ := r.json["timings"].(map[string]any)
				queueMs, _ := tm["queueMs"].(float64)
				<-queued.done
				if left := <-job.done; left.status == 200 {
					finished++ // the job ended before its client left: nothing to measure
					continue
				}
				free = append(free, queuedBy.Add(time.Duration(queueMs*float64(time.Millisecond))).Sub(gone))
			}
			b.Logf("%d jobs ended before their client left", finished)
			report(b, "free", free)
			report(b, "leave", leave)
			b.ReportMetric(float64(len(killedProcess.FindAllString(h.log.String(), -1))-kills0), "kills")
		})
	}
}

// report reports the 50th and 90th percentiles and the maximum of ds, in ms.
func report(b *testing.B, name string, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(percentile(ds, 50), name+"-p50-ms")
	b.ReportMetric(percentile(ds, 90), name+"-p90-ms")
	b.ReportMetric(percentile(ds, 100), name+"-max-ms")
	b.Logf("%s (ms): %v", name, ds)
}
