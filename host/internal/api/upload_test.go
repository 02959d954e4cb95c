package api

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

// multipartRequest builds a tracing request whose fields are given in order.
func multipartRequest(t *testing.T, fields ...[2]string) *http.Request {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, f := range fields {
		var part interface{ Write([]byte) (int, error) }
		var err error
		if f[0] == "image" {
			part, err = w.CreateFormFile("image", "in.png")
		} else {
			part, err = w.CreateFormField(f[0])
		}
		if err != nil {
			t.Fatal(err)
		}
		part.Write([]byte(f[1]))
	}
	w.Close()
	r := httptest.NewRequest(http.MethodPost, "/api/vectorize", &b)
	r.Header.Set("Content-Type", w.FormDataContentType())
	return r
}

func TestReadUploadReadsTheImageIntoAFileOrMemoryWithTheSameCaps(t *testing.T) {
	const maxImage = 300 << 10
	image := string(bytes.Repeat([]byte("0123456789abcdef"), maxImage/16))
	tests := []struct {
		name     string
		fields   [][2]string
		wantCode string
	}{
		{"an image of exactly the limit", [][2]string{{"settings", `{"engine":"x"}`}, {"image", image}}, ""},
		{"an image one byte over the limit", [][2]string{{"image", image + "!"}}, fault.ImageTooLarge},
		{"a small image", [][2]string{{"image", "tiny"}, {"other", "ignored"}}, ""},
		{"an empty image field", [][2]string{{"image", ""}}, ""},
		{"two images", [][2]string{{"image", "a"}, {"image", "b"}}, fault.InvalidRequest},
		{"settings over their limit", [][2]string{{"settings", string(make([]byte, 70<<10))}}, fault.InvalidSettings},
	}
	pools := map[string]*ImageFiles{"into a file": NewImageFiles(maxImage, 1), "into memory": nil}
	for mode, files := range pools {
		for _, tc := range tests {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				up, err := readUpload(httptest.NewRecorder(), multipartRequest(t, tc.fields...), maxImage, files)
				defer files.put(up.file)
				if code := fault.As(err).Code; err != nil && code != tc.wantCode || err == nil && tc.wantCode != "" {
					t.Fatalf("error %v, want code %q", err, tc.wantCode)
				}
				if err != nil {
					return
				}
				var want string
				for _, f := range tc.fields {
					if f[0] == "image" {
						want = f[1]
					}
				}
				if string(up.image) != want {
					t.Errorf("read an image of %d bytes, want %d", len(up.image), len(want))
				}
				if (up.file != nil) != (files != nil) {
					t.Errorf("image file %v with pool %v", up.file != nil, files != nil)
				}
			})
		}
	}
	pools["into a file"].Close()
}
