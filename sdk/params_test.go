package sdk_test

import (
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk"
)

func TestValidateSaysWhichTypeADefaultMustHave(t *testing.T) {
	tests := []struct {
		name    string
		param   sdk.Param
		want    string
		wantNot string
	}{
		{"an int for a number", sdk.Param{Name: "threshold", Type: sdk.Number, Min: 0, Max: 255, Default: 128, Description: "d"},
			"default 128 has Go type int; a number parameter's default must be a float64 (write 128.0, not 128)", "must be a number"},
		{"a string for a boolean", sdk.Param{Name: "on", Type: sdk.Boolean, Default: "true", Description: "d"},
			`default "true" has Go type string; a boolean parameter's default must be a bool`, "write"},
		{"a float64 for an enum", sdk.Param{Name: "mode", Type: sdk.Enum, Values: []string{"a"}, Default: 1.0, Description: "d"},
			"default 1 has Go type float64; a enum parameter's default must be a string", "write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := sdk.Descriptor{Name: "e", Version: "1", Stability: sdk.Stable, Params: []sdk.Param{tt.param}}
			err := d.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), tt.wantNot) {
				t.Errorf("Validate: %v\nwant it to say %q and not %q", err, tt.want, tt.wantNot)
			}
		})
	}
	ok := sdk.Descriptor{Name: "e", Version: "1", Stability: sdk.Stable, Params: []sdk.Param{
		{Name: "threshold", Type: sdk.Number, Min: 0, Max: 255, Default: 128.0, Description: "d"}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("a float64 default is refused: %v", err)
	}
}
