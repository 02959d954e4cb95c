package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/tracing"
)

// paceServer serves s over real TCP on 127.0.0.1, as net/http serves the host, so that
// read deadlines and client addresses are real.
func paceServer(t *testing.T, s *Server) string {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return strings.TrimPrefix(ts.URL, "http://")
}

// rawUpload is a connection that has sent an upload's headers, claiming a body of
// length bytes, from the loopback address from.
type rawUpload struct {
	conn net.Conn
	br   *bufio.Reader
}

// startUpload dials addr from the loopback address from (127.0.0.1 if empty) and sends
// the headers of a multipart upload of length bytes, and no body.
func startUpload(t *testing.T, addr, from string, length int) *rawUpload {
	t.Helper()
	d := net.Dialer{}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST /api/vectorize HTTP/1.1\r\nHost: tracecraft\r\nContent-Type: multipart/form-data; boundary=b\r\n" +
		"Content-Length: " + strconv.Itoa(length) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	return &rawUpload{conn: conn, br: bufio.NewReader(conn)}
}

// answer waits up to d for the answer and returns its status, its error code and
// whether the host closes the connection after it.
func (u *rawUpload) answer(t *testing.T, d time.Duration) (int, string, bool) {
	t.Helper()
	_ = u.conn.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(u.br, nil)
	if err != nil {
		t.Fatalf("no answer within %v: %v", d, err)
	}
	defer resp.Body.Close()
	var e errorBody
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Error.Code, resp.Close
}

// noAnswer checks that no answer comes within d.
func (u *rawUpload) noAnswer(t *testing.T, d time.Duration) {
	t.Helper()
	_ = u.conn.SetReadDeadline(time.Now().Add(d))
	if resp, err := http.ReadResponse(u.br, nil); err == nil {
		t.Fatalf("answered %d within %v, want no answer yet", resp.StatusCode, d)
	}
}

// paceForm is a multipart upload of img with the mem engine, boundary "b".
func paceForm(img []byte) []byte {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.SetBoundary("b")
	fw, _ := mw.CreateFormFile("image", "in.png")
	fw.Write(img)
	mw.WriteField("settings", `{"engine":"mem"}`)
	mw.Close()
	return b.Bytes()
}

// noisyPNG is a w x h PNG of noise, which compresses little.
func noisyPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestASlowOrIdleBodyIsAnswered408AfterTheGrace: a body must arrive at the minimum rate
// once the grace has passed. One that sends nothing, or trickles, is answered 408
// upload_too_slow with Connection: close soon after the grace; one that takes longer
// than the grace but keeps the rate is traced.
func TestASlowOrIdleBodyIsAnswered408AfterTheGrace(t *testing.T) {
	s, _ := newTestServer(t, &memEngines{}, 4)
	s.Tracing.Pace = tracing.UploadPace{MinRate: 64 << 10, Grace: 300 * time.Millisecond, Limit: time.Minute}
	addr := paceServer(t, s)
	form := paceForm(noisyPNG(t, 150, 150))
	tests := []struct {
		name string
		// every is how often a piece of size bytes is sent; 0 sends nothing.
		every time.Duration
		size  int
		want  int
	}{
		{"a body that never comes", 0, 0, http.StatusRequestTimeout},
		{"a body of 10 bytes every 50 ms", 50 * time.Millisecond, 10, http.StatusRequestTimeout},
		{"a body at twice the minimum rate, longer than the grace", 50 * time.Millisecond, 6400, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The clock starts before the request's head is sent: the host's grace starts
			// once it has read the head, which may be before startUpload returns (taken
			// after, an answer on time measured 299.7 ms against a grace of 300 ms).
			start := time.Now()
			u := startUpload(t, addr, "", len(form))
			stop := make(chan struct{})
			defer close(stop)
			if tc.every > 0 {
				go func() {
					for off := 0; off < len(form); off += tc.size {
						select {
						case <-stop:
							return
						case <-time.After(tc.every):
						}
						if _, err := u.conn.Write(form[off:min(off+tc.size, len(form))]); err != nil {
							return
						}
					}
				}()
			}
			status, code, closed := u.answer(t, 20*time.Second)
			took := time.Since(start)
			if status != tc.want {
				t.Fatalf("got %d %s after %v, want %d", status, code, took, tc.want)
			}
			if tc.want == http.StatusOK {
				if took < s.Tracing.Pace.Grace {
					t.Errorf("the body took %v, less than the grace: the test proves nothing", took)
				}
				return
			}
			if code != fault.UploadTooSlow || !closed {
				t.Errorf("got %s, closing the connection: %v; want upload_too_slow and close", code, closed)
			}
			if took < s.Tracing.Pace.Grace || took > s.Tracing.Pace.Grace+5*time.Second {
				t.Errorf("answered after %v; the grace is %v", took, s.Tracing.Pace.Grace)
			}
			if used := s.Tracing.Uploads.Used(); used != 0 {
				t.Errorf("%d bytes of the budget still held after the answer", used)
			}
		})
	}
}

// TestTheUploadBudgetIsHeldByBytesReceived: connections that announce large bodies and
// send nothing hold at most one step of the budget each, so an upload that fits the
// budget is traced beside them; a body that outgrows what is left of the budget as it
// arrives is answered 429 queue_full.
func TestTheUploadBudgetIsHeldByBytesReceived(t *testing.T) {
	s, _ := newTestServer(t, &memEngines{}, 4)
	s.Tracing.Uploads = tracing.NewBudget(6 * tracing.HoldStep)
	s.Tracing.Pace = tracing.UploadPace{MinRate: 1 << 20, Grace: time.Minute, Limit: time.Minute}
	addr := paceServer(t, s)
	var idle []*rawUpload
	for range 4 {
		idle = append(idle, startUpload(t, addr, "", 10<<20))
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Tracing.Uploads.Used() < 4*tracing.HoldStep && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if used := s.Tracing.Uploads.Used(); used != 4*tracing.HoldStep {
		t.Fatalf("4 idle uploads of 10 MiB hold %d bytes of the budget, want one step each (%d)", used, 4*tracing.HoldStep)
	}
	small := paceForm(pngOf(t, 20, 20))
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/vectorize", bytes.NewReader(small))
	req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a small upload beside the idle ones: %d, want 200", resp.StatusCode)
	}
	// 2 steps are left: a body of 3 steps runs out of budget on its way.
	bigForm := paceForm(bytes.Repeat([]byte{'x'}, 3*tracing.HoldStep))
	big := startUpload(t, addr, "", len(bigForm))
	go big.conn.Write(bigForm)
	if status, code, _ := big.answer(t, 10*time.Second); status != http.StatusTooManyRequests || code != fault.QueueFull {
		t.Errorf("a body larger than the budget left: %d %s, want 429 queue_full", status, code)
	}
	for _, u := range idle {
		u.noAnswer(t, 10*time.Millisecond)
	}
}

// TestUploadsPerAddressAreBounded: an address that already sends the most uploads at
// once is answered 429 too_many_uploads before its body is read; another address is
// not, and the first may send again once an upload of its own has ended.
func TestUploadsPerAddressAreBounded(t *testing.T) {
	s, _ := newTestServer(t, &memEngines{}, 4)
	s.Tracing.Senders = tracing.NewClientUploads(2)
	s.Tracing.Pace = tracing.UploadPace{MinRate: 1 << 20, Grace: 500 * time.Millisecond, Limit: time.Minute}
	addr := paceServer(t, s)
	first := startUpload(t, addr, "127.0.0.1", 1000)
	startUpload(t, addr, "127.0.0.1", 1000)
	deadline := time.Now().Add(5 * time.Second)
	for s.Tracing.Senders.Sending("127.0.0.1") < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	third := startUpload(t, addr, "127.0.0.1", 1000)
	if status, code, _ := third.answer(t, 5*time.Second); status != http.StatusTooManyRequests || code != fault.TooManyUploads {
		t.Errorf("a third upload from one address: %d %s, want 429 too_many_uploads", status, code)
	}
	other := startUpload(t, addr, "127.0.0.2", 1000)
	other.noAnswer(t, 100*time.Millisecond)
	// The first idle uploads end with 408 after the grace; then the address may send again.
	if status, _, _ := first.answer(t, 10*time.Second); status != http.StatusRequestTimeout {
		t.Errorf("an idle upload: %d, want 408", status)
	}
	deadline = time.Now().Add(5 * time.Second)
	for s.Tracing.Senders.Sending("127.0.0.1") > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	form := paceForm(pngOf(t, 20, 20))
	again := startUpload(t, addr, "127.0.0.1", len(form))
	again.conn.Write(form)
	if status, code, _ := again.answer(t, 5*time.Second); status != http.StatusOK {
		t.Errorf("an upload once the address's others ended: %d %s, want 200", status, code)
	}
}
