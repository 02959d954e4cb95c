package sdk

import (
	"errors"

	"github.com/tracecraft/tracecraft/sdk/internal/tracev1"
	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

// This file holds the plugin side's adapters between the sdk's Go types and the
// generated protocol types; the host side's are in package sdk/pluginhost.

var paramTypes = map[ParamType]tracev1.ParamType{
	Number:  tracev1.ParamType_PARAM_TYPE_NUMBER,
	Enum:    tracev1.ParamType_PARAM_TYPE_ENUM,
	Boolean: tracev1.ParamType_PARAM_TYPE_BOOLEAN,
	String:  tracev1.ParamType_PARAM_TYPE_STRING,
	List:    tracev1.ParamType_PARAM_TYPE_LIST,
}

// descriptorToProto converts d for a host; lists says whether the host understands List
// parameters, which are left out for one that does not (an older host would refuse the
// whole description).
func descriptorToProto(d Descriptor, lists bool) *tracev1.DescribeResponse {
	out := &tracev1.DescribeResponse{
		Name: d.Name, Version: d.Version, Description: d.Description, SdkVersion: wire.ReportedSDKVersion(),
		ReadsImageFile: true, ReadsImageRange: true, KeepsDecoded: true,
	}
	switch d.Stability {
	case Stable:
		out.Stability = tracev1.Stability_STABILITY_STABLE
	case Experimental:
		out.Stability = tracev1.Stability_STABILITY_EXPERIMENTAL
	}
	for _, p := range d.Params {
		if p.Type == List && !lists {
			continue
		}
		pp := &tracev1.Param{
			Name: p.Name, Type: paramTypes[p.Type], Description: p.Description,
			Min: p.Min, Max: p.Max, Step: p.Step, Integer: p.Integer,
			Values: p.Values, Format: p.Format, MaxLength: uint32(max(0, p.MaxLength)),
			MaxItems: uint32(max(0, p.MaxItems)),
		}
		if p.Default != nil {
			v, err := wire.ValueToProto(p.Default)
			if err == nil {
				pp.Default = v
			}
		}
		out.Params = append(out.Params, pp)
	}
	return out
}

func paramsFromProto(m map[string]*tracev1.Value) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = wire.ValueFromProto(v)
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
