package api

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
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

// TestTheDelimiterSearchFindsWhatBytesIndexFinds plants delimiters, delimiters missing
// a byte and runs of the boundary's own bytes in random data, for boundaries as clients
// make them and for boundaries of few distinct bytes, and checks that delimiters.index
// finds the first delimiter where bytes.Index does, from every offset a scan resumes at.
func TestTheDelimiterSearchFindsWhatBytesIndexFinds(t *testing.T) {
	boundaries := []struct{ name, boundary string }{
		{"Go's mime/multipart", "3f1c0b2a9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e"},
		{"curl's", "------------------------d74496d66958873e"},
		{"a browser's", "----WebKitFormBoundary7MA4YWxkTrZu0gW"},
		{"one byte", "x"},
		{"all dashes", "--------"},
	}
	rng := rand.New(rand.NewPCG(19, 1))
	for _, b := range boundaries {
		delim := []byte("\r\n--" + b.boundary)
		d := newDelimiters(nil, b.boundary)
		for trial := range 300 {
			s := make([]byte, rng.IntN(3000))
			for i := range s {
				s[i] = byte(rng.Uint32())
			}
			// Plant some pieces: whole delimiters, delimiters with one byte changed,
			// and bytes of the delimiter itself, anywhere (also across the end).
			for range rng.IntN(6) {
				piece := slices.Clone(delim)
				switch rng.IntN(3) {
				case 1:
					piece[rng.IntN(len(piece))] ^= 1
				case 2:
					piece = bytes.Repeat(delim[rng.IntN(len(delim)):][:1], rng.IntN(200))
				}
				at := rng.IntN(len(s) + 1)
				copy(s[at:], piece)
			}
			// And a delimiter that ends s, or starts it.
			if len(s) >= len(delim) {
				switch trial % 3 {
				case 0:
					copy(s[len(s)-len(delim):], delim)
				case 1:
					copy(s, delim)
				}
			}
			for _, from := range []int{0, min(1, len(s)), len(s) / 3, max(0, len(s)-len(delim))} {
				want := bytes.Index(s[from:], delim)
				if got := d.index(s[from:]); got != want {
					t.Fatalf("%s boundary, trial %d, from %d of %d bytes: found %d, want %d", b.name, trial, from, len(s), got, want)
				}
			}
		}
	}
}
