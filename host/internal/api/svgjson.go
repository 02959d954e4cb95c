package api

import (
	"bytes"
	"encoding/json"
	"io"
)

// writeWithSVG writes v, a struct whose first field is `json:"svg"` holding "", as JSON
// with svg as that field's value, streamed from svg in chunks rather than copied into a
// string and an encoder's buffer: an SVG of 50 MB costs no more memory in the answer.
// The output is byte for byte what encoding/json writes with SetEscapeHTML(false) (svg
// is valid UTF-8: it passed svg.Check). It returns the body's length first, through
// size, so that the caller can set Content-Length before the body is written.
func writeWithSVG(w io.Writer, v any, svg []byte, size func(int64)) error {
	var rest bytes.Buffer
	enc := json.NewEncoder(&rest)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	const head = `{"svg":"`
	b := rest.Bytes()
	if !bytes.HasPrefix(b, []byte(head+`"`)) {
		panic("writeWithSVG: the value's first field is not an empty svg")
	}
	tail := b[len(head):]
	escaped := jsonStringLen(svg)
	size(int64(len(head)) + escaped + int64(len(tail)))
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	if err := writeJSONString(w, svg, escaped); err != nil {
		return err
	}
	_, err := w.Write(tail)
	return err
}

// jsonEscape returns the escape of the byte c as encoding/json writes it inside a
// string, or "" when c stands for itself. Bytes of 0x80 and above stand for themselves
// except in U+2028 and U+2029, handled apart.
func jsonEscape(c byte) string {
	switch c {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	}
	if c < 0x20 {
		return `\u00` + string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])
	}
	return ""
}

// jsonEscapes holds jsonEscape of every byte; jsonPlain says of each byte that it
// stands for itself, escaped or not (0xe2, which may start U+2028 or U+2029, does not);
// jsonExtra is how many bytes longer each byte is escaped. The loops over an SVG's
// bytes look them up once per byte.
var (
	jsonEscapes [256]string
	jsonPlain   [256]bool
	jsonExtra   [256]uint8
)

func init() {
	for c := range 256 {
		e := jsonEscape(byte(c))
		jsonEscapes[c] = e
		jsonPlain[c] = e == "" && c != 0xe2
		if e != "" {
			jsonExtra[c] = uint8(len(e) - 1)
		}
	}
}

// lineSeparatorEscapes are the escapes of U+2028 and U+2029.
var lineSeparatorEscapes = [2]string{`\u2028`, `\u2029`}

// lineSeparator reports whether s starts with U+2028 or U+2029, which encoding/json
// escapes for JavaScript's sake.
func lineSeparator(s []byte) bool {
	return len(s) >= 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)
}

// jsonStringLen returns the length of s escaped as the inside of a JSON string.
func jsonStringLen(s []byte) int64 {
	n := int64(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		n += int64(jsonExtra[c])
		if c == 0xe2 && lineSeparator(s[i:]) {
			n += 6 - 3
			i += 2
		}
	}
	return n
}

// writeJSONString writes s escaped as the inside of a JSON string, escaped bytes long
// (jsonStringLen), in chunks of at most 64 KiB: no larger than the escaped string, so
// that a small SVG's answer does not cost a 64 KiB buffer. Nothing is allocated per
// escape: an SVG's attribute values are all in quotes, which JSON escapes.
func writeJSONString(w io.Writer, s []byte, escaped int64) error {
	out := chunkWriter{w: w, buf: make([]byte, 0, min(64<<10, escaped))}
	start := 0 // s[start:i] is still to write
	for i := 0; i < len(s); i++ {
		c := s[i]
		if jsonPlain[c] {
			continue
		}
		e := jsonEscapes[c]
		if e == "" {
			if !lineSeparator(s[i:]) {
				continue
			}
			e = lineSeparatorEscapes[s[i+2]-0xa8]
			write(&out, s[start:i])
			write(&out, e)
			i += 2
			start = i + 1
			continue
		}
		write(&out, s[start:i])
		write(&out, e)
		start = i + 1
	}
	write(&out, s[start:])
	return out.flush()
}

// chunkWriter writes through its buffer to w in chunks of the buffer's capacity. Errors
// are sticky: after one, nothing more is written.
type chunkWriter struct {
	w   io.Writer
	buf []byte
	err error
}

// write adds b (a []byte or a string) to the output.
func write[T []byte | string](c *chunkWriter, b T) {
	for len(b) > 0 && c.err == nil {
		if len(c.buf) == cap(c.buf) {
			_, c.err = c.w.Write(c.buf)
			c.buf = c.buf[:0]
			continue
		}
		n := copy(c.buf[len(c.buf):cap(c.buf)], b)
		c.buf = c.buf[:len(c.buf)+n]
		b = b[n:]
	}
}

// flush writes what the buffer holds and returns the first error.
func (c *chunkWriter) flush() error {
	if c.err == nil && len(c.buf) > 0 {
		_, c.err = c.w.Write(c.buf)
		c.buf = c.buf[:0]
	}
	return c.err
}
