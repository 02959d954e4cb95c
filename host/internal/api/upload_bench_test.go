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
