package sdk

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tracecraft/tracecraft/sdk/internal/wire"
)

// ParamType is the JSON type of a parameter, as the schema endpoint shows it.
type ParamType string

// The parameter types of the schema descriptor form.
const (
	Number  ParamType = "number"
	Enum    ParamType = "enum"
	Boolean ParamType = "boolean"
	String  ParamType = "string"
	// List is a JSON array of strings, each checked as a String of the parameter's
	// Format and MaxLength, at most MaxItems of them and none repeated (sdk 2.2.0). Its
	// Go field type is []string; it has no default (empty: not given).
	List ParamType = "list"
)

// FormatColor is the Param.Format of a string that must be a CSS colour (see ParseColor).
const FormatColor = "color"

// DefaultMaxLength bounds a string parameter whose MaxLength is 0.
const DefaultMaxLength = 256

// DefaultMaxItems bounds a list parameter whose MaxItems is 0.
const DefaultMaxItems = 256

// Param describes one parameter of an engine.
type Param struct {
	// Name is the key clients use, an identifier such as "maxColors".
	Name string
	// Type is the JSON type the value must have.
	Type ParamType
	// Description says what the parameter does, in one sentence.
	Description string
	// Default is the value used when the client gives none: a float64 for Number, a
	// string for Enum and String, a bool for Boolean. A String parameter may have no
	// default (nil).
	Default any
	// Min and Max bound a Number, inclusive.
	Min, Max float64
	// Step is the granularity a user interface should offer for a Number (0: none). It
	// is a hint: any value within [Min, Max] is accepted.
	Step float64
	// Integer restricts a Number to whole numbers.
	Integer bool
	// Values lists the allowed values of an Enum, case-sensitive.
	Values []string
	// Format constrains a String, or each item of a List; FormatColor is the only
	// format defined.
	Format string
	// MaxLength bounds a String, or each item of a List, in bytes; 0 means
	// DefaultMaxLength.
	MaxLength int
	// MaxItems bounds the length of a List; 0 means DefaultMaxItems.
	MaxItems int
}

// Problem is one thing wrong with a value, in the form the host lists in an error's
// details.
type Problem struct {
	// Field names the parameter ("maxColors"); the host prefixes the engine.
	Field string
	// Message says what is wrong, for a person ("must be between 2 and 256").
	Message string
	// Value is the offending value as given, or nil.
	Value any
}

// Check returns "" when v is an acceptable value of p, or a message saying why not. v is
// what a JSON decoder produces: float64, string, bool or, for a List, []any of strings
// ([]string too); other types are wrong types. For a List with several problems the
// message names each (Descriptor.CheckValues lists them one by one).
func (p Param) Check(v any) string {
	var msgs []string
	for _, pr := range p.problems(v) {
		if pr.Field != "" {
			msgs = append(msgs, "item "+strings.Trim(pr.Field, "[]")+" "+pr.Message)
		} else {
			msgs = append(msgs, pr.Message)
		}
	}
	return strings.Join(msgs, "; ")
}

// problems returns what is wrong with v as a value of p, nil when nothing is. A problem
// with one item of a List has Field "[i]", i its index, and the item as Value; the
// others have an empty Field and v as Value.
func (p Param) problems(v any) []Problem {
	whole := func(msg string) []Problem { return []Problem{{Message: msg, Value: v}} }
	switch p.Type {
	case Number:
		f, ok := v.(float64)
		if !ok {
			return whole("must be a number")
		}
		if math.IsNaN(f) || f < p.Min || f > p.Max {
			return whole(fmt.Sprintf("must be between %s and %s", formatFloat(p.Min), formatFloat(p.Max)))
		}
		if p.Integer && f != math.Trunc(f) {
			return whole("must be a whole number")
		}
	case Enum:
		s, ok := v.(string)
		if !ok || !slices.Contains(p.Values, s) {
			return whole("must be one of " + quoteList(p.Values))
		}
	case Boolean:
		if _, ok := v.(bool); !ok {
			return whole("must be true or false")
		}
	case String:
		if msg := p.checkString(v); msg != "" {
			return whole(msg)
		}
	case List:
		return p.listProblems(v)
	default:
		return whole("has an unknown type " + strconv.Quote(string(p.Type)))
	}
	return nil
}

// checkString checks a String value, or one item of a List.
func (p Param) checkString(v any) string {
	s, ok := v.(string)
	if !ok {
		return "must be a string"
	}
	if max := p.maxLength(); len(s) > max {
		return fmt.Sprintf("must be at most %d bytes long", max)
	}
	if p.Format == FormatColor {
		if _, err := ParseColor(s); err != nil {
			return "must be a CSS colour such as #ff8800, rgb(255 136 0), hsl(32 100% 50%) or orange"
		}
	}
	return ""
}

// listItems returns the items of a List value, or false when v is no array.
func listItems(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []string:
		items := make([]any, len(x))
		for i, s := range x {
			items[i] = s
		}
		return items, true
	}
	return nil, false
}

// listProblems checks a List value: an array, not too long, every item a valid String,
// no item repeated (for FormatColor, no colour repeated however it is written).
func (p Param) listProblems(v any) []Problem {
	items, ok := listItems(v)
	if !ok {
		what := "strings"
		if p.Format == FormatColor {
			what = "CSS colours"
		}
		return []Problem{{Message: "must be an array of " + what, Value: v}}
	}
	var problems []Problem
	if max := p.maxItems(); len(items) > max {
		problems = append(problems, Problem{Message: fmt.Sprintf("must have at most %d items, not %d", max, len(items)), Value: v})
	}
	first := map[string]int{}
	for i, it := range items {
		at := "[" + strconv.Itoa(i) + "]"
		if msg := p.checkString(it); msg != "" {
			problems = append(problems, Problem{Field: at, Message: msg, Value: it})
			continue
		}
		key := it.(string)
		if p.Format == FormatColor {
			c, _ := ParseColor(key)
			key = fmt.Sprint(c)
		}
		if j, ok := first[key]; ok {
			problems = append(problems, Problem{Field: at, Message: fmt.Sprintf("repeats item %d", j), Value: it})
			continue
		}
		first[key] = i
	}
	return problems
}

func (p Param) maxItems() int {
	if p.MaxItems > 0 {
		return p.MaxItems
	}
	return DefaultMaxItems
}

func (p Param) maxLength() int {
	if p.MaxLength > 0 {
		return p.MaxLength
	}
	return DefaultMaxLength
}

var identifier = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// Validate checks that the descriptor is well-formed: a valid engine name, a version, a
// known stability, and parameters with unique identifier names, a known type, a
// description, finite ranges, defaults inside their ranges and enum values that are
// unique. It returns every problem found, joined.
func (d Descriptor) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !wire.ValidEngineName(d.Name) {
		bad("engine name %q is not a lower-case identifier or is reserved", d.Name)
	}
	if strings.TrimSpace(d.Version) == "" {
		bad("engine %q has no version", d.Name)
	}
	if d.Stability != Stable && d.Stability != Experimental {
		bad("engine %q has no stability (sdk.Stable or sdk.Experimental)", d.Name)
	}
	seen := map[string]bool{}
	for i, p := range d.Params {
		where := fmt.Sprintf("parameter %d (%q)", i, p.Name)
		if !identifier.MatchString(p.Name) {
			bad("%s: name is not an identifier", where)
		}
		if seen[p.Name] {
			bad("%s: name is used twice", where)
		}
		seen[p.Name] = true
		if strings.TrimSpace(p.Description) == "" {
			bad("%s: no description", where)
		}
		switch p.Type {
		case Number:
			if math.IsNaN(p.Min) || math.IsNaN(p.Max) || math.IsInf(p.Min, 0) || math.IsInf(p.Max, 0) || p.Min > p.Max {
				bad("%s: range [%v, %v] is not a finite interval", where, p.Min, p.Max)
			}
			if p.Step < 0 || math.IsNaN(p.Step) || math.IsInf(p.Step, 0) {
				bad("%s: step %v is not a positive number", where, p.Step)
			}
		case Enum:
			if len(p.Values) == 0 {
				bad("%s: an enum needs values", where)
			}
			vs := map[string]bool{}
			for _, v := range p.Values {
				if v == "" || vs[v] {
					bad("%s: enum value %q is empty or repeated", where, v)
				}
				vs[v] = true
			}
		case Boolean:
		case String:
			if p.Format != "" && p.Format != FormatColor {
				bad("%s: unknown string format %q", where, p.Format)
			}
			if p.MaxLength < 0 {
				bad("%s: negative maximum length", where)
			}
		case List:
			if p.Format != "" && p.Format != FormatColor {
				bad("%s: unknown string format %q", where, p.Format)
			}
			if p.MaxLength < 0 || p.MaxItems < 0 {
				bad("%s: negative maximum length or item count", where)
			}
			if p.Default != nil {
				bad("%s: a list has no default", where)
			}
			continue
		default:
			bad("%s: unknown type %q", where, p.Type)
			continue
		}
		if p.Default == nil {
			if p.Type != String {
				bad("%s: no default", where)
			}
			continue
		}
		if want := goTypes[p.Type]; reflect.TypeOf(p.Default) != want {
			bad("%s: default %#v has Go type %T; a %s parameter's default must be a %s%s", where, p.Default, p.Default, p.Type, want, literalHint(p.Default))
			continue
		}
		if msg := p.Check(p.Default); msg != "" {
			bad("%s: default %v %s", where, p.Default, msg)
		}
	}
	return errors.Join(errs...)
}

// goTypes are the Go types of each parameter type's values.
var goTypes = map[ParamType]reflect.Type{
	Number: reflect.TypeFor[float64](), Enum: reflect.TypeFor[string](),
	Boolean: reflect.TypeFor[bool](), String: reflect.TypeFor[string](),
}

// literalHint suggests the float64 literal for an integer default written as an int.
func literalHint(v any) string {
	switch x := v.(type) {
	case int, int32, int64, uint, uint8, uint32, uint64:
		return fmt.Sprintf(" (write %v.0, not %v)", x, x)
	}
	return ""
}

func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
