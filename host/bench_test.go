package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/internal/testbin"
)

// The host benchmarks run the real host with the test engine, whose trace is trivial, so
// what they time is the host: HTTP, multipart, validation, queueing, the gRPC hop and
// the engine process's decode. Figures are reported as custom metrics (ms, MB, req/s).

// photoPNG is a w x h image with smooth gradients and mild noise: compressible like a
// photo, so a 4 MP one fits under the 10 MB limit.
func photoPNG(b testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewSource(7))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := img.PixOffset(x, y)
			n := uint8(rng.Intn(8))
			img.Pix[i] = uint8(x*255/w) + n
			img.Pix[i+1] = uint8(y*255/h) + n
			img.Pix[i+2] = uint8((x+y)*127/(w+h)) + n
			img.Pix[i+3] = 255
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// graphicPNG is a w x h image of flat colours, a grid of tiles with a disc over it:
// compressible like a logo or a poster.
func graphicPNG(b testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := min(w, h) * 3 / 10
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := img.PixOffset(x, y)
			c := [4]uint8{uint8(x * 8 / w * 30), uint8(y * 8 / h * 30), 128, 255}
			if dx, dy := x-w/2, y-h/2; dx*dx+dy*dy < r*r {
				c = [4]uint8{200, 30, 30, 255}
			}
			copy(img.Pix[i:i+4], c[:])
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// percentile returns the p-th percentile (0..100) of sorted durations, in ms.
func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return float64(sorted[i].Microseconds()) / 1000
}

// BenchmarkHostOverhead times requests through HTTP and subtracts the engine process's
// own work (decode and trace, as it reports them): what remains is the host's overhead.
// Between its requests it sends the same upload to BenchmarkUploadFloor's bare server,
// under the same load: beyond-floor-p50-ms is the overhead's p50 minus the floor's, what
// the host adds to receiving the upload (the target is at most 1 ms). It also reports
// the time to read the image's header, which the host does itself.
//
// With TRACECRAFT_BENCH_ENGINE=NAME, the bundled engine plugins/NAME traces instead of
// the test engine, whose SVG is a single rectangle: a real engine's SVG (tens to
// hundreds of KB for a photo) brings the host's work that grows with it (the output
// check, JSON escaping, compression: Go's client accepts gzip).
//
// With TRACECRAFT_BENCH_BASE_HOST=PATH, another build of the host (say, main's) serves
// the same requests in turn, in the same run: its figures are reported with a base-
// prefix, for a before and after that the machine's load cannot tell apart; with
// TRACECRAFT_BENCH_BASE_PLUGINS=DIR too, the base host runs the engine binaries of DIR
// (the test engine built from the same commit, so that a change on the sdk's plugin
// side is timed as well). With TRACECRAFT_BENCH_CPU_PROFILE=FILE the host writes a CPU
// profile of the run to FILE. CPU per request (host-cpu-ms, and engine-cpu-ms for the
// host's engine processes, against engine-timed-ms, the engine's own decode and trace
// times) is steadier than wall time on a busy machine.
func BenchmarkHostOverhead(b *testing.B) {
	flags := []string{"--workers", "2"}
	if f := os.Getenv("TRACECRAFT_BENCH_CPU_PROFILE"); f != "" {
		flags = append(flags, "--cpu-profile", f)
	}
	plugins := newPlugins(b, "testengine")
	engine := "testengine"
	if name := os.Getenv("TRACECRAFT_BENCH_ENGINE"); name != "" {
		engine = name
		testbin.Install(b, testbin.Build(b, "./plugins/"+name), plugins, name)
	}
	hosts := []*benchHost{{host: startHost(b, plugins, "", flags...)}}
	if bin := os.Getenv("TRACECRAFT_BENCH_BASE_HOST"); bin != "" {
		basePlugins := plugins
		if dir := os.Getenv("TRACECRAFT_BENCH_BASE_PLUGINS"); dir != "" {
			basePlugins = dir
		}
		base := spawnHostBinary(b, bin, basePlugins, "", "--workers", "2")
		base.waitListening()
		hosts = append(hosts, &benchHost{host: base, prefix: "base-"})
	}
	floor, floorPid := startFloorServer(b)
	for _, size := range []struct {
		name string
		img  []byte
	}{
		{"0.25MP", photoPNG(b, 500, 500)},
		{"4MP", photoPNG(b, 2000, 2000)},
		// The same pixel count as a flat-coloured graphic: a small file.
		{"4MP-graphic", graphicPNG(b, 2000, 2000)},
	} {
		img := size.img
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(img)))
			ctype, body := form(part{name: "image", filename: "in.png", data: img}, part{name: "settings", data: []byte(`{"engine":"` + engine + `"}`)})
			var floorLat []time.Duration
			for _, h := range hosts {
				h.start(b)
			}
			floorPerf := startPerf(b, floorPid)
			for n := 0; b.Loop(); n++ {
				b.StopTimer()
				floorLat = append(floorLat, floorRequest(b, floor, ctype, body))
				if len(hosts) > 1 {
					// In turn, the base first every other time.
					hosts[1-n%2].request(b, ctype, body)
					b.StartTimer()
					hosts[n%2].request(b, ctype, body)
					continue
				}
				b.StartTimer()
				hosts[0].request(b, ctype, body)
			}
			floorPerf.report(b, "floor-", len(floorLat))
			for _, h := range hosts {
				h.stopPerf(b)
			}
			sort.Slice(floorLat, func(i, j int) bool { return floorLat[i] < floorLat[j] })
			floorP50 := percentile(floorLat, 50)
			b.ReportMetric(floorP50, "floor-p50-ms")
			for _, h := range hosts {
				h.report(b, img, floorP50)
			}
			header := time.Now()
			const reps = 100
			for range reps {
				if _, err := imagecheck.Check(img, imagecheck.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(header).Microseconds())/1000/reps, "header-ms")
			b.ReportMetric(float64(len(img))/1e6, "file-MB")
		})
	}
}

// benchHost is a host BenchmarkHostOverhead times, with what it measured of one image.
type benchHost struct {
	*host
	prefix           string // of its metrics' names
	overhead, inHost []time.Duration
	// timed sums the engine's own decode and trace times, as it reports them.
	timed            time.Duration
	cpu0, engineCPU0 time.Duration
	n                int
	// perf and enginePerf count the host's and its engine processes' work, with
	// TRACECRAFT_BENCH_PERF=1.
	perf, enginePerf *perfStat
}

// start begins the measurement of an image.
func (h *benchHost) start(b *testing.B) {
	h.overhead, h.inHost, h.n, h.timed = nil, nil, 0, 0
	h.cpu0 = processCPU(b, h.cmd.Process.Pid)
	h.engineCPU0 = childrenCPU(b, h.cmd.Process.Pid)
	h.perf = startPerf(b, h.cmd.Process.Pid)
	h.enginePerf = startPerf(b, children(h.cmd.Process.Pid)...)
}

// stopPerf reports the work perf counted per request.
func (h *benchHost) stopPerf(b *testing.B) {
	h.perf.report(b, h.prefix+"host-", h.n)
	h.enginePerf.report(b, h.prefix+"engine-", h.n)
}

// request sends one upload and notes the host's overhead: the time to the answer minus
// the engine's decode and trace.
func (h *benchHost) request(b *testing.B, ctype string, body []byte) {
	h.n++
	req, _ := http.NewRequest(http.MethodPost, h.url+"/api/vectorize", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The request's time ends when its answer has arrived, not once the client has
	// parsed it (a real engine's answer holds an SVG of hundreds of KB).
	total := time.Since(start)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("vectorize: %d %v %.300s", resp.StatusCode, err, data)
	}
	var answer struct {
		Timings map[string]any `json:"timings"`
	}
	if err := json.Unmarshal(data, &answer); err != nil {
		b.Fatal(err)
	}
	tm := answer.Timings
	engine := time.Duration((tm["decodeMs"].(float64) + tm["traceMs"].(float64)) * float64(time.Millisecond))
	h.overhead = append(h.overhead, total-engine)
	h.timed += engine
	// The part of it inside the handler, from the request's headers to the answer's
	// body, as the host times it (timings.totalMs).
	h.inHost = append(h.inHost, time.Duration(tm["totalMs"].(float64)*float64(time.Millisecond))-engine)
}

// report reports what the host measured of img.
func (h *benchHost) report(b *testing.B, img []byte, floorP50 float64) {
	// The host process's own CPU time per request: steadier than wall time on a busy
	// machine, and the host's whole share of the work (the engine's is in its own
	// process).
	b.ReportMetric(float64((processCPU(b, h.cmd.Process.Pid)-h.cpu0).Microseconds())/1000/float64(h.n), h.prefix+"host-cpu-ms")
	// The engine processes' CPU per request, their decode and trace included; and the
	// time the engine's own timers measured per request: the CPU beyond it is the
	// engine's share of the overhead (the protocol, garbage collection), on or off the
	// request's path.
	b.ReportMetric(float64((childrenCPU(b, h.cmd.Process.Pid)-h.engineCPU0).Microseconds())/1000/float64(h.n), h.prefix+"engine-cpu-ms")
	b.ReportMetric(float64(h.timed.Microseconds())/1000/float64(h.n), h.prefix+"engine-timed-ms")
	sort.Slice(h.overhead, func(i, j int) bool { return h.overhead[i] < h.overhead[j] })
	sort.Slice(h.inHost, func(i, j int) bool { return h.inHost[i] < h.inHost[j] })
	b.ReportMetric(percentile(h.inHost, 50), h.prefix+"handler-p50-ms")
	b.ReportMetric(percentile(h.overhead, 50), h.prefix+"overhead-p50-ms")
	b.ReportMetric(percentile(h.overhead, 99), h.prefix+"overhead-p99-ms")
	b.ReportMetric(percentile(h.overhead, 50)-floorP50, h.prefix+"beyond-floor-p50-ms")
	// The same upload with settings that fail validation: the host reads and checks the
	// whole request but runs no job. What it takes is the cost of receiving the upload;
	// the rest of the overhead is the job's.
	ctype, bad := form(part{name: "image", filename: "in.png", data: img}, part{name: "settings", data: []byte(`{"engine":"nope"}`)})
	var upload []time.Duration
	for range 30 {
		req, _ := http.NewRequest(http.MethodPost, h.url+"/api/vectorize", bytes.NewReader(bad))
		req.Header.Set("Content-Type", ctype)
		start := time.Now()
		if r := do(b, req); r.status != 400 {
			b.Fatalf("want 400: %s", r)
		}
		upload = append(upload, time.Since(start))
	}
	sort.Slice(upload, func(i, j int) bool { return upload[i] < upload[j] })
	b.ReportMetric(percentile(upload, 50), h.prefix+"upload-p50-ms")
}

// processCPU returns the user and system CPU time process pid has used, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 10 ms: the benchmarks read it over
// hundreds of requests).
func processCPU(b *testing.B, pid int) time.Duration {
	fields, err := testbin.Stat(pid)
	if err != nil {
		b.Fatal(err)
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// childrenCPU returns the CPU time the running child processes of pid (the host's engine
// processes) have used, as processCPU does; an engine process replaced meanwhile takes
// its time with it.
func childrenCPU(b *testing.B, pid int) time.Duration {
	var sum time.Duration
	for _, child := range children(pid) {
		if _, err := testbin.Stat(child); err == nil {
			sum += processCPU(b, child)
		}
	}
	return sum
}

// perfStat is perf stat counting the work of processes: their CPU time (task-clock, in
// ns, not in the 10 ms ticks of /proc), context switches, page faults and system calls,
// all counted exactly rather than timed, so that a busy machine changes them little. It
// runs with TRACECRAFT_BENCH_PERF=1 (perf must be installed and allowed to attach);
// otherwise startPerf returns nil and report reports nothing.
type perfStat struct {
	cmd *exec.Cmd
	out string
}

// perfEvents are the events perfStat counts, and the names of their metrics.
var perfEvents = []struct{ event, metric string }{
	{"task-clock", "task-ms"},
	{"context-switches", "switches"},
	{"page-faults", "faults"},
	{"raw_syscalls:sys_enter", "syscalls"},
}

// startPerf starts counting the work of pids.
func startPerf(b *testing.B, pids ...int) *perfStat {
	if os.Getenv("TRACECRAFT_BENCH_PERF") == "" || len(pids) == 0 {
		return nil
	}
	list := make([]string, len(pids))
	for i, p := range pids {
		list[i] = strconv.Itoa(p)
	}
	events := make([]string, len(perfEvents))
	for i, e := range perfEvents {
		events[i] = e.event
	}
	p := &perfStat{out: filepath.Join(b.TempDir(), "perf.csv")}
	p.cmd = exec.Command("perf", "stat", "-x", ",", "-e", strings.Join(events, ","), "-p", strings.Join(list, ","), "-o", p.out)
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	// perf needs a moment to attach.
	if !testbin.Eventually(5*time.Second, func() bool { _, err := os.Stat(p.out); return err == nil }) {
		b.Fatal("perf stat did not start")
	}
	time.Sleep(100 * time.Millisecond)
	return p
}

// report stops the count and reports each event per request of n, under prefix.
func (p *perfStat) report(b *testing.B, prefix string, n int) {
	if p == nil || n == 0 {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	_ = p.cmd.Wait()
	data, err := os.ReadFile(p.out)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		for _, e := range perfEvents {
			if f[2] == e.event {
				b.ReportMetric(v/float64(n), prefix+e.metric)
			}
		}
	}
}

// BenchmarkLoad sends requests from 8 clients to a host with 2 workers per lane and
// reports the throughput.
func BenchmarkLoad(b *testing.B) {
	h := startHost(b, newPlugins(b, "testengine"), "", "--workers", "2", "--queue", "64")
	img := photoPNG(b, 500, 500)
	var wg sync.WaitGroup
	next := make(chan struct{})
	var mu sync.Mutex
	codes := map[int]int{}
	start := time.Now()
	for range 8 {
		wg.Go(func() {
			for range next {
				r := h.vectorize(img, `{"engine":"testengine"}`)
				mu.Lock()
				codes[r.status]++
				mu.Unlock()
			}
		})
	}
	n := 0
	for b.Loop() {
		next <- struct{}{}
		n++
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	if codes[200] != n {
		b.Errorf("statuses %v", codes)
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "req/s")
}

// Benchmark429 fills the public lane (1 worker, 1 waiting place) with slow jobs and times
// the answers to the requests that find it full.
func Benchmark429(b *testing.B) {
	h := startHost(b, newPlugins(b, "testengine"), "", "--workers", "1", "--queue", "1")
	img := photoPNG(b, 64, 64)
	slow := `{"engine":"testengine","testengine":{"action":"sleep","ms":600000}}`
	for range 2 {
		req := h.vectorizeRequest(img, slow)
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	if !testbin.Eventually(10*time.Second, func() bool {
		l := h.get("/api/health").json["lanes"].([]any)[0].(map[string]any)
		return l["busy"] == 1.0 && l["queued"] == 1.0
	}) {
		b.Fatal("the lane never filled")
	}
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		r := h.vectorize(img, `{"engine":"testengine"}`)
		lat = append(lat, time.Since(start))
		if r.status != 429 || r.header.Get("Retry-After") == "" {
			b.Fatalf("want 429: %s", r)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(percentile(lat, 50), "p50-ms")
	b.ReportMetric(percentile(lat, 99), "p99-ms")
}

// BenchmarkPeakRSS fills both lanes (2 workers and 32 waiting places each) with 10 MB
// uploads at once, half of them with a key, and reports the host's peak resident memory.
func BenchmarkPeakRSS(b *testing.B) {
	for b.Loop() {
		peakRSS(b)
	}
}

func peakRSS(b *testing.B) {
	data := b.TempDir()
	h := startHost(b, newPlugins(b, "testengine"), data, "--workers", "2", "--queue", "32")
	key, errOut, code := tracecraft(b, nil, "keys", "create", "--name", "bench", "--data-dir", data)
	if code != 0 {
		b.Fatal(errOut)
	}
	key = strings.TrimSpace(key)
	img := noisePNG(b, 1600, 1600) // 10.2 MB: just under the limit
	if len(img) > 10<<20 {
		b.Fatalf("test image is %d bytes", len(img))
	}
	settings := `{"engine":"testengine","testengine":{"action":"sleep","ms":300}}`
	const perLane = 2 + 32
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]int{}
	for i := range 2 * perLane {
		wg.Go(func() {
			var hdr []string
			lane := "public"
			if i%2 == 1 {
				hdr, lane = []string{"X-API-Key", key}, "keyed"
			}
			r := h.vectorize(img, settings, hdr...)
			mu.Lock()
			codes[lane+" "+strconv.Itoa(r.status)]++
			mu.Unlock()
		})
	}
	wg.Wait()
	hwm := testbin.Memory(b, h.cmd.Process.Pid, "VmHWM")
	b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(codes["public 200"]+codes["keyed 200"]), "served")
	b.ReportMetric(float64(codes["public 429"]+codes["keyed 429"]), "refused-429")
	if len(codes) > 4 {
		b.Errorf("statuses: %v", codes)
	}
	h.stop()
}

// BenchmarkUploadFloor times a bare net/http server, in a process of its own, that reads
// the same 4 MP multipart upload and discards it: the least any Go HTTP service needs to
// receive it, for reading BenchmarkHostOverhead's 4 MP figure. BenchmarkHostOverhead
// also times it for each of its images, between its own requests (floor-p50-ms).
func BenchmarkUploadFloor(b *testing.B) {
	url, _ := startFloorServer(b)
	ctype, body := form(part{name: "image", filename: "in.png", data: photoPNG(b, 2000, 2000)})
	b.SetBytes(int64(len(body)))
	var lat []time.Duration
	for b.Loop() {
		lat = append(lat, floorRequest(b, url, ctype, body))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(percentile(lat, 50), "p50-ms")
	b.ReportMetric(percentile(lat, 99), "p99-ms")
}

// startFloorServer starts the bare server of BenchmarkUploadFloor, stopped when b ends,
// and returns its URL and process id.
func startFloorServer(b *testing.B) (string, int) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), floorServerEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("floor server: %v", err)
	}
	return "http://" + strings.TrimSpace(addr), cmd.Process.Pid
}

// floorRequest sends one upload to the floor server and returns the time to its answer.
func floorRequest(b *testing.B, url, ctype string, body []byte) time.Duration {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	start := time.Now()
	if r := do(b, req); r.status != 200 {
		b.Fatalf("floor server: %s", r)
	}
	return time.Since(start)
}

// floorServerEnv makes the test binary serve as BenchmarkUploadFloor's bare server.
const floorServerEnv = "TRACECRAFT_BENCH_FLOOR_SERVER"

// The floor server is this test binary run again, a process of its own like the host:
// it prints its address, then reads each request's multipart body the way the host does
// (64 KiB buffer) and discards it, until it is killed.
func init() {
	if os.Getenv(floorServerEnv) == "" {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mr := multipart.NewReader(bufio.NewReaderSize(r.Body, 64<<10), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			_, _ = io.Copy(io.Discard, p)
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	os.Exit(0)
}
