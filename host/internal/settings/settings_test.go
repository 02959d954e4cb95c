package settings

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/output"
	"github.com/tracecraft/tracecraft/sdk"
)

var catalog = Catalog{
	Engines: []sdk.Descriptor{
		{Name: "tracecraft", Params: []sdk.Param{
			{Name: "maxColors", Type: sdk.Number, Min: 2, Max: 256, Default: 16.0, Integer: true},
			{Name: "drawStyle", Type: sdk.Enum, Values: []string{"fill", "strokeShapes"}, Default: "fill"},
			{Name: "fixedSize", Type: sdk.Boolean, Default: false},
			{Name: "overrideColor", Type: sdk.String, Format: sdk.FormatColor},
		}},
		{Name: "potrace", Params: []sdk.Param{
			{Name: "threshold", Type: sdk.Number, Min: 0, Max: 255, Default: 128.0},
		}},
	},
	Presets: []Preset{
		{Name: "logo", Engine: "tracecraft", Params: map[string]any{"maxColors": 8.0}},
		{Name: "lineart", Engine: "potrace", Params: map[string]any{"threshold": 100.0}},
	},
	Fallback: []string{"tracecraft", "vtracer", "potrace"},
}

func TestParseAcceptsValidSettings(t *testing.T) {
	tests := []struct {
		raw  string
		want Settings
	}{
		{``, Settings{Preset: Auto, Engine: Auto, Params: map[string]map[string]any{}, Output: output.Default(), Background: BackgroundKeep}},
		{`  {}  `, Settings{Preset: Auto, Engine: Auto, Params: map[string]map[string]any{}, Output: output.Default(), Background: BackgroundKeep}},
		{`{"preset":"logo"}`, Settings{Preset: "logo", PresetGiven: true, Engine: Auto, Params: map[string]map[string]any{}, Output: output.Default(), Background: BackgroundKeep}},
		{`{"engine":"tracecraft","tracecraft":{"maxColors":32,"overrideColor":"red"}}`,
			Settings{Preset: Auto, Engine: "tracecraft", Params: map[string]map[string]any{"tracecraft": {"maxColors": 32.0, "overrideColor": "red"}}, Output: output.Default(), Background: BackgroundKeep}},
		{`{"output":{"quality":true}}`,
			Settings{Preset: Auto, Engine: Auto, Params: map[string]map[string]any{}, Output: output.Options{Format: output.SVG, Quality: true}, Background: BackgroundKeep}},
		{`{"output":{"format":"pdf","size":{"width":210,"unit":"mm"}}}`,
			Settings{Preset: Auto, Engine: Auto, Params: map[string]map[string]any{},
				Output: output.Options{Format: output.PDF, FormatGiven: true, Size: &output.Size{Width: 210, Unit: "mm", DPI: output.DefaultDPI}}, Background: BackgroundKeep}},
		{`{"background":"remove"}`, Settings{Preset: Auto, Engine: Auto, Params: map[string]map[string]any{}, Output: output.Default(), Background: BackgroundRemove}},
	}
	for _, tt := range tests {
		got, err := Parse([]byte(tt.raw), catalog)
		if err != nil {
			t.Errorf("%s: %v", tt.raw, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.raw, got, tt.want)
		}
	}
}

func TestParseListsEveryProblem(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		fields []string
	}{
		{"not an object", `[1]`, []string{"settings"}},
		{"not JSON", `{preset:logo}`, []string{"settings"}},
		{"trailing data", `{} {}`, []string{"settings"}},
		{"duplicate key", `{"preset":"logo","preset":"photo"}`, []string{"settings"}},
		{"unknown preset and engine", `{"preset":"Logo","engine":"inkscape"}`, []string{"preset", "engine"}},
		{"unknown top-level key", `{"colors":3}`, []string{"colors"}},
		{"engine object of the wrong type", `{"potrace":true}`, []string{"potrace"}},
		{"every bad parameter", `{"tracecraft":{"maxColors":"16","drawStyle":"Fill","fixedSize":1,"overrideColor":"url(x)","extra":1},"potrace":{"threshold":300}}`,
			[]string{"tracecraft.drawStyle", "tracecraft.extra", "tracecraft.fixedSize", "tracecraft.maxColors", "tracecraft.overrideColor", "potrace.threshold"}},
		{"a whole number", `{"tracecraft":{"maxColors":16.5}}`, []string{"tracecraft.maxColors"}},
		{"null is not a value", `{"tracecraft":{"maxColors":null}}`, []string{"tracecraft.maxColors"}},
		{"nested values", `{"tracecraft":{"maxColors":{"a":1},"drawStyle":[1]}}`, []string{"tracecraft.maxColors", "tracecraft.drawStyle"}},
		{"huge number", `{"tracecraft":{"maxColors":1e999}}`, []string{"settings"}},
		{"output not an object", `{"output":"pdf"}`, []string{"output"}},
		{"every bad output value", `{"output":{"format":"PDF","size":{"width":0,"height":"10","unit":"ft","dpi":0,"depth":1},"quality":1},"preset":"x"}`,
			[]string{"output.format", "output.size.width", "output.size.height", "output.size.unit", "output.size.dpi", "output.size.depth", "output.quality", "preset"}},
		{"quality not a boolean", `{"output":{"quality":"yes"}}`, []string{"output.quality"}},
		{"a size without a side", `{"output":{"size":{"unit":"mm"}}}`, []string{"output.size"}},
		{"background neither keep nor remove", `{"background":"Remove","output":{"format":"gif"}}`, []string{"background", "output.format"}},
		{"background not a string", `{"background":true}`, []string{"background"}},
		{"a size not an object", `{"output":{"size":[210,297]}}`, []string{"output.size"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.raw), catalog)
			var fe *fault.Error
			if !errors.As(err, &fe) || fe.Code != fault.InvalidSettings {
				t.Fatalf("got %v, want invalid_settings", err)
			}
			var got []string
			for _, d := range fe.Details {
				got = append(got, d.Field)
			}
			if strings.Join(got, ",") != strings.Join(tt.fields, ",") {
				t.Errorf("details for %v, want %v (message %q)", got, tt.fields, fe.Message)
			}
		})
	}
}

func TestResolveAppliesPresetThenEngineThenParameters(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		category string
		want     Resolved
	}{
		{"auto picks the category's preset", ``, "logo",
			Resolved{Preset: "logo", Engine: "tracecraft", Params: map[string]any{"maxColors": 8.0}}},
		{"explicit parameters override the preset's", `{"preset":"logo","tracecraft":{"maxColors":4}}`, "",
			Resolved{Preset: "logo", Engine: "tracecraft", Params: map[string]any{"maxColors": 4.0}}},
		{"an explicit engine without a preset uses its defaults", `{"engine":"potrace"}`, "logo",
			Resolved{Engine: "potrace", Params: map[string]any{}}},
		{"a preset for another engine lends no parameters", `{"preset":"logo","engine":"potrace","potrace":{"threshold":9}}`, "",
			Resolved{Preset: "logo", Engine: "potrace", Params: map[string]any{"threshold": 9.0}}},
		{"an explicit auto preset with an engine still takes the category", `{"preset":"auto","engine":"potrace"}`, "lineart",
			Resolved{Preset: "lineart", Engine: "potrace", Params: map[string]any{"threshold": 100.0}}},
		{"parameters of other engines are ignored", `{"preset":"lineart","tracecraft":{"maxColors":3}}`, "",
			Resolved{Preset: "lineart", Engine: "potrace", Params: map[string]any{"threshold": 100.0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.raw), catalog)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Resolve(s, catalog, Choice{Category: tt.category})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestResolveRefusesAPresetWhoseEngineIsMissing(t *testing.T) {
	cat := catalog
	cat.Engines = cat.Engines[:1]
	s, err := Parse([]byte(`{"preset":"lineart"}`), cat)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(s, cat, Choice{}); fault.Code(err) != fault.EngineUnavailable {
		t.Errorf("got %v, want engine_unavailable", err)
	}
}

func TestResolveAutoFallsBackToAnInstalledEngine(t *testing.T) {
	named := sdk.Descriptor{Name: "centerline", Stability: sdk.Stable}
	for _, tt := range []struct {
		name    string
		engines []sdk.Descriptor
		want    string
	}{
		{"bundled", catalog.Engines[:1], "tracecraft"},
		{"third-party only", []sdk.Descriptor{{Name: "exp", Stability: sdk.Experimental}, {Name: "zeta", Stability: sdk.Stable}}, "zeta"},
		{"named only first", []sdk.Descriptor{named, {Name: "zeta", Stability: sdk.Stable}}, "zeta"},
		{"named only in the fallback list", []sdk.Descriptor{named, catalog.Engines[0]}, "tracecraft"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat := catalog
			cat.Engines = tt.engines
			cat.NamedOnly = []string{"centerline"}
			cat.Fallback = []string{"centerline", "tracecraft", "vtracer", "potrace"}
			s, err := Parse(nil, cat)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Resolve(s, cat, Choice{Category: "lineart"}) // lineart names potrace, not installed
			if err != nil || r.Engine != tt.want || r.Preset != "lineart" || len(r.Params) != 0 {
				t.Errorf("got %+v, %v; want %s at its defaults", r, err, tt.want)
			}
		})
	}
}

func TestResolveDropsPresetParametersTheEngineDoesNotTake(t *testing.T) {
	cat := catalog
	cat.Presets = []Preset{{Name: "lineart", Engine: "potrace", Params: map[string]any{"threshold": 300.0, "alphaMax": 0.1}}}
	s, err := Parse([]byte(`{"preset":"lineart"}`), cat)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(s, cat, Choice{})
	if err != nil || r.Engine != "potrace" || len(r.Params) != 0 {
		t.Errorf("got %+v, %v; want potrace with neither the unknown nor the out-of-range parameter", r, err)
	}
}

func TestVariantsAndBestAreResolvedFromTheChoice(t *testing.T) {
	cat := catalog
	cat.Presets = []Preset{
		{Name: "logo", Engine: "tracecraft", Params: map[string]any{"maxColors": 8.0}},
		{Name: "lineart", Engine: "potrace", Params: map[string]any{"threshold": 100.0},
			Variants: []Variant{{Name: "shaded", Engine: "tracecraft", Params: map[string]any{"maxColors": 64.0}}}},
	}
	tests := []struct {
		name     string
		raw      string
		choice   Choice
		measured bool // NeedsAnalysis
		want     Resolved
	}{
		{"a preset with variants has the image measured, and the variant applies", `{"preset":"lineart"}`, Choice{Variant: "shaded"}, true,
			Resolved{Preset: "lineart", Variant: "shaded", Engine: "tracecraft", Params: map[string]any{"maxColors": 64.0}}},
		{"no variant chosen: the preset's own settings", `{"preset":"lineart"}`, Choice{}, true,
			Resolved{Preset: "lineart", Engine: "potrace", Params: map[string]any{"threshold": 100.0}}},
		{"an explicit engine overrides the variant, unmeasured", `{"preset":"lineart","engine":"potrace"}`, Choice{Variant: "shaded"}, false,
			Resolved{Preset: "lineart", Engine: "potrace", Params: map[string]any{"threshold": 100.0}}},
		{"explicit parameters override the variant's", `{"preset":"lineart","tracecraft":{"maxColors":4}}`, Choice{Variant: "shaded"}, true,
			Resolved{Preset: "lineart", Variant: "shaded", Engine: "tracecraft", Params: map[string]any{"maxColors": 4.0}}},
		{"auto takes the category and its variant", ``, Choice{Category: "lineart", Variant: "shaded"}, true,
			Resolved{Preset: "lineart", Variant: "shaded", Engine: "tracecraft", Params: map[string]any{"maxColors": 64.0}}},
		{"best takes the candidate's category", `{"preset":"best"}`, Choice{Category: "logo"}, true,
			Resolved{Preset: "logo", Engine: "tracecraft", Params: map[string]any{"maxColors": 8.0}}},
		{"a variant the preset does not have is ignored", `{"preset":"logo"}`, Choice{Variant: "shaded"}, false,
			Resolved{Preset: "logo", Engine: "tracecraft", Params: map[string]any{"maxColors": 8.0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.raw), cat)
			if err != nil {
				t.Fatal(err)
			}
			if s.NeedsAnalysis() != tt.measured {
				t.Errorf("NeedsAnalysis = %v, want %v", s.NeedsAnalysis(), tt.measured)
			}
			got, err := Resolve(s, cat, tt.choice)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAnUnknownPresetIsRefusedNamingBest(t *testing.T) {
	_, err := Parse([]byte(`{"preset":"bets"}`), catalog)
	fe := fault.As(err)
	if fe == nil || fe.Code != fault.InvalidSettings || len(fe.Details) != 1 ||
		fe.Details[0].Message != `must be one of "auto", "logo", "lineart", "best"` {
		t.Errorf("got %v, want invalid_settings: preset must be one of auto, logo, lineart, best", err)
	}
}
