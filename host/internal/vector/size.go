package vector

import (
	"bytes"
	"html"
)

// SetSize returns the SVG with its root's width and height set to w and h (lengths with
// their unit, "210mm"), replacing those it had; the viewBox and everything else is kept
// byte for byte.
func SetSize(svg []byte, w, h string) []byte {
	start := rootStart(svg)
	if start < 0 {
		return svg
	}
	i := start + len("<svg")
	var out bytes.Buffer
	out.Grow(len(svg) + 40)
	out.Write(svg[:i])
	out.WriteString(` width="` + html.EscapeString(w) + `" height="` + html.EscapeString(h) + `"`)
	// Copy the root's attributes but width and height.
	for {
		j := i
		for j < len(svg) && isSpace(svg[j]) {
			j++
		}
		if j >= len(svg) || svg[j] == '>' || svg[j] == '/' {
			out.Write(svg[i:])
			return out.Bytes()
		}
		k := j
		for k < len(svg) && svg[k] != '=' && !isSpace(svg[k]) && svg[k] != '>' {
			k++
		}
		name := string(svg[j:k])
		e := k
		for e < len(svg) && isSpace(svg[e]) {
			e++
		}
		if e < len(svg) && svg[e] == '=' {
			e++
			for e < len(svg) && isSpace(svg[e]) {
				e++
			}
			if e < len(svg) && (svg[e] == '"' || svg[e] == '\'') {
				q := svg[e]
				e++
				for e < len(svg) && svg[e] != q {
					e++
				}
				e++
			}
		}
		if e > len(svg) {
			return svg
		}
		if name != "width" && name != "height" {
			out.Write(svg[i:e])
		}
		i = e
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// rootStart returns the index of the root's "<svg", -1 if there is none.
func rootStart(svg []byte) int {
	for off := 0; ; {
		i := bytes.Index(svg[off:], []byte("<svg"))
		if i < 0 {
			return -1
		}
		i += off
		if i+4 < len(svg) && (isSpace(svg[i+4]) || svg[i+4] == '>' || svg[i+4] == '/') {
			return i
		}
		off = i + 4
	}
}
