package svg

import (
	"bytes"
	"image/color"
	"strconv"
	"strings"
)

// Namespace is the SVG namespace every document declares.
const Namespace = "http://www.w3.org/2000/svg"

// Header appends the opening svg tag of a w x h image: xmlns and viewBox="0 0 w h", and
// width and height attributes when fixedSize is set. extra, if not empty, is appended
// inside the tag verbatim (for example ` fill-rule="evenodd"`); it must start with a
// space and be well-formed.
func Header(dst *bytes.Buffer, w, h int, fixedSize bool, extra string) {
	dst.WriteString(`<svg xmlns="` + Namespace + `" viewBox="0 0 `)
	dst.WriteString(strconv.Itoa(w))
	dst.WriteByte(' ')
	dst.WriteString(strconv.Itoa(h))
	dst.WriteByte('"')
	if fixedSize {
		dst.WriteString(` width="` + strconv.Itoa(w) + `" height="` + strconv.Itoa(h) + `"`)
	}
	dst.WriteString(extra)
	dst.WriteByte('>')
}

// Footer appends the closing svg tag and a final newline.
func Footer(dst *bytes.Buffer) { dst.WriteString("</svg>\n") }

// Empty returns a complete document of a w x h image with nothing drawn, as engines
// answer for a fully transparent image.
func Empty(w, h int, fixedSize bool) []byte {
	var b bytes.Buffer
	Header(&b, w, h, fixedSize, "")
	Footer(&b)
	return b.Bytes()
}

// Hex returns the colour's RGB in its shortest hex form, "#abc" where each channel's two
// digits repeat, "#a1b2c3" otherwise. Alpha is ignored: write it with Opacity.
func Hex(c color.NRGBA) string {
	const digits = "0123456789abcdef"
	if c.R%17 == 0 && c.G%17 == 0 && c.B%17 == 0 {
		return string([]byte{'#', digits[c.R/17], digits[c.G/17], digits[c.B/17]})
	}
	return string([]byte{'#', digits[c.R>>4], digits[c.R&15], digits[c.G>>4], digits[c.G&15], digits[c.B>>4], digits[c.B&15]})
}

// Paint returns the attributes that paint with c, for attr "fill" or "stroke":
// ` fill="#rgb"`, followed by ` fill-opacity="..."` when c is not opaque.
func Paint(attr string, c color.NRGBA) string {
	s := " " + attr + `="` + Hex(c) + `"`
	if c.A < 255 {
		s += " " + attr + `-opacity="` + Opacity(c.A) + `"`
	}
	return s
}

// Opacity formats an 8-bit alpha as an opacity in [0, 1] with 3 decimals (".502").
func Opacity(a uint8) string { return Num(float64(a)/255, 3) }

// AttrEscape escapes s for use inside a double-quoted XML attribute.
func AttrEscape(s string) string {
	return attrReplacer.Replace(s)
}

var attrReplacer = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;", "\n", "&#10;", "\r", "&#13;", "\t", "&#9;")

// IDs hands out the short, stable ids of a document's colour groups and shapes, so that
// a user can target them in CSS or find them in an editor's layers panel: a colour
// group (or a path holding every shape of one colour) is "c-" and its hex RGB
// ("c-1a2b3c"), with the alpha appended when it is not opaque ("c-1a2b3c80") and "-2",
// "-3"... when the same colour has several groups; a shape is "p-" and its number in
// document order ("p-1"). They depend only on the colours and the order of writing, so
// the same image and settings give the same ids, and they are unique in the document.
// The zero IDs is ready to use.
type IDs struct {
	colours map[string]int
	shapes  int
}

// Colour returns the id of the next group of colour c.
func (ids *IDs) Colour(c color.NRGBA) string {
	const digits = "0123456789abcdef"
	id := []byte{'c', '-', digits[c.R>>4], digits[c.R&15], digits[c.G>>4], digits[c.G&15], digits[c.B>>4], digits[c.B&15]}
	if c.A < 255 {
		id = append(id, digits[c.A>>4], digits[c.A&15])
	}
	if ids.colours == nil {
		ids.colours = map[string]int{}
	}
	s := string(id)
	n := ids.colours[s] + 1
	ids.colours[s] = n
	if n > 1 {
		s += "-" + strconv.Itoa(n)
	}
	return s
}

// Shape returns the id of the next shape.
func (ids *IDs) Shape() string {
	ids.shapes++
	return "p-" + strconv.Itoa(ids.shapes)
}

// IDAttr returns the attribute ` id="..."` for id.
func IDAttr(id string) string { return ` id="` + id + `"` }
