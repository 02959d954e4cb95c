package api

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"slices"
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
			parts, err := parseForm([]byte(tc.body), tc.boundary, nil)
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
		parts, err := parseForm(body, boundary, nil)
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

// piecewise yields a body in pieces of the sizes given, in turn.
type piecewise struct {
	data  []byte
	sizes []int
	n     int
}

func (r *piecewise) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), len(r.data), r.sizes[r.n%len(r.sizes)])
	r.n++
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// TestDelimitersFoundAsTheBodyArrivesAreThoseParseFormFinds reads bodies in pieces of
// many sizes, delimiters split across two pieces or more, and checks that parseForm
// with the delimiters noted on the way finds the same fields as parseForm scanning the
// whole body, and that a body of too many fields makes it scan for itself.
func TestDelimitersFoundAsTheBodyArrivesAreThoseParseFormFinds(t *testing.T) {
	many := make([][2]string, maxDelimiters+1)
	for i := range many {
		many[i] = [2]string{"f", "x"}
	}
	bodies := []struct {
		name   string
		fields [][2]string
	}{
		{"an image and settings", [][2]string{{"image", string(bytes.Repeat([]byte("\x89PNG\r\n\x1a\n-\r\n--"), 300))}, {"settings", "{}"}}},
		{"settings first", [][2]string{{"settings", `{"engine":"x"}`}, {"image", "abc"}}},
		{"empty fields", [][2]string{{"image", ""}, {"settings", ""}, {"x", ""}}},
		{"too many fields", many},
	}
	for _, b := range bodies {
		body, boundary := formBody(t, b.fields...)
		want, wantErr := parseForm(body, boundary, nil)
		for _, sizes := range [][]int{{1}, {2, 3}, {7}, {len(boundary) + 3}, {len(boundary) + 4, 1}, {64 << 10}, {5, 61, 1, 66}} {
			found := newDelimiters(&piecewise{data: body, sizes: sizes}, boundary)
			read, err := io.ReadAll(found)
			if err != nil || !bytes.Equal(read, body) {
				t.Fatalf("%s in pieces of %v: read %d bytes of %d (%v)", b.name, sizes, len(read), len(body), err)
			}
			got, gotErr := parseForm(read, boundary, found)
			if !errors.Is(gotErr, wantErr) || !slices.Equal(got, want) {
				t.Errorf("%s in pieces of %v: %v %v, want %v %v", b.name, sizes, got, gotErr, want, wantErr)
			}
			if b.name == "too many fields" && !found.full {
				t.Errorf("%s: the delimiters were all noted; parseForm should scan for itself", b.name)
			}
			if b.name != "too many fields" && !found.knows(read, []byte("\r\n--"+boundary)) {
				t.Errorf("%s in pieces of %v: the delimiters noted are not used", b.name, sizes)
			}
		}
	}
	if newDelimiters(bytes.NewReader(nil), "a\r\nb") != nil {
		t.Errorf("a boundary with CR LF is looked for in one pass")
	}
}
