package api

import (
	"bufio"
	"bytes"
	"errors"
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
func parseForm(body []byte, boundary string) ([]formPart, error) {
	dash := "--" + boundary
	delim := []byte("\r\n" + dash)
	var pos int
	switch {
	case bytes.HasPrefix(body, []byte(dash)):
		pos = len(dash)
	default:
		i := bytes.Index(body, delim)
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
		n := bytes.Index(body[start:], delim)
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
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(header))).ReadMIMEHeader()
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
