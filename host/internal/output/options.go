// Package output holds what a client asks of the answer's file: the settings object
// output (the format, the size), the Accept header's negotiation between the JSON answer
// and a bare file, and the conversion of an engine's checked SVG into the format asked
// for, through the one document model of package vector.
package output

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

// Format is an output file format.
type Format string

// The output formats, SVG the default.
const (
	SVG Format = "svg"
	PDF Format = "pdf"
	EPS Format = "eps"
	DXF Format = "dxf"
	PNG Format = "png"
)

// Formats lists every format, the default first.
var Formats = []Format{SVG, PDF, EPS, DXF, PNG}

// MediaTypes gives each format's media types, the one its answers are labelled with
// first.
var MediaTypes = map[Format][]string{
	SVG: {"image/svg+xml"},
	PDF: {"application/pdf"},
	EPS: {"application/postscript"},
	DXF: {"image/vnd.dxf", "application/dxf"},
	PNG: {"image/png"},
}

// Units are the units a size may be given in.
var Units = []string{"px", "pt", "mm", "cm", "in"}

// DefaultDPI is the resolution that converts between pixels and physical units when the
// size does not give one: CSS's 96 pixels per inch.
const DefaultDPI = 96

// Bounds of a size: its sides, in any unit, and its dpi.
const (
	MaxSide = 100000
	MinDPI  = 1
	MaxDPI  = 10000
)

// MaxPNGPixels caps a PNG answer's width times height.
const MaxPNGPixels = 25_000_000

// Size is the output.size object: a width and/or a height in Unit, and the resolution
// in pixels per inch that converts pixels to physical units and back.
type Size struct {
	// Width and Height are the sides asked for; 0 when not given (at least one is).
	Width, Height float64
	// Unit is one of Units; "px" when not given.
	Unit string
	// DPI is the resolution; DefaultDPI when not given.
	DPI float64
}

// Options are the output settings of a request.
type Options struct {
	// Format is the format asked for; SVG when not given.
	Format Format
	// FormatGiven says whether the settings named a format.
	FormatGiven bool
	// Size is the size asked for; nil keeps the image's pixel size.
	Size *Size
	// Quality asks for the trace's fidelity score (SSIM and PSNR against the image) in
	// the answer; off by default, since it costs a decode and a render of the image.
	Quality bool
}

// Default returns the options of a request without an output object.
func Default() Options { return Options{Format: SVG} }

// Field is one member of a JSON object, in document order. Its Value is nil, a bool, a
// float64, a string, a []any or, for a nested object, a []Field.
type Field struct {
	Key   string
	Value any
}

// Keys are the keys of the output object.
var Keys = []string{"format", "size", "quality"}

// SizeKeys are the keys of the output.size object.
var SizeKeys = []string{"width", "height", "unit", "dpi"}

// Parse validates the output object's value and returns the options and every problem
// found, each named by its field ("output.size.unit").
func Parse(v any) (Options, []fault.Detail) {
	o := Default()
	var details []fault.Detail
	add := func(field, msg string, value any) {
		details = append(details, fault.Detail{Field: field, Message: msg, Value: value})
	}
	fields, ok := v.([]Field)
	if !ok {
		add("output", `must be a JSON object, such as {"format":"pdf"}`, plain(v))
		return o, details
	}
	for _, f := range fields {
		switch f.Key {
		case "format":
			s, ok := f.Value.(string)
			if !ok || !validFormat(s) {
				add("output.format", "must be one of "+quoted(Formats), plain(f.Value))
				continue
			}
			o.Format, o.FormatGiven = Format(s), true
		case "size":
			size, problems := parseSize(f.Value)
			details = append(details, problems...)
			if len(problems) == 0 {
				o.Size = &size
			}
		case "quality":
			b, ok := f.Value.(bool)
			if !ok {
				add("output.quality", "must be true or false", plain(f.Value))
				continue
			}
			o.Quality = b
		default:
			add("output."+f.Key, "is not an output setting: use "+quoted(Keys), nil)
		}
	}
	return o, details
}

func parseSize(v any) (Size, []fault.Detail) {
	s := Size{Unit: "px", DPI: DefaultDPI}
	var details []fault.Detail
	add := func(field, msg string, value any) {
		details = append(details, fault.Detail{Field: "output.size" + field, Message: msg, Value: value})
	}
	fields, ok := v.([]Field)
	if !ok {
		add("", `must be a JSON object, such as {"width":100,"unit":"mm"}`, plain(v))
		return s, details
	}
	side := func(f Field, dst *float64) {
		x, ok := f.Value.(float64)
		if !ok || x <= 0 || x > MaxSide || math.IsNaN(x) {
			add("."+f.Key, fmt.Sprintf("must be a number above 0 and at most %d, in the size's unit", MaxSide), plain(f.Value))
			return
		}
		*dst = x
	}
	for _, f := range fields {
		switch f.Key {
		case "width":
			side(f, &s.Width)
		case "height":
			side(f, &s.Height)
		case "unit":
			u, ok := f.Value.(string)
			if !ok || !contains(Units, u) {
				add(".unit", "must be one of "+quoted(Units), plain(f.Value))
				continue
			}
			s.Unit = u
		case "dpi":
			x, ok := f.Value.(float64)
			if !ok || x < MinDPI || x > MaxDPI {
				add(".dpi", fmt.Sprintf("must be a number from %d to %d (pixels per inch)", MinDPI, MaxDPI), plain(f.Value))
				continue
			}
			s.DPI = x
		default:
			add("."+f.Key, "is not a size setting: use "+quoted(SizeKeys), nil)
		}
	}
	if s.Width == 0 && s.Height == 0 && len(details) == 0 {
		add("", "must give a width, a height or both (the other side keeps the image's aspect)", nil)
	}
	return s, details
}

// plain turns a parsed value back into plain JSON values for a detail's value.
func plain(v any) any {
	switch t := v.(type) {
	case []Field:
		m := make(map[string]any, len(t))
		for _, f := range t {
			m[f.Key] = plain(f.Value)
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = plain(x)
		}
		return out
	}
	return v
}

func validFormat(s string) bool {
	for _, f := range Formats {
		if string(f) == s {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoted[T ~string](values []T) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(string(v))
	}
	return strings.Join(q, ", ")
}
