package sdk

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// An engine declares its parameters once, as the fields of a struct whose tags describe
// them; the sdk derives the schema from the struct (Describe) and hands Trace the
// client's values decoded into it (Decode), defaults filled in:
//
//	type Params struct {
//		Threshold int     `param:"threshold" min:"0" max:"255" default:"128" desc:"black/white threshold"`
//		Smooth    float64 `param:"smooth" min:"0" max:"1.334" step:"0.01" default:"1" desc:"corner smoothness"`
//		Policy    string  `param:"policy" enum:"black,white" default:"black" desc:"how to resolve ambiguous pixels"`
//		Invert    bool    `param:"invert" default:"false" desc:"trace the light areas"`
//		Stroke    string  `param:"stroke" format:"color" desc:"an optional CSS colour"`
//		Inks      []string `param:"inks" format:"color" maxItems:"16" desc:"the colours to paint with"`
//	}
//
// Field types: int (a whole Number), float64 (a Number), bool (a Boolean), string (an
// Enum when the tag has enum, a String otherwise), []string (a List, empty when not
// given), or Explicit of one of the first four when the engine needs to know whether the
// client gave the value. Tags: param (the name clients write, required), desc (one
// sentence, required), default (required except for a String, refused for a List), min
// and max (required for a Number), step, enum (comma-separated values), format ("color")
// and maxLength (for a String or each item of a List) and maxItems (for a List). An embedded struct's fields are
// parameters too, in its place, so engines can share a group of parameters.

// Explicit is a parameter value together with whether the client gave it, for engines
// whose own presets yield to explicit parameters. When not given, Value is the default.
type Explicit[T any] struct {
	Value T
	Given bool
}

// explicitValue lets the reflection code reach an Explicit of any T.
type explicitValue interface{ explicit() }

func (Explicit[T]) explicit() {}

var explicitType = reflect.TypeFor[explicitValue]()

// field is one parameter of a struct: its schema and where its value lives.
type field struct {
	param    Param
	index    []int
	explicit bool
}

// schema is what a parameter struct type stands for, derived once per type.
type schema struct {
	fields []field
	params []Param
	err    error
}

var schemas sync.Map // reflect.Type -> *schema

func schemaOf[P any]() *schema {
	t := reflect.TypeFor[P]()
	if s, ok := schemas.Load(t); ok {
		return s.(*schema)
	}
	s := &schema{}
	if t.Kind() != reflect.Struct {
		s.err = fmt.Errorf("sdk: parameters must be a struct, not %s", t)
	} else {
		var errs []error
		s.collect(t, nil, &errs)
		s.err = errors.Join(errs...)
	}
	for _, f := range s.fields {
		s.params = append(s.params, f.param)
	}
	schemas.Store(t, s)
	return s
}

// collect adds the parameters of struct type t, whose fields are at prefix.
func (s *schema) collect(t reflect.Type, prefix []int, errs *[]error) {
	for i := range t.NumField() {
		sf := t.Field(i)
		index := append(slices.Clone(prefix), i)
		name, tagged := sf.Tag.Lookup("param")
		if sf.Anonymous && !tagged && sf.Type.Kind() == reflect.Struct {
			s.collect(sf.Type, index, errs)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if !tagged {
			*errs = append(*errs, fmt.Errorf("sdk: field %s has no param tag", sf.Name))
			continue
		}
		f, err := parseField(sf, name)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("sdk: field %s (%q): %w", sf.Name, name, err))
			continue
		}
		f.index = index
		s.fields = append(s.fields, f)
	}
}

// parseField reads one field's tags into its Param.
func parseField(sf reflect.StructField, name string) (field, error) {
	f := field{param: Param{Name: name, Description: sf.Tag.Get("desc")}}
	t := sf.Type
	if t.Implements(explicitType) {
		f.explicit = true
		t = t.Field(0).Type
	}
	tag := sf.Tag
	num := func(key string, required bool) (float64, error) {
		s, ok := tag.Lookup(key)
		if !ok {
			if required {
				return 0, fmt.Errorf("a number needs a %s tag", key)
			}
			return 0, nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("%s %q is not a number", key, s)
		}
		return v, nil
	}
	var err error
	p := &f.param
	def, hasDefault := tag.Lookup("default")
	switch t.Kind() {
	case reflect.Int, reflect.Float64:
		p.Type, p.Integer = Number, t.Kind() == reflect.Int
		if p.Min, err = num("min", true); err != nil {
			return f, err
		}
		if p.Max, err = num("max", true); err != nil {
			return f, err
		}
		if p.Step, err = num("step", false); err != nil {
			return f, err
		}
		if hasDefault {
			v, err := strconv.ParseFloat(def, 64)
			if err != nil {
				return f, fmt.Errorf("default %q is not a number", def)
			}
			p.Default = v
		}
	case reflect.Bool:
		p.Type = Boolean
		if hasDefault {
			v, err := strconv.ParseBool(def)
			if err != nil {
				return f, fmt.Errorf("default %q is not true or false", def)
			}
			p.Default = v
		}
	case reflect.String:
		p.Type = String
		if values, ok := tag.Lookup("enum"); ok {
			p.Type, p.Values = Enum, strings.Split(values, ",")
		}
		p.Format = tag.Get("format")
		if ml, ok := tag.Lookup("maxLength"); ok {
			if p.MaxLength, err = strconv.Atoi(ml); err != nil {
				return f, fmt.Errorf("maxLength %q is not a whole number", ml)
			}
		}
		if hasDefault {
			p.Default = def
		}
	case reflect.Slice:
		if t.Elem().Kind() != reflect.String || f.explicit {
			return f, fmt.Errorf("type %s is not int, float64, bool, string, []string or an Explicit of one of the first four", sf.Type)
		}
		p.Type, p.Format = List, tag.Get("format")
		if ml, ok := tag.Lookup("maxLength"); ok {
			if p.MaxLength, err = strconv.Atoi(ml); err != nil {
				return f, fmt.Errorf("maxLength %q is not a whole number", ml)
			}
		}
		if mi, ok := tag.Lookup("maxItems"); ok {
			if p.MaxItems, err = strconv.Atoi(mi); err != nil {
				return f, fmt.Errorf("maxItems %q is not a whole number", mi)
			}
		}
		if hasDefault {
			return f, errors.New("a []string parameter has no default tag (an empty list means not given)")
		}
		return f, nil
	default:
		return f, fmt.Errorf("type %s is not int, float64, bool, string, []string or an Explicit of one of the first four", sf.Type)
	}
	if !hasDefault && p.Type != String {
		return f, errors.New("no default tag")
	}
	return f, nil
}

// Describe returns the parameter schema of the struct type P, for Descriptor.Params, in
// the order of P's fields. It panics if P's tags are malformed, a programming error
// that the engine's first test run shows.
func Describe[P any]() []Param {
	s := schemaOf[P]()
	if s.err != nil {
		panic(s.err)
	}
	out := make([]Param, len(s.params))
	for i, p := range s.params {
		p.Values = slices.Clone(p.Values)
		out[i] = p
	}
	return out
}

// Defaults returns P with every parameter at its default.
func Defaults[P any]() P {
	p, err := Decode[P](nil)
	if err != nil {
		panic(err)
	}
	return p
}

// Decode checks given, a parameter name to JSON value map (float64, string or bool, as
// encoding/json decodes them), against P's schema and returns P with the given values
// and the defaults of the others. The error is a CodeInvalidSettings *Error naming every
// problem. Serve decodes for the engine; Decode is for calling Trace directly, in tests
// or from another program.
func Decode[P any](given map[string]any) (P, error) {
	var p P
	s := schemaOf[P]()
	if s.err != nil {
		return p, s.err
	}
	if problems := checkValues("", s.params, given); len(problems) > 0 {
		return p, problemsError("", problems)
	}
	s.fill(reflect.ValueOf(&p).Elem(), given)
	return p, nil
}

// fill sets every field of v (a P) to its given value or else its default. The values
// have been checked.
func (s *schema) fill(v reflect.Value, given map[string]any) {
	for _, f := range s.fields {
		fv := v.FieldByIndex(f.index)
		val, ok := given[f.param.Name]
		if f.explicit {
			fv.Field(1).SetBool(ok)
			fv = fv.Field(0)
		}
		if !ok {
			val = f.param.Default
		}
		switch x := val.(type) {
		case float64:
			if fv.Kind() == reflect.Int {
				fv.SetInt(int64(math.Round(x)))
			} else {
				fv.SetFloat(x)
			}
		case string:
			fv.SetString(x)
		case bool:
			fv.SetBool(x)
		case []string:
			fv.Set(reflect.ValueOf(slices.Clone(x)))
		case []any:
			items := make([]string, len(x))
			for i, it := range x {
				items[i], _ = it.(string)
			}
			fv.Set(reflect.ValueOf(items))
		}
	}
}

// Check returns nil when every field of p holds a valid value of its parameter, and
// otherwise a CodeInvalidSettings *Error naming each problem: for engines whose Trace is
// also called directly, with values that did not come through Decode. A String
// parameter without a default may be empty (not given).
func Check[P any](p P) error {
	s := schemaOf[P]()
	if s.err != nil {
		return s.err
	}
	v := reflect.ValueOf(p)
	var problems []Problem
	for _, f := range s.fields {
		fv := v.FieldByIndex(f.index)
		if f.explicit {
			fv = fv.Field(0)
		}
		var val any
		switch fv.Kind() {
		case reflect.Int:
			val = float64(fv.Int())
		case reflect.Float64:
			val = fv.Float()
		case reflect.Bool:
			val = fv.Bool()
		case reflect.String:
			if fv.String() == "" && f.param.Default == nil {
				continue
			}
			val = fv.String()
		case reflect.Slice:
			if fv.Len() == 0 {
				continue
			}
			val = fv.Interface()
		}
		for _, pr := range f.param.problems(val) {
			pr.Field = f.param.Name + pr.Field
			problems = append(problems, pr)
		}
	}
	if len(problems) > 0 {
		return problemsError("", problems)
	}
	return nil
}

// CheckValues checks given, a parameter name to JSON value map, against the schema d
// describes and returns every problem, in name order: unknown names, wrong types and
// values out of range. The host checks a client's settings with it.
func (d Descriptor) CheckValues(given map[string]any) []Problem {
	return checkValues(d.Name, d.Params, given)
}

func checkValues(engine string, params []Param, given map[string]any) []Problem {
	var problems []Problem
	for _, name := range slices.Sorted(maps.Keys(given)) {
		v := given[name]
		i := slices.IndexFunc(params, func(p Param) bool { return p.Name == name })
		if i < 0 {
			names := make([]string, len(params))
			for i, p := range params {
				names[i] = p.Name
			}
			of := "is not a parameter"
			if engine != "" {
				of += " of engine " + engine
			}
			problems = append(problems, Problem{Field: name, Message: of + "; known: " + strings.Join(names, ", "), Value: v})
			continue
		}
		for _, pr := range params[i].problems(v) {
			pr.Field = name + pr.Field
			problems = append(problems, pr)
		}
	}
	return problems
}
