package api

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"net/textproto"
	"strings"
)

// formPart is one field of a multipart/form-data body held in memory: its name and the
// position of its content in the body.
type formPart struct {
	name     string
	off, len int
}

// maxFormParts is the most fields a tracing request may carry; the form has two.
const maxFormParts = 64

// errFormUnusual reports a body that parseForm does not take apart itself (a part in a
// transfer encoding, bare LF line ends, a missing final boundary): it is then read with
// mime/multipart, which decodes what can be decoded and names what is malformed.
var errFormUnusual = errors.New("multipart body needs the general reader")

// errTooManyParts reports a body of more than maxFormParts fields.
var errTooManyParts = errors.New("too many fields")

// parseForm finds the fields of a multipart/form-data body (RFC 7578, framed as RFC 2046
// says) without copying their content: the upload is read whole into memory the engine
// maps, and the image stays where it landed. It takes the common shape every client
// sends: CRLF line ends, an optional preamble, parts without a transfer encoding, a final
// boundary. Anything else is errFormUnusual.
//
// found, when not nil, has seen the whole body as it was read and knows where its
// delimiters are, so that the body is not scanned again.
func parseForm(body []byte, boundary string, found *delimiters) ([]formPart, error) {
	dash := "--" + boundary
	delim := []byte("\r\n" + dash)
	index := func(from int) int { return bytes.Index(body[from:], delim) }
	if found.knows(body, delim) {
		index = found.after
	}
	var pos int
	switch {
	case bytes.HasPrefix(body, []byte(dash)):
		pos = len(dash)
	default:
		i := index(0)
		if i < 0 {
			return nil, errFormUnusual
		}
		pos = i + len(delim)
	}
	var parts []formPart
	for {
		// pos is just past a boundary: "--" ends the body; otherwise optional
		// whitespace (transport padding) and CRLF start a part.
		rest := body[pos:]
		if bytes.HasPrefix(rest, []byte("--")) {
			return parts, nil
		}
		line := bytes.TrimLeft(rest, " \t")
		if !bytes.HasPrefix(line, []byte("\r\n")) {
			return nil, errFormUnusual
		}
		pos += len(rest) - len(line) + 2
		// The header block runs to the first empty line; it may itself be empty.
		end := 0
		if !bytes.HasPrefix(body[pos:], []byte("\r\n")) {
			end = bytes.Index(body[pos:], []byte("\r\n\r\n"))
			if end < 0 {
				return nil, errFormUnusual
			}
			end += 2
		}
		name, err := partName(body[pos : pos+end+2])
		if err != nil {
			return nil, err
		}
		start := pos + end + 2
		n := index(start)
		if n < 0 {
			return nil, errFormUnusual
		}
		if len(parts) == maxFormParts {
			return nil, errTooManyParts
		}
		parts = append(parts, formPart{name: name, off: start, len: n})
		pos = start + n + len(delim)
	}
}

// partName returns the field name a part's header block gives, as mime/multipart's
// Part.FormName does: "" unless the disposition is form-data.
func partName(header []byte) (string, error) {
	// A reader of the block's own size (bufio's least is 16 bytes), not the default
	// 4 KiB: every line fits, and a request's parts cost no more than their headers.
	h, err := textproto.NewReader(bufio.NewReaderSize(bytes.NewReader(header), len(header))).ReadMIMEHeader()
	if err != nil {
		return "", errFormUnusual
	}
	if enc := h.Get("Content-Transfer-Encoding"); enc != "" && !strings.EqualFold(enc, "binary") &&
		!strings.EqualFold(enc, "8bit") && !strings.EqualFold(enc, "7bit") {
		return "", errFormUnusual
	}
	d, params, err := mime.ParseMediaType(h.Get("Content-Disposition"))
	if err != nil || d != "form-data" {
		return "", nil
	}
	return params["name"], nil
}

// delimiters reads a multipart body through and notes where its delimiters (CRLF, "--"
// and the boundary) are, piece by piece as they arrive, while each piece is still in
// the processor's cache: parseForm then looks them up instead of scanning the whole
// body a second time from memory (3 MB for a 4 MP photo).
type delimiters struct {
	r     io.Reader
	delim []byte
	read  int
	// tail is the end of what was read, len(delim)-1 bytes at most: the start of a
	// delimiter that the next piece completes.
	tail []byte
	// at are the offsets of the delimiters found, in order; after too many, full is
	// set and parseForm scans for itself.
	at   []int
	full bool
	// places lists, for each byte value c, the positions in delim that hold c:
	// places[first[c]:first[c+1]] (see index).
	first  [257]int32
	places []int32
}

// maxDelimiters is the most delimiters noted: a body with more has too many fields.
const maxDelimiters = maxFormParts + 2

// newDelimiters returns a reader of r that notes the delimiters of boundary, or nil if
// the boundary could overlap itself (one holding CR or LF, which RFC 2046 does not
// allow), where finding every delimiter in one pass would not be simple.
func newDelimiters(r io.Reader, boundary string) *delimiters {
	if strings.ContainsAny(boundary, "\r\n") {
		return nil
	}
	delim := []byte("\r\n--" + boundary)
	d := &delimiters{r: r, delim: delim, tail: make([]byte, 0, 2*len(delim)), places: make([]int32, len(delim))}
	for _, c := range delim {
		d.first[int(c)+1]++
	}
	for c := 1; c <= 256; c++ {
		d.first[c] += d.first[c-1]
	}
	next := d.first
	for p, c := range delim {
		d.places[next[c]] = int32(p)
		next[c]++
	}
	return d
}

func (d *delimiters) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if n > 0 && !d.full {
		d.scan(p[:n])
	}
	d.read += n
	return n, err
}

// scan notes the delimiters that end in piece, which follows d.read bytes.
func (d *delimiters) scan(piece []byte) {
	k := len(d.delim)
	if t := len(d.tail); t > 0 {
		// One that starts in the tail ends in piece; none fits in the tail alone.
		d.tail = append(d.tail, piece[:min(len(piece), k-1)]...)
		if i := bytes.Index(d.tail, d.delim); i >= 0 && i < t {
			d.note(d.read - t + i)
		}
		d.tail = d.tail[:t]
	}
	for off := 0; !d.full; {
		i := d.index(piece[off:])
		if i < 0 {
			break
		}
		d.note(d.read + off + i)
		off += i + k
	}
	// Keep the last k-1 bytes read.
	if len(piece) >= k-1 {
		d.tail = append(d.tail[:0], piece[len(piece)-(k-1):]...)
	} else {
		d.tail = append(d.tail, piece...)
		d.tail = d.tail[max(0, len(d.tail)-(k-1)):]
	}
}

// index returns where the first delimiter in s starts, or -1. It looks at one byte in
// every len(delim) (the skip search of Charras, Lecroq and Pehoushek, 1998): any
// delimiter within s covers exactly one of those bytes, so a delimiter can only start
// where the byte looked at lies at one of its own positions holding that byte. The
// bytes of an image's compressed data are mostly ones the delimiter lacks (40 to 70
// bytes of hex digits, letters and dashes in the boundaries clients use), and most of
// an upload is passed over without another look; bytes.Index, by contrast, stops at
// every CR, one byte in 256 of such data. Each place is tried at most once, and
// compared in full only where it holds a CR (which a delimiter holds only first), so
// the work stays linear in the body however the body is made.
func (d *delimiters) index(s []byte) int {
	k := len(d.delim)
	for j := k - 1; j < len(s); j += k {
		c := s[j]
		// Two delimiters cannot overlap (each holds a CR only first), so at most one
		// of these starts is one.
		for _, p := range d.places[d.first[c]:d.first[int(c)+1]] {
			start := j - int(p)
			if start >= 0 && start+k <= len(s) && s[start] == '\r' && bytes.Equal(s[start:start+k], d.delim) {
				return start
			}
		}
	}
	return -1
}

// note records a delimiter at offset off.
func (d *delimiters) note(off int) {
	if len(d.at) == maxDelimiters {
		d.full = true
		return
	}
	d.at = append(d.at, off)
}

// knows reports whether d has noted every delimiter delim of body: it read the whole
// of it, looking for the same delimiter, and did not give up.
func (d *delimiters) knows(body, delim []byte) bool {
	return d != nil && !d.full && d.read == len(body) && bytes.Equal(d.delim, delim)
}

// after returns the distance from from to the first delimiter at or after it, or -1.
func (d *delimiters) after(from int) int {
	for _, off := range d.at {
		if off >= from {
			return off - from
		}
	}
	return -1
}
