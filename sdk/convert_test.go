package sdk

import (
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

func TestAListParameterIsDescribedOnlyToAHostThatUnderstandsLists(t *testing.T) {
	d := Descriptor{Name: "e", Version: "1", Stability: Stable, Params: []Param{
		{Name: "threshold", Type: Number, Min: 0, Max: 255, Default: 128.0, Description: "d"},
		{Name: "palette", Type: List, Format: FormatColor, MaxItems: 8, Description: "d"},
	}}
	names := func(r *tracev1.DescribeResponse) []string {
		var out []string
		for _, p := range r.GetParams() {
			out = append(out, p.GetName())
		}
		return out
	}
	if got := names(descriptorToProto(d, false)); !slices.Equal(got, []string{"threshold"}) {
		t.Errorf("to an older host: params %v, want [threshold] (it would refuse an unknown type)", got)
	}
	r := descriptorToProto(d, true)
	if got := names(r); !slices.Equal(got, []string{"threshold", "palette"}) {
		t.Fatalf("to a host that understands lists: params %v, want [threshold palette]", got)
	}
	if p := r.GetParams()[1]; p.GetType() != tracev1.ParamType_PARAM_TYPE_LIST || p.GetMaxItems() != 8 || p.GetFormat() != FormatColor {
		t.Errorf("palette described as %v", p)
	}
}

func TestAListValueCrossesTheProtocol(t *testing.T) {
	for _, v := range []any{[]any{"red", "#00f"}, []string{"red", "#00f"}} {
		pv, err := wire.ValueToProto(v)
		if err != nil {
			t.Fatalf("ValueToProto(%#v): %v", v, err)
		}
		got := paramsFromProto(map[string]*tracev1.Value{"palette": pv})["palette"]
		if s, ok := got.([]string); !ok || !slices.Equal(s, []string{"red", "#00f"}) {
			t.Errorf("%#v came back as %#v", v, got)
		}
	}
	if _, err := wire.ValueToProto([]any{"red", 1.0}); err == nil {
		t.Error("a list with a number in it crossed the protocol")
	}
}
