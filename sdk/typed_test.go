package sdk_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk"
)

type shared struct {
	Colors int `param:"colors" min:"2" max:"256" default:"16" desc:"palette size"`
}

type typedParams struct {
	shared
	Threshold int                   `param:"threshold" min:"0" max:"255" default:"128" desc:"black/white threshold"`
	Smooth    float64               `param:"smooth" min:"0" max:"1.334" step:"0.01" default:"1" desc:"corner smoothness"`
	Policy    string                `param:"policy" enum:"black,white" default:"black" desc:"turn policy"`
	Invert    bool                  `param:"invert" default:"false" desc:"trace the light areas"`
	Stroke    sdk.Explicit[string]  `param:"stroke" format:"color" maxLength:"32" desc:"stroke colour"`
	Width     sdk.Explicit[float64] `param:"width" min:"0.5" max:"4" default:"1" desc:"stroke width"`
}

func TestDescribeDerivesTheSchemaFromTheTags(t *testing.T) {
	want := []sdk.Param{
		{Name: "colors", Type: sdk.Number, Integer: true, Min: 2, Max: 256, Default: 16.0, Description: "palette size"},
		{Name: "threshold", Type: sdk.Number, Integer: true, Min: 0, Max: 255, Default: 128.0, Description: "black/white threshold"},
		{Name: "smooth", Type: sdk.Number, Min: 0, Max: 1.334, Step: 0.01, Default: 1.0, Description: "corner smoothness"},
		{Name: "policy", Type: sdk.Enum, Values: []string{"black", "white"}, Default: "black", Description: "turn policy"},
		{Name: "invert", Type: sdk.Boolean, Default: false, Description: "trace the light areas"},
		{Name: "stroke", Type: sdk.String, Format: sdk.FormatColor, MaxLength: 32, Description: "stroke colour"},
		{Name: "width", Type: sdk.Number, Min: 0.5, Max: 4, Default: 1.0, Description: "stroke width"},
	}
	got := sdk.Describe[typedParams]()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Describe:\n got %+v\nwant %+v", got, want)
	}
	d := sdk.Descriptor{Name: "typed", Version: "1", Stability: sdk.Stable, Params: got}
	if err := d.Validate(); err != nil {
		t.Errorf("the derived schema is not valid: %v", err)
	}
	got[3].Values[0] = "changed"
	if sdk.Describe[typedParams]()[3].Values[0] != "black" {
		t.Error("Describe shares its enum values with its callers")
	}
}

func TestDecodeFillsGivenValuesAndDefaults(t *testing.T) {
	tests := []struct {
		name  string
		given map[string]any
		want  typedParams
	}{
		{"defaults", nil, typedParams{shared: shared{16}, Threshold: 128, Smooth: 1, Policy: "black", Width: sdk.Explicit[float64]{Value: 1}}},
		{"every value given", map[string]any{"colors": 4.0, "threshold": 7.0, "smooth": 0.5, "policy": "white", "invert": true, "stroke": "red", "width": 1.0},
			typedParams{shared: shared{4}, Threshold: 7, Smooth: 0.5, Policy: "white", Invert: true,
				Stroke: sdk.Explicit[string]{Value: "red", Given: true}, Width: sdk.Explicit[float64]{Value: 1, Given: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sdk.Decode[typedParams](tt.given)
			if err != nil || got != tt.want {
				t.Errorf("Decode(%v) = %+v, %v; want %+v", tt.given, got, err, tt.want)
			}
			if err := sdk.Check(got); err != nil {
				t.Errorf("Check of a decoded value: %v", err)
			}
		})
	}
	if d := sdk.Defaults[typedParams](); d != tests[0].want {
		t.Errorf("Defaults = %+v", d)
	}
}

func TestDecodeAndCheckNameEveryProblem(t *testing.T) {
	_, err := sdk.Decode[typedParams](map[string]any{"threshold": 300.0, "smooth": "x", "policy": "grey", "nope": 1.0, "colors": 2.5})
	for _, want := range []string{"colors must be a whole number", "nope is not a parameter; known: colors, threshold", "policy must be one of", "smooth must be a number", "threshold must be between 0 and 255"} {
		if err == nil || !strings.Contains(err.Error(), want) || sdk.ErrorCode(err) != sdk.CodeInvalidSettings {
			t.Errorf("Decode error %v does not say %q", err, want)
		}
	}
	err = sdk.Check(typedParams{Threshold: -1, Policy: "black"})
	for _, want := range []string{"colors must be between 2 and 256", "threshold must be between 0 and 255", "width must be between 0.5 and 4"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check error %v does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "stroke") {
		t.Errorf("Check complains of an optional string not given: %v", err)
	}
}

func TestMalformedParameterStructsAreRefused(t *testing.T) {
	type noTag struct {
		A int `min:"0" max:"1" default:"0" desc:"a"`
	}
	type noDefault struct {
		A int `param:"a" min:"0" max:"1" desc:"a"`
	}
	type noRange struct {
		A float64 `param:"a" default:"0" desc:"a"`
	}
	type badType struct {
		A []int `param:"a" desc:"a"`
	}
	type badDefault struct {
		A bool `param:"a" default:"yes" desc:"a"`
	}
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{"a field without a param tag", func() error { _, err := sdk.Decode[noTag](nil); return err }, "field A has no param tag"},
		{"a number without a default", func() error { _, err := sdk.Decode[noDefault](nil); return err }, "no default tag"},
		{"a number without a range", func() error { _, err := sdk.Decode[noRange](nil); return err }, "a number needs a min tag"},
		{"a slice", func() error { _, err := sdk.Decode[badType](nil); return err }, "is not int, float64, bool, string"},
		{"a bad boolean default", func() error { _, err := sdk.Decode[badDefault](nil); return err }, `default "yes" is not true or false`},
		{"not a struct", func() error { _, err := sdk.Decode[int](nil); return err }, "must be a struct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.err(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("Describe of a malformed struct did not panic")
		}
	}()
	sdk.Describe[noTag]()
}
