package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowClient is one connection of TestSlowAndIdleUploadsDoNotStarveOthers: it sends the
// headers of a 10 MiB upload from its own loopback address, then nothing or a byte now
// and then, and notes how the host answered.
type slowClient struct {
	from    string
	trickle time.Duration // 0: send nothing after the headers
}

// slowOutcome is how the host answered a slowClient: status and code, or "closed"
// when the connection ended without an answer.
type slowOutcome struct {
	what  string
	after time.Duration
}

// run sends the headers to addr and waits up to wait for the answer.
func (c slowClient) run(addr string, wait time.Duration) slowOutcome {
	start := time.Now()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(c.from)}, Timeout: 10 * time.Second}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return slowOutcome{what: "dial: " + err.Error()}
	}
	defer conn.Close()
	head := "POST /api/vectorize HTTP/1.1\r\nHost: tracecraft\r\nContent-Type: multipart/form-data; boundary=b\r\n" +
		"Content-Length: " + strconv.Itoa(10<<20) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		return slowOutcome{what: "write: " + err.Error()}
	}
	stop := make(chan struct{})
	defer close(stop)
	if c.trickle > 0 {
		go func() {
			piece := []byte("--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"x.png\"\r\n\r\n\x89PNG")
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(c.trickle):
				}
				if _, err := conn.Write(piece[i%len(piece) : i%len(piece)+1]); err != nil {
					return
				}
			}
		}()
	}
	_ = conn.SetReadDeadline(start.Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return slowOutcome{what: "no answer", after: time.Since(start)}
		}
		return slowOutcome{what: "closed", after: time.Since(start)}
	}
	defer resp.Body.Close()
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return slowOutcome{what: fmt.Sprintf("%d %s", resp.StatusCode, e.Error.Code), after: time.Since(start)}
}

// TestSlowAndIdleUploadsDoNotStarveOthers: 200 connections that announce 10 MiB
// uploads and then send nothing, or a byte every quarter second, do not keep a normal
// client's uploads of 15 KB and 2 MB from being traced: each of those gets 200 while
// they hang. Before, the upload budget (512 MiB) was reserved from the Content-Length
// claimed, so about 50 idle connections made every upload 429 queue_full for the two
// minutes of the read timeout. Now the budget is reserved as bytes arrive, a body must
// arrive at --upload-min-rate after --upload-grace (408 upload_too_slow), and one
// address sends at most --uploads-per-client uploads at once (429 too_many_uploads).
// The slow clients come from addresses 127.0.0.10 and up, two per address (within the
// per-address bound), except 20 from 127.0.0.200, of which the bound admits 8; the
// normal client is 127.0.0.1. The host runs with its default flags.
func TestSlowAndIdleUploadsDoNotStarveOthers(t *testing.T) {
	t.Parallel()
	h := startHost(t, newPlugins(t, "tracecraft"), "", "--workers", "2")
	addr := strings.TrimPrefix(h.url, "http://")
	var clients []slowClient
	for i := range 120 { // idle, two per address
		clients = append(clients, slowClient{from: fmt.Sprintf("127.0.0.%d", 10+i/2)})
	}
	for i := range 60 { // trickling, two per address
		clients = append(clients, slowClient{from: fmt.Sprintf("127.0.0.%d", 100+i/2), trickle: 250 * time.Millisecond})
	}
	for range 20 { // idle, all from one address
		clients = append(clients, slowClient{from: "127.0.0.200"})
	}
	const wait = 40 * time.Second // the grace is 10 s; main's answer came after the 2 min read timeout
	outcomes := make([]slowOutcome, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i] = c.run(addr, wait)
		}()
	}
	slowDone := make(chan struct{})
	go func() { wg.Wait(); close(slowDone) }()

	// The normal client uploads while the slow ones hang, and a little after.
	small, large := noisePNG(t, 60, 60), noisePNG(t, 724, 724)
	if len(small) < 10<<10 || len(small) > 20<<10 || len(large) < 2<<20 || len(large) > 3<<20 {
		t.Fatalf("the images are %d and %d bytes, want about 15 KB and 2 MB", len(small), len(large))
	}
	time.Sleep(500 * time.Millisecond) // the slow connections are in
	start := time.Now()
	var traced []string
	failures := 0
	for n := 0; ; n++ {
		img := small
		if n%2 == 1 {
			img = large
		}
		t0 := time.Now()
		r := h.vectorize(img, `{"engine":"tracecraft"}`)
		took := time.Since(t0)
		if r.status != http.StatusOK {
			failures++
			t.Errorf("upload %d (%d bytes) at %.1f s: %s, want 200", n, len(img), time.Since(start).Seconds(), r)
			if failures >= 5 {
				break
			}
		}
		traced = append(traced, fmt.Sprintf("%dB %.0fms", len(img), float64(took.Microseconds())/1000))
		select {
		case <-slowDone:
		default:
			if time.Since(start) < wait {
				continue
			}
		}
		if n >= 1 {
			break
		}
	}
	t.Logf("normal client: %d uploads in %.1f s while the slow ones hung", len(traced), time.Since(start).Seconds())
	if len(traced) > 12 {
		t.Logf("the first and last: %s ... %s", strings.Join(traced[:6], ", "), strings.Join(traced[len(traced)-6:], ", "))
	}
	<-slowDone

	// The slow clients were refused or cut off, none left hanging.
	counts := map[string]int{}
	var idleTimes []time.Duration
	for i, o := range outcomes {
		kind := "idle"
		if clients[i].trickle > 0 {
			kind = "trickling"
		}
		if clients[i].from == "127.0.0.200" {
			kind = "one address"
		}
		counts[kind+": "+o.what]++
		if o.what == "408 upload_too_slow" {
			idleTimes = append(idleTimes, o.after)
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: %d", k, counts[k])
	}
	if len(idleTimes) > 0 {
		sort.Slice(idleTimes, func(i, j int) bool { return idleTimes[i] < idleTimes[j] })
		t.Logf("408 after %.1f s (first) to %.1f s (last)", idleTimes[0].Seconds(), idleTimes[len(idleTimes)-1].Seconds())
	}
	want := map[string]int{
		"idle: 408 upload_too_slow":         120,
		"trickling: 408 upload_too_slow":    60,
		"one address: 408 upload_too_slow":  8,
		"one address: 429 too_many_uploads": 12,
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d connections, want %d", k, counts[k], n)
		}
	}
}
