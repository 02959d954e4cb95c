package sdk

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
)

// This file holds the adapters between the sdk's Go types and the generated protocol
// types, in both directions.

var paramTypes = map[ParamType]tracev1.ParamType{
	Number:  tracev1.ParamType_PARAM_TYPE_NUMBER,
	Enum:    tracev1.ParamType_PARAM_TYPE_ENUM,
	Boolean: tracev1.ParamType_PARAM_TYPE_BOOLEAN,
	String:  tracev1.ParamType_PARAM_TYPE_STRING,
}

func descriptorToProto(d Descriptor) *tracev1.DescribeResponse {
	out := &tracev1.DescribeResponse{
		Name: d.Name, Version: d.Version, Description: d.Description, SdkVersion: Version,
		ReadsImageFile: true, ReadsImageRange: true, KeepsDecoded: true,
	}
	switch d.Stability {
	case Stable:
		out.Stability = tracev1.Stability_STABILITY_STABLE
	case Experimental:
		out.Stability = tracev1.Stability_STABILITY_EXPERIMENTAL
	}
	for _, p := range d.Params {
		pp := &tracev1.Param{
			Name: p.Name, Type: paramTypes[p.Type], Description: p.Description,
			Min: p.Min, Max: p.Max, Step: p.Step, Integer: p.Integer,
			Values: p.Values, Format: p.Format, MaxLength: uint32(max(0, p.MaxLength)),
		}
		if p.Default != nil {
			v, err := valueToProto(p.Default)
			if err == nil {
				pp.Default = v
			}
		}
		out.Params = append(out.Params, pp)
	}
	return out
}

func descriptorFromProto(r *tracev1.DescribeResponse) Descriptor {
	d := Descriptor{Name: r.GetName(), Version: r.GetVersion(), Description: r.GetDescription()}
	switch r.GetStability() {
	case tracev1.Stability_STABILITY_STABLE:
		d.Stability = Stable
	case tracev1.Stability_STABILITY_EXPERIMENTAL:
		d.Stability = Experimental
	}
	for _, pp := range r.GetParams() {
		p := Param{
			Name: pp.GetName(), Description: pp.GetDescription(),
			Min: pp.GetMin(), Max: pp.GetMax(), Step: pp.GetStep(), Integer: pp.GetInteger(),
			Values: pp.GetValues(), Format: pp.GetFormat(), MaxLength: int(pp.GetMaxLength()),
		}
		for t, pt := range paramTypes {
			if pt == pp.GetType() {
				p.Type = t
			}
		}
		if pp.Default != nil {
			p.Default = valueFromProto(pp.Default)
		}
		d.Params = append(d.Params, p)
	}
	return d
}

func valueToProto(v any) (*tracev1.Value, error) {
	switch x := v.(type) {
	case float64:
		return &tracev1.Value{Kind: &tracev1.Value_Number{Number: x}}, nil
	case int:
		return &tracev1.Value{Kind: &tracev1.Value_Number{Number: float64(x)}}, nil
	case string:
		return &tracev1.Value{Kind: &tracev1.Value_Text{Text: x}}, nil
	case bool:
		return &tracev1.Value{Kind: &tracev1.Value_Flag{Flag: x}}, nil
	}
	return nil, fmt.Errorf("parameter value %v of type %T is not a number, string or boolean", v, v)
}

func valueFromProto(v *tracev1.Value) any {
	switch k := v.GetKind().(type) {
	case *tracev1.Value_Number:
		return k.Number
	case *tracev1.Value_Text:
		return k.Text
	case *tracev1.Value_Flag:
		return k.Flag
	}
	return nil
}

func paramsToProto(given map[string]any) (map[string]*tracev1.Value, error) {
	out := make(map[string]*tracev1.Value, len(given))
	for _, k := range slices.Sorted(maps.Keys(given)) {
		v, err := valueToProto(given[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

func paramsFromProto(m map[string]*tracev1.Value) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = valueFromProto(v)
	}
	return out
}

func failureToProto(err error) *tracev1.Failure {
	var e *Error
	if errors.As(err, &e) {
		return &tracev1.Failure{Code: e.Code, Message: e.Message}
	}
	return &tracev1.Failure{Code: CodeInternal, Message: err.Error()}
}
