package api

import (
	"bytes"
	"io"
	"math/rand"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"
)

// photoBytes is n bytes as a photo's PNG holds them: compressed data, which look
// random to a search for the multipart delimiter (and cost no encoding here).
func photoBytes(n int) []byte {
	data := make([]byte, n)
	rand.New(rand.NewSource(7)).Read(data)
	return data
}

// BenchmarkReadUpload reads the multipart body of a 4 MP photo's PNG (3 MB) into a
// pooled image file, as the handler does once the bytes have come off the socket: the
// delimiter search, the copy into the file and the taking apart of the form.
func BenchmarkReadUpload(b *testing.B) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, _ := w.CreateFormFile("image", "in.png")
	part.Write(photoBytes(3 << 20))
	f, _ := w.CreateFormField("settings")
	f.Write([]byte(`{"engine":"testengine"}`))
	w.Close()
	files := NewImageFiles(10<<20, 1)
	defer files.Close()
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/api/vectorize", bytes.NewReader(body.Bytes()))
		r.Header.Set("Content-Type", w.FormDataContentType())
		up, err := readUpload(httptest.NewRecorder(), r, io.NopCloser(r.Body), 10<<20, files)
		if err != nil || up.file == nil {
			b.Fatalf("read in place %v: %v", up.file != nil, err)
		}
		files.put(up.held)
	}
}

// BenchmarkVectorizeInProcess sends a 500 x 500 PNG through the whole handler (middleware,
// upload into a pooled image file, validation, lane, answer) with the in-memory engine:
// the host's own work per request, without sockets or an engine process, with its
// allocations.
func BenchmarkVectorizeInProcess(b *testing.B) {
	s, _ := newTestServer(b, &memEngines{}, 4)
	s.ImageFiles = NewImageFiles(10<<20, 2)
	defer s.ImageFiles.Close()
	h := s.Handler()
	img := pngOf(b, 500, 500)
	b.ReportAllocs()
	for b.Loop() {
		if rec := post(b, h, img, `{"engine":"mem"}`); rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}
