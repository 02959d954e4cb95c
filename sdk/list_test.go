package sdk_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk"
)

type listParams struct {
	Inks []string `param:"inks" format:"color" maxItems:"3" desc:"the colours to paint with"`
	Tags []string `param:"tags" desc:"free words"`
}

func TestAStringSliceFieldIsAListParameter(t *testing.T) {
	want := []sdk.Param{
		{Name: "inks", Type: sdk.List, Format: sdk.FormatColor, MaxItems: 3, Description: "the colours to paint with"},
		{Name: "tags", Type: sdk.List, Description: "free words"},
	}
	got := sdk.Describe[listParams]()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Describe:\n got %+v\nwant %+v", got, want)
	}
	d := sdk.Descriptor{Name: "lists", Version: "1", Stability: sdk.Stable, Params: got}
	if err := d.Validate(); err != nil {
		t.Errorf("the derived schema is not valid: %v", err)
	}
	type withDefault struct {
		A []string `param:"a" default:"red" desc:"a"`
	}
	if _, err := sdk.Decode[withDefault](nil); err == nil || !strings.Contains(err.Error(), "has no default tag") {
		t.Errorf("a list with a default tag: %v, want it refused", err)
	}
}

func TestDecodeTakesAListAsJSONDecodesIt(t *testing.T) {
	tests := []struct {
		name  string
		given map[string]any
		want  listParams
	}{
		{"not given", nil, listParams{}},
		{"as encoding/json decodes it", map[string]any{"inks": []any{"#f00", "navy"}}, listParams{Inks: []string{"#f00", "navy"}}},
		{"as the protocol carries it", map[string]any{"inks": []string{"white"}, "tags": []string{"a", "b"}},
			listParams{Inks: []string{"white"}, Tags: []string{"a", "b"}}},
		{"empty", map[string]any{"inks": []any{}}, listParams{Inks: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sdk.Decode[listParams](tt.given)
			if err != nil || !slices.Equal(got.Inks, tt.want.Inks) || !slices.Equal(got.Tags, tt.want.Tags) {
				t.Errorf("Decode(%v) = %+v, %v; want %+v", tt.given, got, err, tt.want)
			}
			if err := sdk.Check(got); err != nil {
				t.Errorf("Check of a decoded value: %v", err)
			}
		})
	}
}

func TestEveryBadItemOfAListIsAProblemOfItsOwn(t *testing.T) {
	d := sdk.Descriptor{Name: "lists", Params: sdk.Describe[listParams]()}
	tests := []struct {
		name string
		v    any
		want []sdk.Problem
	}{
		{"good", []any{"#f00", "rgb(0 0 128)", "white"}, nil},
		{"not an array", "#f00", []sdk.Problem{{Field: "inks", Message: "must be an array of CSS colours", Value: "#f00"}}},
		{"bad items with their index", []any{"#f00", "reddish", 3.0},
			[]sdk.Problem{{Field: "inks[1]", Message: "must be a CSS colour such as #ff8800, rgb(255 136 0), hsl(32 100% 50%) or orange", Value: "reddish"},
				{Field: "inks[2]", Message: "must be a string", Value: 3.0}}},
		{"a colour repeated however it is written", []any{"red", "navy", "#FF0000"},
			[]sdk.Problem{{Field: "inks[2]", Message: "repeats item 0", Value: "#FF0000"}}},
		{"too many", []any{"red", "navy", "white", "black"},
			[]sdk.Problem{{Field: "inks", Message: "must have at most 3 items, not 4", Value: []any{"red", "navy", "white", "black"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := d.CheckValues(map[string]any{"inks": tt.v})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CheckValues:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	err := sdk.Check(listParams{Inks: []string{"red", "nope"}})
	if err == nil || !strings.Contains(err.Error(), "inks[1] must be a CSS colour") {
		t.Errorf("Check: %v, want it to name inks[1]", err)
	}
	p, _ := d.Param("inks")
	if msg := p.Check([]any{"red", "nope", "red"}); !strings.Contains(msg, "item 1 must be a CSS colour") || !strings.Contains(msg, "item 2 repeats item 0") {
		t.Errorf("Param.Check = %q, want it to name items 1 and 2", msg)
	}
}
