package svg

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// doc wraps body in the root element of a 10 x 8 image.
func doc(body string) string {
	return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 8">` + body + `</svg>`
}

func TestCheckAcceptsWhatEnginesWrite(t *testing.T) {
	var b bytes.Buffer
	Header(&b, 10, 8, true, ` fill-rule="evenodd"`)
	b.WriteString(`<g stroke="#000" stroke-width="2" stroke-linejoin="round" fill="none" vector-effect="non-scaling-stroke">`)
	b.WriteString(`<path d="M0 0L10 0L10 8Z" fill="#f00" fill-opacity=".5"/><rect x="1" y="1" width="2" height="2" rx="1"/>`)
	b.WriteString(`<circle cx="5" cy="4" r="2"/><ellipse cx="5" cy="4" rx="2" ry="1" transform="rotate(30 5 4)"/>`)
	b.WriteString(`<line x1="0" y1="0" x2="10" y2="8"/><polyline points="0,0 1,1"/><polygon points="0,0 1,1 2,0"/></g>`)
	Footer(&b)
	tests := []struct{ name, doc string }{
		{"the sdk's writer's output", b.String()},
		{"an empty image", string(Empty(10, 8, false))},
		{"an XML declaration, a comment and a title", `<?xml version="1.0" encoding="UTF-8"?>` + "\n<!-- traced -->\n" +
			doc(`<title>logo &amp; text &#233;</title><desc><![CDATA[a <b> c]]></desc>`)},
		{"ids on a group and its paths", doc(`<g id="c-1a2b3c" fill="#1a2b3c"><path id="p-1" d="M0 0"/><path id="p-2" d="M1 1"/></g>`)},
		{"a style without url()", doc(`<path style="fill:#f00;stroke:none" d="M0 0"/>`)},
		{"a url() to a fragment", doc(`<path fill="url(#a)" d="M0 0"/>`)},
		{"an href to a fragment", `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 8"><g xlink:href="#p" href=" #q"/></svg>`},
		{"a viewBox with commas and decimals", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0,0,10.0,8">` + "</svg>"},
		{"the travel length on the root", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 8" data-travel-length="12.5"></svg>`},
		{"a prefixed svg element", `<s:svg xmlns:s="http://www.w3.org/2000/svg" viewBox="0 0 10 8"><s:path d="M0 0"/></s:svg>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Check([]byte(tt.doc), 10, 8); err != nil {
				t.Errorf("Check refused a harmless document: %v\n%s", err, tt.doc)
			}
		})
	}
}

func TestCheckRefusesWhatCouldHarmAClient(t *testing.T) {
	tests := []struct {
		name, doc string
		want      string // in the problem
	}{
		{"a script element", doc(`<script>alert(1)</script>`), "<script> is not allowed"},
		{"a script in the XHTML namespace", doc(`<script xmlns="http://www.w3.org/1999/xhtml">alert(1)</script>`), "not in the SVG namespace"},
		{"a foreignObject", doc(`<foreignObject width="10" height="8"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>`), "<foreignObject> is not allowed"},
		{"a style element", doc(`<style>path{fill:url(http://evil/)}</style>`), "<style> is not allowed"},
		{"an image element", doc(`<image href="http://evil/x.png"/>`), "<image> is not allowed"},
		{"a use element", doc(`<use href="#a"/>`), "<use> is not allowed"},
		{"a link", doc(`<a href="javascript:alert(1)"><path d="M0 0"/></a>`), "<a> is not allowed"},
		{"an animation", doc(`<set attributeName="fill" to="red"/>`), "<set> is not allowed"},
		{"an id on two elements", doc(`<g id="c-1a2b3c"><path id="c-1a2b3c" d="M0 0"/></g>`), `id="c-1a2b3c", which another element has`},
		{"an onload attribute", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 8" onload="alert(1)"></svg>`, "event attribute onload"},
		{"an onclick in upper case", doc(`<path ONCLICK="alert(1)" d="M0 0"/>`), "event attribute ONCLICK"},
		{"an external href", doc(`<g href="http://evil/"/>`), "only a #fragment"},
		{"a travel length that is not a number", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 8" data-travel-length="far"></svg>`, "non-negative number"},
		{"a travel length off the svg element", doc(`<g data-travel-length="3"/>`), "data-travel-length, which is not allowed"},
		{"another data attribute", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 8" data-x="1"></svg>`, "data-x, which is not allowed"},
		{"an external xlink:href", `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 8"><g xlink:href="data:image/svg+xml,x"/></svg>`, "only a #fragment"},
		{"a style attribute with url()", doc(`<path style="fill:url(https://evil/track)" d="M0 0"/>`), "refers outside the document"},
		{"a fill with url()", doc(`<path fill="url( 'http://evil/' )" d="M0 0"/>`), "refers outside the document"},
		{"a style attribute with expression()", doc(`<path style="width:expression(alert(1))" d="M0 0"/>`), "expression("},
		{"a style attribute with a CSS escape", doc(`<path style="fill:u\72l(http://evil/)" d="M0 0"/>`), `"\\"`},
		{"a style attribute with @import", doc(`<path style="@import 'http://evil/'" d="M0 0"/>`), "@import"},
		{"javascript: in a value", doc(`<path class="javascript:alert(1)" d="M0 0"/>`), "javascript:"},
		{"an unknown attribute", doc(`<path filter="blur(1)" d="M0 0"/>`), "filter, which is not allowed"},
		{"an attribute in another namespace", doc(`<path xmlns:e="urn:evil" e:x="1" d="M0 0"/>`), "namespace e"},
		{"a second default namespace", doc(`<g xmlns="urn:evil"/>`), "not in the SVG namespace"},
		{"a DOCTYPE with an entity (XXE)", `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>` + doc(`<title>&x;</title>`), "<!DOCTYPE> is not allowed"},
		{"a billion laughs", `<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>` + doc(`<title>&b;</title>`), "<!DOCTYPE> is not allowed"},
		{"an undeclared entity", doc(`<title>&nbsp;</title>`), "not well-formed"},
		{"a processing instruction", doc(`<?xml-stylesheet href="http://evil/x.css"?>`), "<?xml-stylesheet?> is not allowed"},
		{"a late XML declaration", `<!-- x --><?xml version="1.0"?>` + doc(""), "<?xml?> is not allowed"},
		{"a Latin-1 declaration", `<?xml version="1.0" encoding="ISO-8859-1"?>` + doc(""), "not well-formed"},
		{"invalid UTF-8", doc("<title>\xff\xfe</title>"), "not valid UTF-8"},
		{"a NUL byte", doc("<title>\x00</title>"), "NUL byte"},
		{"an unclosed element", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 8"><g>`, "not well-formed"},
		{"mismatched tags", doc(`<g></path>`), "not well-formed"},
		{"an unescaped < in a value", doc(`<path d="<" />`), "not well-formed"},
		{"a duplicated attribute", doc(`<path d="M0 0" d="M1 1"/>`), "attribute d twice"},
		{"two roots", doc("") + doc(""), "second root"},
		{"text outside the root", doc("") + "trailing", "text outside the root"},
		{"text in a group", doc(`<g>hello</g>`), "only allowed inside <title> and <desc>"},
		{"an element in a title", doc(`<title><path d="M0 0"/></title>`), "only text is allowed"},
		{"no root", `<!-- nothing -->`, "no root element"},
		{"an empty document", ``, "no root element"},
		{"a root other than svg", `<html xmlns="http://www.w3.org/1999/xhtml"/>`, "root element is <html>"},
		{"an svg root outside the SVG namespace", `<svg viewBox="0 0 10 8"/>`, "not an svg element in the SVG namespace"},
		{"no viewBox", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="8"/>`, "no viewBox"},
		{"a viewBox of another size", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 8"/>`, `want "0 0 10 8"`},
		{"a shifted viewBox", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="1 0 10 8"/>`, `want "0 0 10 8"`},
		{"a viewBox of three numbers", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10"/>`, `want "0 0 10 8"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.doc), 10, 8)
			var p *Problem
			if !errors.As(err, &p) {
				t.Fatalf("Check accepted it (err %v), want a *Problem mentioning %q:\n%s", err, tt.want, tt.doc)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check said %q, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestCheckNamesTheLineOfTheProblem(t *testing.T) {
	err := Check([]byte(doc("\n<g>\n<script/></g>")), 10, 8)
	if err == nil || !strings.HasPrefix(err.Error(), "line 3: ") {
		t.Errorf("Check said %v, want the problem on line 3", err)
	}
}

// FuzzCheck feeds the checker mutations of harmless and hostile documents: it must never
// panic, must say the same twice, and what it accepts must hold only allowed elements
// and no event attribute, by an independent walk over the raw tokens.
func FuzzCheck(f *testing.F) {
	seeds := []string{
		string(Empty(10, 8, true)),
		doc(`<g fill="#f00"><path d="M0 0L1 1Z"/><title>x</title></g>`),
		doc(`<script>alert(1)</script>`),
		doc(`<path onload="x" style="fill:url(#a)" d="M0 0"/>`),
		`<!DOCTYPE svg [<!ENTITY a "b">]>` + doc(`<title>&a;</title>`),
		`<?xml version="1.0" encoding="UTF-8"?>` + doc(`<desc><![CDATA[<script>]]></desc>`),
		`<s:svg xmlns:s="http://www.w3.org/2000/svg" viewBox="0 0 10 8"><s:foreignObject/></s:svg>`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		err := Check(in, 10, 8)
		if again := Check(in, 10, 8); (err == nil) != (again == nil) {
			t.Fatalf("Check said %v, then %v", err, again)
		}
		if err != nil {
			return
		}
		dec := xml.NewDecoder(bytes.NewReader(in))
		for {
			tok, err := dec.RawToken()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatalf("Check accepted a document the raw reader refuses: %v\n%q", err, in)
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				if !allowedElements[tok.Name.Local] {
					t.Fatalf("Check accepted the element <%s>:\n%q", tok.Name.Local, in)
				}
				for _, a := range tok.Attr {
					if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") {
						t.Fatalf("Check accepted the attribute %s:\n%q", a.Name.Local, in)
					}
				}
			case xml.Directive:
				t.Fatalf("Check accepted a directive <!%s>:\n%q", tok, in)
			}
		}
	})
}
