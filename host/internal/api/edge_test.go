package api

import (
	"context"
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
	vtracer "github.com/tracecraft/tracecraft/plugins/vtracer/engine"
	"github.com/tracecraft/tracecraft/sdk"
)

// photoAnswer returns a tracing answer as the host sends it for a photo: the bench
// corpus's astronaut traced by vtracer at its defaults ($TRACECRAFT_CORPUS, or
// ../shared/bench/corpus), or a generated photo-like image when the corpus is absent.
func photoAnswer(b *testing.B) []byte {
	b.Helper()
	corpus := os.Getenv("TRACECRAFT_CORPUS")
	if corpus == "" {
		corpus = filepath.Join(testbin.Root(), "..", "shared", "bench", "corpus")
	}
	var img *image.NRGBA
	if f, err := os.Open(filepath.Join(corpus, "photo", "skimage-astronaut.png")); err == nil {
		src, err := png.Decode(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		img = image.NewNRGBA(src.Bounds())
		draw.Draw(img, img.Rect, src, src.Bounds().Min, draw.Src)
	} else {
		b.Logf("no bench corpus at %s: tracing a generated image", corpus)
		img = image.NewNRGBA(image.Rect(0, 0, 512, 512))
		rng := rand.New(rand.NewSource(1))
		for i := range img.Pix {
			img.Pix[i] = uint8((i/4)%512/2 + rng.Intn(24))
			if i%4 == 3 {
				img.Pix[i] = 255
			}
		}
	}
	p, problems := sdk.Decode[vtracer.Params](nil)
	if problems != nil {
		b.Fatal(problems)
	}
	svg, err := vtracer.New().Trace(context.Background(), img, p)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"svg": string(svg), "engine": "vtracer", "svgSize": len(svg)})
	return body
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCompress measures the CPU the answer compression costs: one goroutine sends
// a photo's JSON answer through the compressing handler, with each encoding a client
// may ask for. MB/s is of the answer before compression; cpu-ms/MB is the process's CPU
// time (user and system, all threads) per MiB of answer, steadier than wall time on a
// busy machine.
func BenchmarkCompress(b *testing.B) {
	body := photoAnswer(b)
	h := compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	}))
	for _, enc := range []string{"identity", "gzip", "zstd"} {
		b.Run(enc, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			var wire int
			cpu0 := cpuTime(b)
			for b.Loop() {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodGet, "/", nil)
				req.Header.Set("Accept-Encoding", enc)
				h.ServeHTTP(rec, req)
				wire = rec.Body.Len()
				_, _ = io.Copy(io.Discard, rec.Body)
			}
			b.ReportMetric(float64(wire), "wire-bytes")
			b.ReportMetric(float64(len(body)), "answer-bytes")
			mb := float64(len(body)) / (1 << 20)
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/1000/float64(b.N)/mb, "cpu-ms/MB")
		})
	}
}
