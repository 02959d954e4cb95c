package output

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/vector"
)

// File is a converted answer.
type File struct {
	// Data is the file.
	Data []byte
	// Format is its format.
	Format Format
	// SVG is the SVG it was made from, with the size asked for set on its root.
	SVG []byte
}

// inches returns x, given in unit, in inches.
func inches(x float64, unit string, dpi float64) float64 {
	switch unit {
	case "pt":
		return x / 72
	case "mm":
		return x / 25.4
	case "cm":
		return x / 2.54
	case "in":
		return x
	}
	return x / dpi
}

// Extent returns the output's width and height in the size's unit for a drawing whose
// viewBox is vbW x vbH: both sides as given, or the one given and the other by the
// viewBox's aspect; without a size, the viewBox's size in pixels.
func (s *Size) Extent(vbW, vbH float64) (w, h float64) {
	if s == nil {
		return vbW, vbH
	}
	w, h = s.Width, s.Height
	switch {
	case w == 0:
		w = h * vbW / vbH
	case h == 0:
		h = w * vbH / vbW
	}
	return w, h
}

func (s *Size) unitAndDPI() (string, float64) {
	if s == nil {
		return "px", DefaultDPI
	}
	return s.Unit, s.DPI
}

// Points returns the output's size in PostScript points (PDF and EPS pages).
func (s *Size) Points(vbW, vbH float64) (w, h float64) {
	w, h = s.Extent(vbW, vbH)
	unit, dpi := s.unitAndDPI()
	return inches(w, unit, dpi) * 72, inches(h, unit, dpi) * 72
}

// Pixels returns the output's size in whole pixels (PNG), at least 1 each: a size in
// pixels as given, a physical one at its dpi.
func (s *Size) Pixels(vbW, vbH float64) (w, h int) {
	fw, fh := s.Extent(vbW, vbH)
	unit, dpi := s.unitAndDPI()
	if unit != "px" {
		fw, fh = inches(fw, unit, dpi)*dpi, inches(fh, unit, dpi)*dpi
	}
	return max(1, int(math.Round(fw))), max(1, int(math.Round(fh)))
}

// Drawing returns a DXF's drawing size and its $INSUNITS code: in the size's unit, but
// points (which DXF has no code for) become inches, and pixels are unitless.
func (s *Size) Drawing(vbW, vbH float64) (w, h float64, units int) {
	w, h = s.Extent(vbW, vbH)
	unit, _ := s.unitAndDPI()
	switch unit {
	case "mm":
		return w, h, vector.UnitsMM
	case "cm":
		return w, h, vector.UnitsCM
	case "in":
		return w, h, vector.UnitsInches
	case "pt":
		return w / 72, h / 72, vector.UnitsInches
	}
	return w, h, vector.UnitsNone
}

// Check refuses, before any work, an answer in format f that the size makes too large
// for an image of w x h pixels (its SVG's viewBox): a PNG over MaxPNGPixels.
func Check(f Format, s *Size, w, h int) error {
	if f != PNG || w <= 0 || h <= 0 {
		return nil
	}
	pw, ph := s.Pixels(float64(w), float64(h))
	if float64(pw)*float64(ph) > MaxPNGPixels {
		return &fault.Error{Code: fault.InvalidSettings,
			Message: fmt.Sprintf("the PNG would be %d x %d pixels, over the limit of %d pixels; ask for a smaller output.size or a lower dpi", pw, ph, MaxPNGPixels),
			Details: []fault.Detail{{Field: "output.size", Message: fmt.Sprintf("gives a PNG of %d x %d pixels; at most %d pixels in all", pw, ph, MaxPNGPixels)}}}
	}
	return nil
}

// Convert turns an engine's checked SVG, whose viewBox is width x height (the image's
// size, as svg.Check has made sure), into the format f at the size s (nil: the image's
// size). The SVG comes back too, with the size set on its root when one was asked for.
// Only formats other than SVG parse the drawing.
func Convert(ctx context.Context, svg []byte, f Format, s *Size, width, height int) (File, error) {
	out := File{Format: f, SVG: svg}
	if s != nil {
		w, h := s.Extent(float64(width), float64(height))
		out.SVG = vector.SetSize(svg, length(w, s.Unit), length(h, s.Unit))
	}
	if f == SVG {
		out.Data = out.SVG
		return out, nil
	}
	doc, err := vector.Parse(svg)
	if err != nil {
		return out, fault.Wrap(err, fault.EngineBadOutput, "the engine's SVG cannot be converted: %v", err)
	}
	var b bytes.Buffer
	switch f {
	case PDF:
		w, h := s.Points(doc.Width, doc.Height)
		err = vector.WritePDF(&b, doc, w, h)
	case EPS:
		w, h := s.Points(doc.Width, doc.Height)
		err = vector.WriteEPS(&b, doc, w, h)
	case DXF:
		w, h, units := s.Drawing(doc.Width, doc.Height)
		err = vector.WriteDXF(&b, doc, w, h, units)
	case PNG:
		if err := Check(PNG, s, int(math.Ceil(doc.Width)), int(math.Ceil(doc.Height))); err != nil {
			return out, err
		}
		w, h := s.Pixels(doc.Width, doc.Height)
		err = vector.WritePNG(ctx, &b, doc, w, h)
	default:
		return out, fault.New(fault.Internal, "no writer for format %q", f)
	}
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, fault.Wrap(err, fault.Internal, "the %s file could not be written", f)
	}
	out.Data = b.Bytes()
	return out, nil
}

// length formats a side with its unit for an SVG root's width or height.
func length(x float64, unit string) string {
	return strconv.FormatFloat(math.Round(x*1e4)/1e4, 'f', -1, 64) + unit
}
