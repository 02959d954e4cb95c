package api

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"
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

// lineSeparators reports whether s starts with U+2028 or U+2029, which encoding/json
// escapes for JavaScript's sake.
func lineSeparator(s []byte) bool {
	return len(s) >= 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)
}

// jsonStringLen returns the length of s escaped as the inside of a JSON string.
func jsonStringLen(s []byte) int64 {
	n := int64(len(s))
	for i := 0; i < len(s); i++ {
		if e := jsonEscape(s[i]); e != "" {
			n += int64(len(e) - 1)
		} else if lineSeparator(s[i:]) {
			n += 6 - 3
			i += 2
		}
	}
	return n
}

// writeJSONString writes s escaped as the inside of a JSON string, escaped bytes long
// (jsonStringLen), through a buffer of at most 64 KiB: no larger than the escaped
// string, so that a small SVG's answer does not cost a 64 KiB allocation.
func writeJSONString(w io.Writer, s []byte, escaped int64) error {
	buf := make([]byte, 0, min(64<<10, escaped))
	var err error
	emit := func(b []byte) {
		if err != nil {
			return
		}
		if len(buf)+len(b) > cap(buf) {
			_, err = w.Write(buf)
			buf = buf[:0]
		}
		if len(b) > cap(buf) {
			if err == nil {
				_, err = w.Write(b)
			}
			return
		}
		buf = append(buf, b...)
	}
	start := 0 // s[start:i] is still to write
	for i := 0; i < len(s); i++ {
		e, n := jsonEscape(s[i]), 1
		if e == "" && s[i] >= utf8.RuneSelf && lineSeparator(s[i:]) {
			e, n = `\u202`+strconv.Itoa(int(s[i+2]-0xa8)+8), 3
		}
		if e == "" {
			continue
		}
		emit(s[start:i])
		emit([]byte(e))
		i += n - 1
		start = i + 1
	}
	emit(s[start:])
	if err == nil && len(buf) > 0 {
		_, err = w.Write(buf)
	}
	return err
}
