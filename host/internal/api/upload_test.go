package api

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

// formBody is a multipart/form-data body with the given fields in order, as
// mime/multipart.Writer (and so Go clients) write it, and its boundary.
func formBody(t *testing.T, fields ...[2]string) ([]byte, string) {
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
	return b.Bytes(), w.Boundary()
}

// multipartRequest builds a tracing request whose fields are given in order.
func multipartRequest(t *testing.T, fields ...[2]string) *http.Request {
	t.Helper()
	body, boundary := formBody(t, fields...)
	return rawRequest(string(body), boundary)
}

// rawRequest is a tracing request with body as it is, in multipart framing with boundary.
func rawRequest(body, boundary string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/api/vectorize", strings.NewReader(body))
	r.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	return r
}

func TestReadUploadReadsTheImageIntoAFileOrMemoryWithTheSameCaps(t *testing.T) {
	const maxImage = 300 << 10
	image := string(bytes.Repeat([]byte("0123456789abcdef"), maxImage/16))
	many := make([][2]string, maxFormParts+1)
	for i := range many {
		many[i] = [2]string{"f", ""}
	}
	tests := []struct {
		name     string
		fields   [][2]string
		raw      string // a body as it is, with boundary b, instead of fields
		want     string // the image of a raw body
		wantCode string
	}{
		{"an image of exactly the limit", [][2]string{{"settings", `{"engine":"x"}`}, {"image", image}}, "", "", ""},
		{"an image one byte over the limit", [][2]string{{"image", image + "!"}}, "", "", fault.ImageTooLarge},
		{"a small image", [][2]string{{"image", "tiny"}, {"other", "ignored"}}, "", "", ""},
		{"an empty image field", [][2]string{{"image", ""}}, "", "", ""},
		{"two images", [][2]string{{"image", "a"}, {"image", "b"}}, "", "", fault.InvalidRequest},
		{"two settings", [][2]string{{"settings", `{"engine":"x"}`}, {"image", "a"}, {"settings", `{}`}}, "", "", fault.InvalidRequest},
		{"two settings, the first empty", [][2]string{{"settings", ""}, {"settings", `{}`}, {"image", "a"}}, "", "", fault.InvalidRequest},
		{"settings over their limit", [][2]string{{"settings", string(make([]byte, 70<<10))}}, "", "", fault.InvalidSettings},
		{"too many fields", many, "", "", fault.InvalidRequest},
		{"bare LF line ends", nil, "--b\nContent-Disposition: form-data; name=\"image\"\n\nIMG\n--b--\n", "IMG", ""},
		{"quoted-printable", nil, "--b\r\nContent-Disposition: form-data; name=\"image\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nI=3DG\r\n--b--", "I=G", ""},
		{"no final boundary", nil, "--b\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\nIMG", "", fault.InvalidRequest},
		{"not multipart framing at all", nil, "just some bytes", "", ""},
	}
	pools := map[string]*ImageFiles{"into a file": NewImageFiles(maxImage, 1), "into memory": nil}
	for mode, files := range pools {
		for _, tc := range tests {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				r := rawRequest(tc.raw, "b")
				if tc.fields != nil {
					r = multipartRequest(t, tc.fields...)
				}
				up, err := readUpload(httptest.NewRecorder(), r, r.Body, maxImage, files)
				defer files.put(up.held)
				if code := fault.As(err).Code; err != nil && code != tc.wantCode || err == nil && tc.wantCode != "" {
					t.Fatalf("error %v, want code %q", err, tc.wantCode)
				}
				if err != nil {
					return
				}
				want := tc.want
				for _, f := range tc.fields {
					if f[0] == "image" {
						want = f[1]
					}
				}
				if string(up.image) != want {
					t.Errorf("read an image of %d bytes, want %d", len(up.image), len(want))
				}
				// An image read in place is the file's; one the general reader
				// took apart is in memory.
				if inPlace := files != nil && tc.raw == ""; (up.file != nil) != inPlace {
					t.Errorf("image file %v, want %v", up.file != nil, inPlace)
				}
			})
		}
	}
	pools["into a file"].Close()
}
