package svg

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Elements lists the elements an engine's SVG may hold: drawing elements, groups and
// text alternatives. Anything else (script, foreignObject, style, image, use, a, ...)
// is refused by Check.
var Elements = []string{"svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "title", "desc"}

// Attributes lists the attributes, without a namespace, that an element of an engine's
// SVG may carry: geometry and presentation. The event attributes (on...) and every
// other attribute are refused by Check; style and href are allowed with limits (see
// Check).
var Attributes = []string{
	"xmlns", "version", "baseProfile", "viewBox", "preserveAspectRatio",
	"id", "class", "style", "href", "lang",
	"d", "points", "x", "y", "width", "height", "cx", "cy", "r", "rx", "ry", "x1", "y1", "x2", "y2", "pathLength",
	"fill", "fill-opacity", "fill-rule", "stroke", "stroke-opacity", "stroke-width", "stroke-linejoin",
	"stroke-linecap", "stroke-miterlimit", "stroke-dasharray", "stroke-dashoffset", "opacity",
	"color", "display", "visibility", "clip-rule", "paint-order", "transform", "vector-effect",
	"shape-rendering", "color-rendering", "image-rendering", "text-rendering", "color-interpolation",
}

// TravelLength is the one data attribute Check allows, and only on an svg element: the
// pen-up travel, in pixels, of an engine that orders its strokes for a plotter, as a
// non-negative number. The host reports it as travelLength in its JSON answer.
const TravelLength = "data-travel-length"

// Namespaces of the attributes Check allows beside plain ones: xml:space and xml:lang,
// and xlink:href (to a #fragment only).
const (
	xmlNamespace   = "http://www.w3.org/XML/1998/namespace"
	xlinkNamespace = "http://www.w3.org/1999/xlink"
)

var (
	allowedElements   = setOf(Elements)
	allowedAttributes = setOf(Attributes)
)

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Problem is the first reason Check refuses a document.
type Problem struct {
	// Line is the line of the document where the problem is, from 1; 0 when the problem
	// is the document as a whole.
	Line int
	// Reason says what is wrong, in words.
	Reason string
}

// Error returns the reason with its line.
func (p *Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s", p.Line, p.Reason)
	}
	return p.Reason
}

// Check reports whether doc is an SVG document a client may be given as the trace of a
// width x height image, and returns the first problem (a *Problem) if it is not. The
// host runs it on every engine's answer, and the sdk runs it in the engine process, so
// an engine author meets a refusal in enginetest first. doc must be:
//
//   - valid UTF-8 and well-formed XML, read strictly by a real XML parser: no DOCTYPE or
//     other directive (so no entity can be declared or expanded: no XXE, no billion
//     laughs), no processing instruction but the XML declaration (which may only declare
//     UTF-8), and one root element with nothing but white space and comments outside it;
//   - rooted in an svg element in the SVG namespace whose viewBox is "0 0 width height";
//   - made only of the Elements, in the SVG namespace, carrying only the Attributes (and
//     xml:space, xml:lang, and namespace declarations of the SVG and XLink namespaces),
//     with text only inside title and desc, and no id on two elements;
//   - inert: no event attribute (on...), an href or xlink:href only to a #fragment of
//     the document, no url() but to a #fragment, no "javascript:", and a style attribute
//     without expression(), @import, CSS escapes or url() but to a #fragment.
func Check(doc []byte, width, height int) error {
	if !utf8.Valid(doc) {
		return &Problem{Reason: "the document is not valid UTF-8"}
	}
	if i := bytes.IndexByte(doc, 0); i >= 0 {
		return &Problem{Line: 1 + bytes.Count(doc[:i], []byte{'\n'}), Reason: "the document holds a NUL byte"}
	}
	c := checker{dec: xml.NewDecoder(bytes.NewReader(doc)), width: width, height: height}
	c.dec.Strict = true
	// No CharsetReader: a declared encoding other than UTF-8 is an error. Entity stays
	// nil: only the five predefined entities and character references are known.
	return c.run()
}

// checker walks one document's tokens.
type checker struct {
	dec           *xml.Decoder
	width, height int
	depth, roots  int
	// seen is set once the first token has been read: an XML declaration must come first.
	seen bool
	// text is set while inside an element that may hold text (title or desc).
	textDepth int
	// ids holds the id attributes seen: an id names one element of the document.
	ids map[string]bool
}

func (c *checker) problem(format string, args ...any) *Problem {
	line, _ := c.dec.InputPos()
	return &Problem{Line: line, Reason: fmt.Sprintf(format, args...)}
}

func (c *checker) run() error {
	for {
		tok, err := c.dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var syn *xml.SyntaxError
			if errors.As(err, &syn) {
				return &Problem{Line: syn.Line, Reason: "not well-formed XML: " + syn.Msg}
			}
			return c.problem("not well-formed XML: %v", err)
		}
		if err := c.token(tok); err != nil {
			return err
		}
		c.seen = true
	}
	if c.roots == 0 {
		return &Problem{Reason: "the document has no root element"}
	}
	return nil
}

func (c *checker) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.Directive:
		word, _, _ := strings.Cut(strings.TrimSpace(string(t)), " ")
		return c.problem("<!%s> is not allowed: no DOCTYPE, entity or other declaration", word)
	case xml.ProcInst:
		if t.Target != "xml" || c.seen {
			return c.problem("the processing instruction <?%s?> is not allowed", t.Target)
		}
	case xml.CharData:
		if c.textDepth == 0 && len(bytes.TrimSpace(t)) > 0 {
			if c.depth == 0 {
				return c.problem("text outside the root element")
			}
			return c.problem("text is only allowed inside <title> and <desc>")
		}
	case xml.StartElement:
		if c.depth == 0 {
			c.roots++
			if c.roots > 1 {
				return c.problem("a second root element <%s>", t.Name.Local)
			}
			if err := c.root(t); err != nil {
				return err
			}
		}
		c.depth++
		if c.textDepth > 0 {
			return c.problem("element <%s> inside <%s>: only text is allowed there", t.Name.Local, "title or desc")
		}
		if err := c.element(t); err != nil {
			return err
		}
		if t.Name.Local == "title" || t.Name.Local == "desc" {
			c.textDepth = c.depth
		}
	case xml.EndElement:
		if c.textDepth == c.depth {
			c.textDepth = 0
		}
		c.depth--
	}
	return nil
}

// root checks the root element's name and viewBox.
func (c *checker) root(t xml.StartElement) error {
	if t.Name.Local != "svg" || t.Name.Space != Namespace {
		return c.problem("the root element is <%s>, not an svg element in the SVG namespace %s", t.Name.Local, Namespace)
	}
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == "viewBox" {
			return c.viewBox(a.Value)
		}
	}
	return c.problem(`the svg element has no viewBox; want viewBox="0 0 %d %d"`, c.width, c.height)
}

// viewBox checks that v is "0 0 width height" (numbers, separated by white space or
// commas).
func (c *checker) viewBox(v string) error {
	f := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	want := [4]float64{0, 0, float64(c.width), float64(c.height)}
	ok := len(f) == 4
	for i := 0; ok && i < 4; i++ {
		n, err := strconv.ParseFloat(f[i], 64)
		ok = err == nil && n == want[i]
	}
	if !ok {
		return c.problem(`viewBox=%q does not match the image: want "0 0 %d %d"`, clip(v), c.width, c.height)
	}
	return nil
}

// element checks an element's name and its attributes.
func (c *checker) element(t xml.StartElement) error {
	if t.Name.Space != Namespace {
		return c.problem("element <%s> is not in the SVG namespace", qualified(t.Name))
	}
	if !allowedElements[t.Name.Local] {
		return c.problem("element <%s> is not allowed; only %s are", t.Name.Local, strings.Join(Elements, ", "))
	}
	for i, a := range t.Attr {
		for _, b := range t.Attr[:i] {
			if a.Name == b.Name {
				return c.problem("<%s> has the attribute %s twice", t.Name.Local, qualified(a.Name))
			}
		}
		if err := c.attribute(t.Name.Local, a); err != nil {
			return err
		}
		if a.Name.Space == "" && a.Name.Local == "id" {
			if c.ids[a.Value] {
				return c.problem("<%s> has id=%q, which another element has: an id names one element", t.Name.Local, clip(a.Value))
			}
			if c.ids == nil {
				c.ids = map[string]bool{}
			}
			c.ids[a.Value] = true
		}
	}
	return nil
}

// attribute checks one attribute of elem.
func (c *checker) attribute(elem string, a xml.Attr) error {
	name, value := a.Name.Local, a.Value
	lower := strings.ToLower(value)
	switch a.Name.Space {
	case "":
		if strings.HasPrefix(strings.ToLower(name), "on") {
			return c.problem("<%s> has the event attribute %s", elem, name)
		}
		if name == TravelLength && elem == "svg" {
			if n, err := strconv.ParseFloat(value, 64); err != nil || n < 0 || math.IsInf(n, 0) {
				return c.problem("<svg %s=%q>: want a non-negative number of pixels", name, clip(value))
			}
			return nil
		}
		if !allowedAttributes[name] {
			return c.problem("<%s> has the attribute %s, which is not allowed", elem, name)
		}
		if name == "xmlns" && value != Namespace {
			return c.problem("<%s> declares the default namespace %q; only %s is allowed", elem, clip(value), Namespace)
		}
	case "xmlns":
		if value != Namespace && value != xlinkNamespace {
			return c.problem("<%s> declares the namespace %s=%q; only the SVG and XLink namespaces are allowed", elem, name, clip(value))
		}
		return nil
	case xmlNamespace:
		if name != "space" && name != "lang" {
			return c.problem("<%s> has the attribute xml:%s, which is not allowed", elem, name)
		}
	case xlinkNamespace:
		if name != "href" {
			return c.problem("<%s> has the attribute xlink:%s, which is not allowed", elem, name)
		}
	default:
		return c.problem("<%s> has the attribute %s, which is not allowed", elem, qualified(a.Name))
	}
	if name == "href" && !strings.HasPrefix(strings.TrimSpace(value), "#") {
		return c.problem("<%s> has href=%q: only a #fragment of the document is allowed", elem, clip(value))
	}
	if strings.Contains(lower, "javascript:") {
		return c.problem("<%s %s> holds javascript:", elem, name)
	}
	if err := c.urls(elem, name, lower, value); err != nil {
		return err
	}
	if name == "style" {
		for _, bad := range []string{"expression(", "@import", "\\", "behavior:", "-moz-binding", "</"} {
			if strings.Contains(lower, bad) {
				return c.problem("<%s style> holds %q, which is not allowed", elem, bad)
			}
		}
	}
	return nil
}

// urls checks that every url() in an attribute's value (lower: the value in lower case)
// names a #fragment of the document.
func (c *checker) urls(elem, name, lower, value string) error {
	for rest := lower; ; {
		i := strings.Index(rest, "url(")
		if i < 0 {
			return nil
		}
		rest = rest[i+4:]
		if !strings.HasPrefix(strings.TrimLeft(rest, " \t\n\r'\""), "#") {
			return c.problem("<%s %s=%q> refers outside the document: only url(#fragment) is allowed", elem, name, clip(value))
		}
	}
}

// qualified returns a name as written, with its namespace when it has one.
func qualified(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// clip shortens a value quoted in a problem.
func clip(s string) string {
	const most = 80
	if len(s) > most {
		return s[:most] + "..."
	}
	return s
}
