package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
)

// corpusImages returns the bench corpus's images, every category, sorted by path.
func corpusImages(b testing.TB) [][]byte {
	paths, _ := filepath.Glob(filepath.Join(corpusDir(), "*", "*.png"))
	sort.Strings(paths)
	var imgs [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		imgs = append(imgs, data)
	}
	if len(imgs) == 0 {
		b.Skipf("no images in the corpus at %s (set TRACECRAFT_CORPUS)", corpusDir())
	}
	return imgs
}

// overloadClient is one client of the overload: what it sent, what it was told, and
// what became of its retry.
type overloadClient struct {
	img int
	// refused is when its first attempt was refused (from the burst's start), told
	// the Retry-After it got; zero told: admitted at once.
	refused time.Duration
	told    int
	// retried says whether the retry was admitted; job is the time its job held a
	// worker (from the answer's timings), when admitted.
	retried bool
	job     time.Duration
}

// BenchmarkRetryAfterUnderOverload measures how honest Retry-After is. A real host with
// the bundled tracecraft, vtracer and potrace engines (auto) has --workers 2 --queue 8:
// 10 places in the public lane. After one trace of each corpus image (so the lane
// knows recent job times), 10 times as many clients as places send a corpus image each,
// all at once (mixed: logos, line art, posters, photos, in turn). Each refused client
// waits exactly its Retry-After and retries once. Reported:
//
//   - admitted-%: the share of refused clients whose retry got in;
//   - told-p50-s and friends: the Retry-After the refused clients were told;
//   - enough-p50-s: the wait that would have sufficed. A place frees when a job
//     finishes; had every refused client come back just as its place freed, in the
//     order they were refused, the lane would never have idled. Replaying that lane
//     with the jobs' measured times (the answers' total less queue time; for a retry
//     refused again, its image's time for another client, or alone times the median
//     slowdown) gives each client the moment
//     its place freed, less the moment it was refused;
//   - ratio-p50: the median of Retry-After over that wait (the issue asks for at most 2).
//
// Run it with -benchtime=1x; it writes a line per refused client on stderr.
func BenchmarkRetryAfterUnderOverload(b *testing.B) {
	const workers, queue = 2, 8
	h := startHost(b, bundledPlugins(b, "tracecraft", "vtracer", "potrace"), "",
		"--workers", strconv.Itoa(workers), "--queue", strconv.Itoa(queue))
	imgs := corpusImages(b)
	// Warm-up: each image once, which also gives its job time.
	warm := make([]time.Duration, len(imgs))
	for i, img := range imgs {
		r := h.vectorize(img, "")
		if r.status != 200 {
			b.Fatalf("warm-up of image %d: %s", i, r)
		}
		warm[i] = serverPart(r)
	}
	for b.Loop() {
		n := 10 * (workers + queue)
		clients := make([]overloadClient, n)
		var admitted []time.Duration // the jobs admitted at once, their times
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := time.Now()
		for i := range clients {
			c := &clients[i]
			c.img = i % len(imgs)
			wg.Go(func() {
				r := h.vectorize(imgs[c.img], "")
				switch {
				case r.status == 200:
					mu.Lock()
					admitted = append(admitted, serverPart(r))
					mu.Unlock()
					return
				case r.status != 429:
					b.Errorf("client %d: %s", i, r)
					return
				}
				c.refused = time.Since(start)
				c.told, _ = strconv.Atoi(r.header.Get("Retry-After"))
				time.Sleep(time.Duration(c.told) * time.Second)
				r = h.vectorize(imgs[c.img], "")
				c.retried = r.status == 200
				if c.retried {
					c.job = serverPart(r)
				}
			})
		}
		wg.Wait()
		// How much slower a job ran in the overload than alone in the warm-up. A retry
		// refused again ran no job: it is taken to need the time its image took for
		// another client in the overload, or its time alone that much slower.
		var slow []float64
		during := map[int]time.Duration{}
		for _, c := range clients {
			if c.retried {
				slow = append(slow, float64(c.job)/float64(warm[c.img]))
				during[c.img] = c.job
			}
		}
		sort.Float64s(slow)
		slowdown := 1.0
		if len(slow) > 0 {
			slowdown = slow[len(slow)/2]
		}
		b.ReportMetric(slowdown, "slowdown-p50")
		for i := range clients {
			if c := &clients[i]; c.told > 0 && !c.retried {
				if d, ok := during[c.img]; ok {
					c.job = d
				} else {
					c.job = time.Duration(float64(warm[c.img]) * slowdown)
				}
			}
		}
		reportOverload(b, workers, admitted, clients)
	}
}

// reportOverload computes and reports the figures of BenchmarkRetryAfterUnderOverload.
func reportOverload(b *testing.B, workers int, admitted []time.Duration, clients []overloadClient) {
	var refused []*overloadClient
	for i := range clients {
		if clients[i].told > 0 {
			refused = append(refused, &clients[i])
		}
	}
	if len(refused) == 0 {
		b.Fatal("no client was refused")
	}
	sort.SliceStable(refused, func(i, j int) bool { return refused[i].refused < refused[j].refused })
	// The ideal lane: the jobs admitted at once on the workers, then each refused
	// client's job joins when a job finishes (a place frees), in the order refused.
	free := make([]time.Duration, workers) // when each worker is next free
	var finishes []time.Duration
	run := func(at, d time.Duration) {
		w := 0
		for i := range free {
			if free[i] < free[w] {
				w = i
			}
		}
		begin := max(at, free[w])
		free[w] = begin + d
		finishes = append(finishes, begin+d)
	}
	for _, d := range admitted {
		run(0, d)
	}
	var told, enough []time.Duration
	var ratios []float64
	in := 0
	for k, c := range refused {
		// Its place is the k-th to free: the k-th finish, jobs joining in order.
		sort.Slice(finishes, func(i, j int) bool { return finishes[i] < finishes[j] })
		place := finishes[k]
		run(place, c.job)
		wait := max(place-c.refused, time.Millisecond)
		told = append(told, time.Duration(c.told)*time.Second)
		enough = append(enough, wait)
		ratios = append(ratios, float64(c.told)*float64(time.Second)/float64(wait))
		if c.retried {
			in++
		}
		fmt.Fprintf(os.Stderr, "client %3d (image %2d, job %6.3f s) refused at %6.3f s: told %3d s, enough %7.3f s, retry admitted %v\n",
			k, c.img, c.job.Seconds(), c.refused.Seconds(), c.told, wait.Seconds(), c.retried)
	}
	sort.Slice(told, func(i, j int) bool { return told[i] < told[j] })
	sort.Slice(enough, func(i, j int) bool { return enough[i] < enough[j] })
	sort.Float64s(ratios)
	b.ReportMetric(100*float64(in)/float64(len(refused)), "admitted-%")
	b.ReportMetric(float64(len(refused)), "refused")
	for _, p := range []float64{10, 50, 90} {
		name := "p" + strconv.Itoa(int(p))
		b.ReportMetric(percentile(told, p)/1000, "told-"+name+"-s")
		b.ReportMetric(percentile(enough, p)/1000, "enough-"+name+"-s")
		b.ReportMetric(ratios[int(float64(len(ratios)-1)*p/100)], "ratio-"+name)
	}
}
