package api

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// heldLog is a log output that holds the request's log line until the client has its
// answer (or a while has passed), and notes which came first.
type heldLog struct {
	answered chan struct{}
	before   chan bool
}

func (l *heldLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("request:")) {
		select {
		case <-l.answered:
			l.before <- true
		case <-time.After(2 * time.Second):
			l.before <- false
		}
	}
	return len(p), nil
}

// TestATracedAnswerIsSentBeforeTheRequestIsLogged: the JSON answer of a trace goes to
// the client as soon as it is written, not after the request's log line and metrics,
// unless it is to be compressed (gzhttp decides that at the end).
func TestATracedAnswerIsSentBeforeTheRequestIsLogged(t *testing.T) {
	tests := []struct {
		name, acceptEncoding string
	}{
		{"to a client that accepts gzip, an answer too small to compress", "gzip"},
		{"to a client that accepts no encoding", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, &memEngines{}, 4)
			log := &heldLog{answered: make(chan struct{}), before: make(chan bool, 1)}
			s.Logger = hclog.New(&hclog.LoggerOptions{Output: log})
			srv := httptest.NewServer(s.Handler())
			defer srv.Close()
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			fw, _ := mw.CreateFormFile("image", "in.png")
			fw.Write(pngOf(t, 6, 4))
			mw.WriteField("settings", `{"engine":"mem"}`)
			mw.Close()
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/vectorize", &body)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			// Set by hand, the header keeps the client from decoding gzip itself; the
			// answer is small enough to come plain anyway.
			req.Header.Set("Accept-Encoding", tt.acceptEncoding)
			resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			close(log.answered)
			var answer map[string]any
			if err != nil || resp.StatusCode != 200 || json.Unmarshal(data, &answer) != nil || !strings.HasPrefix(answer["svg"].(string), "<svg") {
				t.Fatalf("status %d, %v: %.200s", resp.StatusCode, err, data)
			}
			if enc := resp.Header.Get("Content-Encoding"); enc != "" {
				t.Errorf("the answer is encoded %q, want plain", enc)
			}
			if !<-log.before {
				t.Errorf("the answer came only after the request's log line was written")
			}
		})
	}
}
