// Package settings parses the settings field of a tracing request strictly, validates it
// against the schemas the installed engines describe, and resolves a preset, an engine
// and explicit parameters into the one engine and parameter set a job runs with.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/output"
	"github.com/tracecraft/tracecraft/sdk"
)

// Auto is the preset and engine value that lets the service choose.
const Auto = "auto"

// Best is the preset value that traces the image with the settings it most likely
// needs and the runner-up, and keeps the trace whose quality score is higher (see
// tracing.Service.Run).
const Best = "best"

// MaxBytes bounds the settings field.
const MaxBytes = 64 << 10

// Preset is a named engine and parameter set.
type Preset struct {
	// Name is the preset's name ("logo").
	Name string `json:"-"`
	// Description says what the preset is for.
	Description string `json:"description"`
	// Engine is the engine the preset uses.
	Engine string `json:"engine"`
	// Params are the engine parameters the preset sets; the others keep their defaults.
	Params map[string]any `json:"params"`
	// Variants are the other engines and parameters the preset traces some images with;
	// a preset with variants has the image measured to pick one (see Choice).
	Variants []Variant `json:"variants,omitempty"`
}

// Variant is an engine and parameter set a preset uses instead of its own for the images
// the selector names it for (lineart's "shaded", for photographs of pages).
type Variant struct {
	// Name is what the selector calls the variant ("shaded").
	Name string `json:"name"`
	// When says which images get the variant.
	When string `json:"when"`
	// Engine is the engine the variant uses.
	Engine string `json:"engine"`
	// Params are the engine parameters the variant sets.
	Params map[string]any `json:"params"`
}

// Variant returns the preset's variant called name.
func (p Preset) Variant(name string) (Variant, bool) {
	for _, v := range p.Variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// Choice is what the service chose for an image from its measures: the preset category
// for an auto preset, and the variant of the preset that applies ("" for the preset's
// own settings).
type Choice struct {
	Category, Variant string
}

// Catalog is what validation checks settings against: the installed engines and the
// presets.
type Catalog struct {
	// Engines are the descriptions of the installed engines, stable and experimental.
	Engines []sdk.Descriptor
	// Presets are the named presets, auto excluded.
	Presets []Preset
	// Fallback lists, in order of preference, the engines an auto choice falls back to
	// when the engine its category names is not installed.
	Fallback []string
	// NamedOnly lists the engines traced only when a request names them: an auto
	// choice never falls back to them.
	NamedOnly []string
}

// Engine returns the description of the installed engine called name.
func (c Catalog) Engine(name string) (sdk.Descriptor, bool) {
	for _, d := range c.Engines {
		if d.Name == name {
			return d, true
		}
	}
	return sdk.Descriptor{}, false
}

// Preset returns the preset called name.
func (c Catalog) Preset(name string) (Preset, bool) {
	for _, p := range c.Presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

func (c Catalog) engineNames() []string {
	names := make([]string, len(c.Engines))
	for i, d := range c.Engines {
		names[i] = d.Name
	}
	sort.Strings(names)
	return names
}

func (c Catalog) presetNames() []string {
	names := []string{Auto}
	for _, p := range c.Presets {
		names = append(names, p.Name)
	}
	return append(names, Best)
}

// Settings are a request's validated settings.
type Settings struct {
	// Preset is the preset asked for; Auto when not given.
	Preset string
	// PresetGiven says whether the request named a preset.
	PresetGiven bool
	// PresetVaries says whether the preset named has variants, so that the image is
	// measured to pick one.
	PresetVaries bool
	// Engine is the engine asked for; Auto when not given.
	Engine string
	// Params holds each engine's explicitly given parameters, by engine name.
	Params map[string]map[string]any
	// Output is what the answer's file should be (the output object): its format and
	// size.
	Output output.Options
	// Background is what happens to the image's background before tracing: BackgroundKeep
	// (the default) or BackgroundRemove.
	Background string
}

// The values of the background setting.
const (
	// BackgroundKeep traces the image as it is.
	BackgroundKeep = "keep"
	// BackgroundRemove makes the uniform colour connected to the image border transparent
	// before tracing (see background.Remove), so it gives no shape.
	BackgroundRemove = "remove"
)

// BackgroundValues lists the background setting's values, the default first.
var BackgroundValues = []string{BackgroundKeep, BackgroundRemove}

// NeedsAnalysis reports whether choosing the engine or preset needs the image measured:
// when the preset is auto, unless an explicit engine was given without a preset; when it
// is best; and when it has variants and no explicit engine overrides it.
func (s Settings) NeedsAnalysis() bool {
	return (s.Preset == Auto && (s.PresetGiven || s.Engine == Auto)) || s.Preset == Best ||
		(s.PresetVaries && s.Engine == Auto)
}

// Parse parses and validates the settings field raw (empty means none) and returns every
// problem found as the details of one fault.InvalidSettings error.
func Parse(raw []byte, cat Catalog) (Settings, error) {
	s := Settings{Preset: Auto, Engine: Auto, Params: map[string]map[string]any{}, Output: output.Default(),
		Background: BackgroundKeep}
	if len(bytes.TrimSpace(raw)) == 0 {
		return s, nil
	}
	var details []fault.Detail
	add := func(field, msg string, value any) {
		details = append(details, fault.Detail{Field: field, Message: msg, Value: value})
	}
	obj, err := decodeObject(raw)
	if err != nil {
		return s, &fault.Error{Code: fault.InvalidSettings,
			Message: "the settings field must be a JSON object, such as {\"preset\":\"logo\"}: " + err.Error(),
			Details: []fault.Detail{{Field: "settings", Message: err.Error()}}}
	}
	for _, kv := range obj {
		switch key := kv.key; {
		case key == "preset":
			name, ok := kv.value.(string)
			p, known := cat.Preset(name)
			if !ok || (name != Auto && name != Best && !known) {
				add("preset", "must be one of "+quoteList(cat.presetNames()), kv.value)
				continue
			}
			s.Preset, s.PresetGiven, s.PresetVaries = name, true, len(p.Variants) > 0
		case key == "engine":
			name, ok := kv.value.(string)
			if _, known := cat.Engine(name); !ok || (name != Auto && !known) {
				add("engine", "must be one of "+quoteList(append([]string{Auto}, cat.engineNames()...)), kv.value)
				continue
			}
			s.Engine = name
		case key == "background":
			v, ok := kv.value.(string)
			if !ok || (v != BackgroundKeep && v != BackgroundRemove) {
				add("background", "must be one of "+quoteList(BackgroundValues)+": remove makes the uniform colour around the image transparent before tracing", kv.value)
				continue
			}
			s.Background = v
		case key == "output":
			opts, problems := output.Parse(fields(kv.value))
			details = append(details, problems...)
			s.Output = opts
		default:
			desc, ok := cat.Engine(key)
			if !ok {
				add(key, "is not a setting: use \"preset\", \"engine\", \"output\", \"background\" or the name of an installed engine ("+strings.Join(cat.engineNames(), ", ")+")", nil)
				continue
			}
			params, ok := kv.value.(object)
			if !ok {
				add(key, "must be a JSON object of "+key+" parameters", kv.value)
				continue
			}
			given := make(map[string]any, len(params))
			for _, p := range params {
				if _, nested := p.value.(object); nested {
					add(key+"."+p.key, "must be a number, string or boolean, not an object", nil)
					continue
				}
				if _, list := p.value.([]any); list {
					if param, ok := desc.Param(p.key); ok && param.Type != sdk.List {
						add(key+"."+p.key, "must be a number, string or boolean, not an array", nil)
						continue
					}
				}
				given[p.key] = p.value
			}
			for _, pr := range desc.CheckValues(given) {
				add(key+"."+pr.Field, pr.Message, pr.Value)
			}
			s.Params[key] = given
		}
	}
	if len(details) > 0 {
		msg := "the settings have a problem: " + details[0].Field + " " + details[0].Message
		if len(details) > 1 {
			msg = fmt.Sprintf("the settings have %d problems, listed in details; the first: %s %s", len(details), details[0].Field, details[0].Message)
		}
		return s, &fault.Error{Code: fault.InvalidSettings, Message: msg, Details: details}
	}
	return s, nil
}

// Resolved is what a job runs with.
type Resolved struct {
	// Preset is the preset applied, or "" when none was.
	Preset string
	// Variant is the preset's variant applied, or "" for the preset's own settings.
	Variant string
	// Engine is the engine to run.
	Engine string
	// Params are the engine's given parameters: the preset's, overridden by the
	// explicit ones. The engine fills the defaults.
	Params map[string]any
}

// fallback returns the engine an auto choice uses when its category's engine is not
// installed: the first installed of c.Fallback, else the first stable engine but those
// traced only when named.
func (c Catalog) fallback() string {
	for _, n := range c.Fallback {
		if _, ok := c.Engine(n); ok && !slices.Contains(c.NamedOnly, n) {
			return n
		}
	}
	for _, d := range c.Engines {
		if d.Stability == sdk.Stable && !slices.Contains(c.NamedOnly, d.Name) {
			return d.Name
		}
	}
	return ""
}

// Resolve applies, in order, the preset's settings, an explicit engine and explicit
// parameters. choice is what the selector chose from the image's measures: its Category
// is the preset for an auto or best preset, ignored otherwise; its Variant, when the
// preset has one of that name and no explicit engine was given, replaces the preset's
// engine and parameters. A preset's parameters apply only when the engine it names is
// the one that runs.
func Resolve(s Settings, cat Catalog, choice Choice) (Resolved, error) {
	var r Resolved
	name := s.Preset
	if name == Auto || name == Best {
		name = ""
		if s.NeedsAnalysis() {
			name = choice.Category
		}
	}
	params := map[string]any{}
	if name != "" {
		p, ok := cat.Preset(name)
		if !ok {
			return r, fault.New(fault.Internal, "preset %q is not defined", name)
		}
		if v, ok := p.Variant(choice.Variant); ok && s.Engine == Auto {
			p.Engine, p.Params = v.Engine, v.Params
			r.Variant = v.Name
		}
		r.Preset, r.Engine = p.Name, p.Engine
		if s.Engine == Auto || s.Engine == p.Engine {
			// A preset is the service's choice, not the client's: parameters the
			// installed engine does not describe, or does not accept (an engine
			// replaced by another of the same name), are left out, not blamed on the
			// client.
			desc, _ := cat.Engine(p.Engine)
			for k, v := range p.Params {
				if param, ok := desc.Param(k); ok && param.Check(v) == "" {
					params[k] = v
				}
			}
		}
	}
	if s.Engine != Auto {
		r.Engine = s.Engine
	}
	if r.Engine == "" {
		return r, fault.New(fault.EngineUnavailable, "no engine could be chosen for the image")
	}
	if _, ok := cat.Engine(r.Engine); !ok && (s.Preset == Auto || s.Preset == Best) && s.Engine == Auto {
		// The service chose a category whose engine is not installed: trace with the
		// best installed engine at its defaults rather than refuse.
		r.Engine = cat.fallback()
		params = map[string]any{}
	}
	if _, ok := cat.Engine(r.Engine); !ok {
		return r, fault.New(fault.EngineUnavailable, "preset %q needs engine %q, which is not installed on this server", r.Preset, r.Engine)
	}
	for k, v := range s.Params[r.Engine] {
		params[k] = v
	}
	r.Params = params
	return r, nil
}

// fields turns a decoded value into the form package output reads: objects become
// []output.Field, recursively.
func fields(v any) any {
	switch t := v.(type) {
	case object:
		out := make([]output.Field, len(t))
		for i, m := range t {
			out[i] = output.Field{Key: m.key, Value: fields(m.value)}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = fields(x)
		}
		return out
	}
	return v
}

// object is a JSON object with its keys in document order.
type object []member

type member struct {
	key   string
	value any
}

// decodeObject decodes a JSON object strictly: nothing after it, no duplicate keys,
// numbers that fit a float64.
func decodeObject(raw []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("it is not an object")
	}
	obj, err := decodeMembers(dec, 1)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("there is more after the object")
	}
	return obj, nil
}

func decodeMembers(dec *json.Decoder, depth int) (object, error) {
	var obj object
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(err)
		}
		key := tok.(string)
		if seen[key] {
			return nil, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		v, err := decodeValue(dec, depth)
		if err != nil {
			return nil, err
		}
		obj = append(obj, member{key, v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, syntaxError(err)
	}
	return obj, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > 4 {
		return nil, errors.New("it is nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return decodeMembers(dec, depth+1)
		}
		var list []any
		for dec.More() {
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, syntaxError(err)
		}
		if list == nil {
			list = []any{}
		}
		return list, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s is out of range", t)
		}
		return f, nil
	}
	return tok, nil // string, bool or nil
}

func syntaxError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the JSON ends too early")
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
