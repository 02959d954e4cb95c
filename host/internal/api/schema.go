package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/host/internal/tracing"
	"github.com/tracecraft/tracecraft/sdk"
)

// bundledOrder is the order of the schema's engines list (spec 2.4): auto sits after
// tracecraft. Other stable engines follow, by name.
var bundledOrder = []string{"tracecraft", settings.Auto, "vtracer", "potrace"}

// ordered is a JSON object that keeps its keys in insertion order.
type ordered struct {
	keys   []string
	values map[string]any
}

func newOrdered() *ordered { return &ordered{values: map[string]any{}} }

func (o *ordered) set(k string, v any) *ordered {
	if _, ok := o.values[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.values[k] = v
	return o
}

// MarshalJSON writes the keys in order.
func (o *ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, _ := json.Marshal(k)
		b.Write(kj)
		b.WriteByte(':')
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o.values[k]); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// engineLists splits the installed engines into the schema's stable list (with auto in
// its place), the experimental list, and the list of stable engines traced only when a
// request names them (selector.NamedOnly), each list never nil.
func engineLists(all []*engines.Engine) (stable, experimental, named []string) {
	installed := map[string]bool{}
	var others []string
	experimental, named = []string{}, []string{}
	for _, e := range all {
		if e.Desc.Stability == sdk.Experimental {
			experimental = append(experimental, e.Desc.Name)
			continue
		}
		if slices.Contains(selector.NamedOnly, e.Desc.Name) {
			named = append(named, e.Desc.Name)
			continue
		}
		installed[e.Desc.Name] = true
		if !slices.Contains(bundledOrder, e.Desc.Name) {
			others = append(others, e.Desc.Name)
		}
	}
	stable = []string{}
	for _, name := range bundledOrder {
		if installed[name] || (name == settings.Auto && len(all) > 0) {
			stable = append(stable, name)
		}
	}
	sort.Strings(others)
	sort.Strings(experimental)
	sort.Strings(named)
	return append(stable, others...), experimental, named
}

// describeParams returns an engine's parameters in the spec's descriptor form, in the
// engine's order.
func describeParams(d sdk.Descriptor) *ordered {
	out := newOrdered()
	for _, p := range d.Params {
		desc := newOrdered().set("type", string(p.Type))
		if p.Type == sdk.Number {
			desc.set("min", p.Min).set("max", p.Max)
		}
		if p.Default != nil {
			desc.set("default", p.Default)
		}
		if p.Step > 0 {
			desc.set("step", p.Step)
		}
		if p.Type == sdk.Enum {
			desc.set("values", p.Values)
		}
		desc.set("description", p.Description)
		if p.Integer {
			desc.set("integer", true)
		}
		if p.Format != "" {
			desc.set("format", p.Format)
		}
		if p.Type == sdk.String {
			ml := p.MaxLength
			if ml == 0 {
				ml = sdk.DefaultMaxLength
			}
			desc.set("maxLength", ml)
		}
		if p.Type == sdk.List {
			ml, mi := p.MaxLength, p.MaxItems
			if ml == 0 {
				ml = sdk.DefaultMaxLength
			}
			if mi == 0 {
				mi = sdk.DefaultMaxItems
			}
			desc.set("maxLength", ml).set("maxItems", mi)
		}
		out.set(p.Name, desc)
	}
	return out
}

// schemaBody builds the schema document: engines, experimentalEngines, namedEngines,
// one key per engine (in those lists' order), presets.
func (s *Server) schemaBody() *ordered {
	all := s.Tracing.Engines.Engines()
	stable, experimental, named := engineLists(all)
	body := newOrdered().set("engines", stable).set("experimentalEngines", experimental).set("namedEngines", named)
	byName := map[string]sdk.Descriptor{}
	for _, e := range all {
		byName[e.Desc.Name] = e.Desc
	}
	for _, name := range slices.Concat(stable, experimental, named) {
		if d, ok := byName[name]; ok {
			body.set(name, describeParams(d))
		}
	}
	presets := newOrdered().set(settings.Auto, newOrdered().
		set("description", "the service measures the image and applies the preset of its category"))
	for _, p := range s.Tracing.Presets {
		params := newOrdered()
		for _, k := range slices.Sorted(maps.Keys(p.Params)) {
			params.set(k, p.Params[k])
		}
		entry := newOrdered().set("engine", p.Engine).set("description", p.Description).set(p.Engine, params)
		if len(p.Variants) > 0 {
			variants := newOrdered()
			for _, v := range p.Variants {
				vp := newOrdered()
				for _, k := range slices.Sorted(maps.Keys(v.Params)) {
					vp.set(k, v.Params[k])
				}
				variants.set(v.Name, newOrdered().set("when", v.When).set("engine", v.Engine).set(v.Engine, vp))
			}
			entry.set("variants", variants)
		}
		presets.set(p.Name, entry)
	}
	presets.set(settings.Best, newOrdered().set("description", bestDescription))
	body.set("presets", presets)
	return body
}

// bestDescription says what preset best does, for the schema and llms.txt.
var bestDescription = fmt.Sprintf("the service measures the image, traces it with the preset of its category and with the runner-up (%d settings at once), scores both as output.quality does and answers with the higher SSIM (the smaller file on a tie); slower than auto, never worse than its pick", tracing.BestCandidates)

// schema handles GET /api/schema.
func (s *Server) schema(c *gin.Context) {
	writeJSON(c, 200, s.schemaBody())
}
