package main

import (
	"encoding/json"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// TestAPaletteReachesTheEngineAndBadColoursAreEachNamed: through the real host and
// plugin binaries, a palette given as a JSON array of CSS colours comes back as an SVG
// painted with those colours only; the schema describes the parameter as a list; and a
// palette with bad items is 400 invalid_settings naming each item by its index.
func TestAPaletteReachesTheEngineAndBadColoursAreEachNamed(t *testing.T) {
	t.Parallel()
	engines := []string{"tracecraft", "tracecraft2", "potrace2", "vtracer"}
	h := startHost(t, bundledPlugins(t, engines...), "", "--workers", "2")
	img := logoOn(t, 240, 120, color.NRGBA{255, 255, 255, 255})
	palette := []string{"#1d3557", "white", "rgb(230 57 70)", "gold"}
	allowed := make([]color.NRGBA, len(palette))
	for i, s := range palette {
		allowed[i], _ = sdk.ParseColor(s)
	}
	js, _ := json.Marshal(palette)
	for _, e := range engines {
		t.Run(e, func(t *testing.T) {
			r := h.vectorize(img, fmt.Sprintf(`{"engine":%q,%q:{"palette":%s}}`, e, e, js), "Accept", "image/svg+xml")
			if r.status != 200 {
				t.Fatalf("got %s, want 200", r)
			}
			paints, err := enginetest.Paints(r.body)
			if err != nil {
				t.Fatal(err)
			}
			if len(paints) < 2 {
				t.Errorf("the SVG paints with %v; the logo's colours should map to several palette colours", paints)
			}
			for _, c := range paints {
				if !slices.Contains(allowed, c) {
					t.Errorf("the SVG paints with %v, not one of %v", c, palette)
				}
			}
			// The control: without the palette, the logo's own colours come back.
			r = h.vectorize(img, fmt.Sprintf(`{"engine":%q}`, e), "Accept", "image/svg+xml")
			plain, err := enginetest.Paints(r.body)
			if err != nil || !slices.ContainsFunc(plain, func(c color.NRGBA) bool { return !slices.Contains(allowed, c) }) {
				t.Errorf("without a palette the SVG paints with %v (%v): the test cannot tell", plain, err)
			}
		})
	}

	t.Run("the schema describes a list of colours", func(t *testing.T) {
		r := h.get("/api/schema")
		p, _ := r.json["tracecraft"].(map[string]any)["palette"].(map[string]any)
		if p["type"] != "list" || p["format"] != "color" || p["maxItems"] != 256.0 {
			t.Errorf("tracecraft.palette is described as %v, want a list of at most 256 colours", p)
		}
	})

	many := make([]string, 257)
	for i := range many {
		many[i] = fmt.Sprintf("#%06x", i)
	}
	tooMany, _ := json.Marshal(many)
	bad := []struct {
		name, settings string
		want           []string
	}{
		{"every bad item by its index", `{"tracecraft":{"palette":["red","reddish","#FF0000",3]},"potrace2":{"palette":"red"}}`,
			[]string{"tracecraft.palette[1]", "tracecraft.palette[2]", "tracecraft.palette[3]", "potrace2.palette"}},
		{"more than 256 colours", `{"tracecraft2":{"palette":` + string(tooMany) + `}}`, []string{"tracecraft2.palette"}},
		{"an array for a number", `{"tracecraft":{"maxColors":[4]}}`, []string{"tracecraft.maxColors"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := h.vectorize(img, tt.settings)
			if r.status != 400 || r.errorCode() != "invalid_settings" {
				t.Fatalf("got %s, want 400 invalid_settings", r)
			}
			if got := r.details(); !slices.Equal(got, tt.want) {
				t.Errorf("details name %v, want %v: %s", got, tt.want, r)
			}
			if strings.Contains(tt.name, "256") && !strings.Contains(string(r.body), "at most 256 items, not 257") {
				t.Errorf("the error does not say how many: %s", r)
			}
		})
	}
}
