package api

import (
	"bytes"
	"errors"
	"mime/multipart"
	"testing"
)

func TestParseFormFindsTheFieldsInPlace(t *testing.T) {
	std, stdBoundary := formBody(t, [2]string{"image", "\x89PNG\r\n--not-a-boundary\r\n\r\n"}, [2]string{"settings", `{"engine":"x"}`}, [2]string{"other", ""})
	type want struct{ name, content string }
	for _, tc := range []struct {
		name     string
		body     string
		boundary string
		want     []want
		err      error
	}{
		{"as Go writes it", string(std), stdBoundary, []want{{"image", "\x89PNG\r\n--not-a-boundary\r\n\r\n"}, {"settings", `{"engine":"x"}`}, {"other", ""}}, nil},
		{"as curl writes it, with a preamble and padding", "preamble\r\n--b  \r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\nIMG\r\n--b\r\nContent-Disposition: form-data; name=\"settings\"\r\n\r\n{}\r\n--b--\r\nepilogue", "b", []want{{"image", "IMG"}, {"settings", "{}"}}, nil},
		{"a part without headers has no name", "--b\r\n\r\nX\r\n--b--", "b", []want{{"", "X"}}, nil},
		{"not form-data has no name", "--b\r\nContent-Disposition: attachment; name=\"image\"\r\n\r\nX\r\n--b--", "b", []want{{"", "X"}}, nil},
		{"no final boundary", "--b\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\nX", "b", nil, errFormUnusual},
		{"bare LF", "--b\nContent-Disposition: form-data; name=\"image\"\n\nX\n--b--", "b", nil, errFormUnusual},
		{"quoted-printable", "--b\r\nContent-Disposition: form-data; name=\"image\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nX=3D\r\n--b--", "b", nil, errFormUnusual},
		{"no boundary at all", "just bytes", "b", nil, errFormUnusual},
		{"empty", "", "b", nil, errFormUnusual},
		{"too many fields", string(bytes.Repeat([]byte("--b\r\n\r\n\r\n"), maxFormParts+1)) + "--b--", "b", nil, errTooManyParts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts, err := parseForm([]byte(tc.body), tc.boundary)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			var got []want
			for _, p := range parts {
				got = append(got, want{p.name, tc.body[p.off : p.off+p.len]})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("part %d: got %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestParseFormAgreesWithMimeMultipart checks the fields parseForm finds against those
// mime/multipart reads from the same bodies.
func TestParseFormAgreesWithMimeMultipart(t *testing.T) {
	for _, fields := range [][][2]string{
		{{"image", "abc"}},
		{{"settings", "{}"}, {"image", string(bytes.Repeat([]byte("\r\n--"), 1000))}},
		{{"image", ""}, {"image", "x"}},
	} {
		body, boundary := formBody(t, fields...)
		parts, err := parseForm(body, boundary)
		if err != nil {
			t.Fatal(err)
		}
		r := multipart.NewReader(bytes.NewReader(body), boundary)
		for i := 0; ; i++ {
			p, err := r.NextPart()
			if err != nil {
				if i != len(parts) {
					t.Errorf("mime/multipart read %d parts, parseForm %d (%v)", i, len(parts), err)
				}
				break
			}
			var content bytes.Buffer
			content.ReadFrom(p)
			if i >= len(parts) || p.FormName() != parts[i].name || !bytes.Equal(content.Bytes(), body[parts[i].off:parts[i].off+parts[i].len]) {
				t.Errorf("part %d differs", i)
			}
		}
	}
}
