package api

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestWriteWithSVGWritesWhatEncodingJSONWrites(t *testing.T) {
	type answer struct {
		SVG    string `json:"svg"`
		Engine string `json:"engine"`
		N      int    `json:"n"`
	}
	long := strings.Repeat(`<path d="M0 0"/>`, 20000) + strings.Repeat("x", 200000)
	for _, svg := range []string{"", `<svg xmlns="http://www.w3.org/2000/svg"/>`, "a\"b\\c\n\r\t\x01\x1f\u2028\u2029é<&>", long, "\u2028" + long + "\"\u2029"} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(answer{SVG: svg, Engine: "e<&>", N: 3}); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		var size int64 = -1
		if err := writeWithSVG(&got, answer{Engine: "e<&>", N: 3}, []byte(svg), func(n int64) { size = n }); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("for an SVG of %d bytes, wrote\n%.300q\nwant\n%.300q", len(svg), got.String(), want.String())
		}
		if size != int64(want.Len()) {
			t.Errorf("for an SVG of %d bytes, announced %d bytes, want %d", len(svg), size, want.Len())
		}
	}
}

// BenchmarkWriteWithSVG writes the JSON answer of a 440 KB SVG of paths, each attribute
// value in quotes that JSON escapes.
func BenchmarkWriteWithSVG(b *testing.B) {
	type answer struct {
		SVG    string `json:"svg"`
		Engine string `json:"engine"`
	}
	var doc strings.Builder
	doc.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1400 1400">` + "\n")
	for i := 0; doc.Len() < 440<<10; i++ {
		doc.WriteString(`<path id="p-` + strings.Repeat("1", i%4+1) + `" fill="#a1b2c3" d="M12.5 40.25C13 41.5 15.75 43 17 44.5L20 48.25 22.5 50Z"/>` + "\n")
	}
	doc.WriteString("</svg>\n")
	svg := []byte(doc.String())
	b.SetBytes(int64(len(svg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := writeWithSVG(io.Discard, answer{Engine: "tracecraft"}, svg, func(int64) {}); err != nil {
			b.Fatal(err)
		}
	}
}
