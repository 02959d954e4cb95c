package api

import (
	"bytes"
	"encoding/json"
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
