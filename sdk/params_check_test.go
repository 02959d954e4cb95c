package sdk_test

import (
	"testing"

	"github.com/tracecraft/tracecraft/sdk"
)

func TestParamsCheck(t *testing.T) {
	d := sdk.Descriptor{Name: "e", Params: []sdk.Param{
		{Name: "n", Type: sdk.Number, Min: 1, Max: 5, Default: 2.0},
		{Name: "c", Type: sdk.String, Format: sdk.FormatColor},
	}}
	if err := sdk.DefaultParams(d).Check(d); err != nil {
		t.Errorf("defaults: %v", err)
	}
	if err := (sdk.Params{}).Check(d); sdk.ErrorCode(err) != sdk.CodeInvalidSettings {
		t.Errorf("zero Params: %v, want invalid_settings", err)
	}
	other := sdk.Descriptor{Name: "o", Params: []sdk.Param{{Name: "n", Type: sdk.Number, Min: 0, Max: 100, Default: 50.0}}}
	if err := sdk.DefaultParams(other).Check(d); sdk.ErrorCode(err) != sdk.CodeInvalidSettings {
		t.Errorf("out-of-range value: %v, want invalid_settings", err)
	}
}
