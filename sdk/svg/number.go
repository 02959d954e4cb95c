// Package svg writes compact, deterministic SVG: numbers with a fixed number of decimals
// and no redundant characters, path data that picks the shorter of absolute and relative
// commands, colours in their shortest hex form, and the document frame every Tracecraft
// engine emits (xmlns and viewBox="0 0 W H").
package svg

import (
	"math"
	"strconv"
)

// MaxPrecision is the largest number of decimals the writer keeps.
const MaxPrecision = 8

var pow10 = [MaxPrecision + 1]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// Quantize rounds v to prec decimals (clamped to 0..MaxPrecision) and returns it as an
// integer count of 10^-prec units. Rounding is half away from zero, so the result does
// not depend on the platform.
func Quantize(v float64, prec int) int64 {
	prec = clampPrec(prec)
	return int64(math.Round(v * pow10[prec]))
}

// Num formats v with at most prec decimals in its shortest form: trailing zeros and a
// leading zero are dropped ("0.50" is ".5", "-0.25" is "-.25") and negative zero is "0".
func Num(v float64, prec int) string { return string(AppendNum(nil, v, prec)) }

// AppendNum appends Num(v, prec) to dst.
func AppendNum(dst []byte, v float64, prec int) []byte {
	prec = clampPrec(prec)
	return appendFixed(dst, Quantize(v, prec), prec)
}

// appendFixed appends the quantised value q (in units of 10^-prec) in shortest form.
func appendFixed(dst []byte, q int64, prec int) []byte {
	if q == 0 {
		return append(dst, '0')
	}
	if q < 0 {
		dst = append(dst, '-')
		q = -q
	}
	unit := int64(pow10[prec])
	whole, frac := q/unit, q%unit
	if whole != 0 || frac == 0 {
		dst = strconv.AppendInt(dst, whole, 10)
	}
	if frac == 0 {
		return dst
	}
	digits := prec
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	dst = append(dst, '.')
	var tmp [MaxPrecision]byte
	for i := digits - 1; i >= 0; i-- {
		tmp[i] = byte('0' + frac%10)
		frac /= 10
	}
	return append(dst, tmp[:digits]...)
}

func clampPrec(prec int) int {
	if prec < 0 {
		return 0
	}
	if prec > MaxPrecision {
		return MaxPrecision
	}
	return prec
}
