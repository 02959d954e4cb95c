package sdk_test

import (
	"context"
	"fmt"
	"image"

	"github.com/tracecraft/tracecraft/sdk"
)

// Params declares an engine's parameters once: the tags give the schema the host shows
// in /api/schema, and the fields receive the values of each trace.
type Params struct {
	Threshold int                  `param:"threshold" min:"0" max:"255" default:"128" desc:"black/white threshold"`
	Policy    string               `param:"policy" enum:"black,white" default:"black" desc:"which colour wins at corners"`
	Stroke    sdk.Explicit[string] `param:"stroke" format:"color" desc:"an optional outline colour"`
}

// Engine is a minimal engine with the parameters above.
type Engine struct{}

// Describe names the engine and derives its schema from Params.
func (Engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{Name: "example", Version: "1.0.0", Stability: sdk.Experimental,
		Description: "an example", Params: sdk.Describe[Params]()}
}

// Trace receives the decoded parameters.
func (Engine) Trace(ctx context.Context, img *image.NRGBA, p Params) ([]byte, error) {
	return []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>`), nil
}

func ExampleServe() {
	// In the plugin's main package; the host starts the binary, named
	// tracecraft-engine-example after Descriptor.Name.
	_ = func() { sdk.Serve[Params](Engine{}) }
}

func ExampleDescribe() {
	for _, p := range sdk.Describe[Params]() {
		fmt.Println(p.Name, p.Type, p.Default, p.Values)
	}
	// Output:
	// threshold number 128 []
	// policy enum black [black white]
	// stroke string <nil> []
}

func ExampleDecode() {
	p, err := sdk.Decode[Params](map[string]any{"threshold": 100.0, "stroke": "red"})
	fmt.Printf("%+v %v\n", p, err)
	_, err = sdk.Decode[Params](map[string]any{"threshold": 300.0, "policy": "grey"})
	fmt.Println(err)
	// Output:
	// {Threshold:100 Policy:black Stroke:{Value:red Given:true}} <nil>
	// invalid_settings: policy must be one of "black", "white"; threshold must be between 0 and 255
}

func ExampleExplicit() {
	p := sdk.Defaults[Params]()
	fmt.Println(p.Stroke.Given)
	p, _ = sdk.Decode[Params](map[string]any{"stroke": "#f80"})
	fmt.Println(p.Stroke.Given, p.Stroke.Value)
	// Output:
	// false
	// true #f80
}

func ExampleCheck() {
	// For a Trace called directly, with values that did not come through Decode.
	fmt.Println(sdk.Check(Params{Threshold: 999, Policy: "black"}))
	// Output:
	// invalid_settings: threshold must be between 0 and 255
}
