package enginetest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Drawing lists the elements that put paint on the canvas.
var Drawing = []string{"path", "rect", "circle", "ellipse", "polygon", "polyline", "line", "use", "image", "text"}

// SVGInfo is what Inspect learns from an SVG document.
type SVGInfo struct {
	// Width and Height are the viewBox size.
	Width, Height int
	// Elements counts elements by local name, the root included.
	Elements map[string]int
	// Attrs counts attributes by local name over all elements.
	Attrs map[string]int
}

// DrawingElements returns the number of elements that put paint on the canvas.
func (s *SVGInfo) DrawingElements() int {
	n := 0
	for _, name := range Drawing {
		n += s.Elements[name]
	}
	return n
}

// Inspect parses doc strictly and checks the rules every Tracecraft engine's output
// follows: well-formed UTF-8 XML without a DOCTYPE, a root svg element in the SVG
// namespace with viewBox="0 0 W H" (integers), and nothing active or external: no
// script or foreignObject, no event attributes, and href or url() only to fragments
// inside the document. It returns every problem found, joined.
func Inspect(doc []byte) (*SVGInfo, error) {
	info := &SVGInfo{Elements: map[string]int{}, Attrs: map[string]int{}}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !utf8.Valid(doc) {
		bad("not valid UTF-8")
	}
	if bytes.IndexByte(doc, 0) >= 0 {
		bad("contains a NUL byte")
	}
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			bad("not well-formed XML: %v", err)
			break
		}
		switch t := tok.(type) {
		case xml.Directive:
			bad("has a directive <!%s>", strings.Fields(string(t) + " ")[0])
		case xml.ProcInst:
			if t.Target != "xml" {
				bad("has a processing instruction <?%s?>", t.Target)
			}
		case xml.StartElement:
			if depth == 0 {
				roots++
				checkRoot(t, info, bad)
			}
			depth++
			info.Elements[t.Name.Local]++
			if t.Name.Space != svg.Namespace {
				bad("element <%s> is not in the SVG namespace", t.Name.Local)
			}
			switch t.Name.Local {
			case "script", "foreignObject", "iframe", "embed", "object":
				bad("has a <%s> element", t.Name.Local)
			}
			for _, a := range t.Attr {
				info.Attrs[a.Name.Local]++
				checkAttr(t.Name.Local, a, bad)
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				bad("has text outside the root element")
			}
		}
	}
	if roots != 1 {
		bad("has %d root elements, want 1", roots)
	}
	return info, errors.Join(errs...)
}

func checkRoot(t xml.StartElement, info *SVGInfo, bad func(string, ...any)) {
	if t.Name.Local != "svg" {
		bad("root element is <%s>, want <svg>", t.Name.Local)
		return
	}
	var viewBox string
	hasXMLNS := false
	for _, a := range t.Attr {
		switch {
		case a.Name.Local == "viewBox" && a.Name.Space == "":
			viewBox = a.Value
		case a.Name.Space == "" && a.Name.Local == "xmlns" && a.Value == svg.Namespace:
			hasXMLNS = true
		}
	}
	if !hasXMLNS {
		bad(`root has no xmlns="%s"`, svg.Namespace)
	}
	f := strings.Fields(viewBox)
	if len(f) != 4 || f[0] != "0" || f[1] != "0" {
		bad("viewBox %q is not \"0 0 W H\"", viewBox)
		return
	}
	w, err1 := strconv.Atoi(f[2])
	h, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || w <= 0 || h <= 0 {
		bad("viewBox %q does not give a positive integer size", viewBox)
		return
	}
	info.Width, info.Height = w, h
}

func checkAttr(elem string, a xml.Attr, bad func(string, ...any)) {
	name, value := strings.ToLower(a.Name.Local), strings.TrimSpace(a.Value)
	if strings.HasPrefix(name, "on") {
		bad("<%s> has an event attribute %s", elem, a.Name.Local)
	}
	if name == "href" && !strings.HasPrefix(value, "#") {
		bad("<%s> has an external reference %q", elem, value)
	}
	lower := strings.ToLower(value)
	for i := strings.Index(lower, "url("); i >= 0; {
		rest := strings.TrimLeft(lower[i+4:], " '\"")
		if !strings.HasPrefix(rest, "#") {
			bad("<%s %s> refers outside the document: %q", elem, a.Name.Local, value)
			break
		}
		next := strings.Index(lower[i+4:], "url(")
		if next < 0 {
			break
		}
		i += 4 + next
	}
	if strings.Contains(lower, "javascript:") {
		bad("<%s %s> contains javascript:", elem, a.Name.Local)
	}
}
