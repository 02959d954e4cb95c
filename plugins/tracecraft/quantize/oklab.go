package quantize

import "math"

// Lab is a colour in the Oklab perceptual space (Björn Ottosson, 2020) with its alpha:
// L is lightness in [0, 1], A and B the opponent axes (about ±0.4), Alpha in [0, 1].
// Euclidean distances in Lab approximate perceived colour differences.
type Lab struct{ L, A, B, Alpha float32 }

// linearTable maps an 8-bit sRGB channel to linear light.
var linearTable = func() [256]float32 {
	var t [256]float32
	for i := range t {
		c := float64(i) / 255
		if c <= 0.04045 {
			t[i] = float32(c / 12.92)
		} else {
			t[i] = float32(math.Pow((c+0.055)/1.055, 2.4))
		}
	}
	return t
}()

// ToLab converts a non-premultiplied 8-bit sRGB colour with alpha to Lab.
func ToLab(r, g, b, a uint8) Lab {
	return linearToLab(float64(linearTable[r]), float64(linearTable[g]), float64(linearTable[b]), float32(a)/255)
}

// ToLabF converts a non-premultiplied sRGB colour with channels in [0, 255] (not
// necessarily whole numbers, such as a mean) and alpha in [0, 1] to Lab.
func ToLabF(r, g, b, a float64) Lab {
	return linearToLab(srgbToLinear(r/255), srgbToLinear(g/255), srgbToLinear(b/255), float32(a))
}

func srgbToLinear(c float64) float64 {
	c = math.Max(0, math.Min(1, c))
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

func linearToLab(r, g, b float64, alpha float32) Lab {
	l := 0.4122214708*r + 0.5363325363*g + 0.0514459929*b
	m := 0.2119034982*r + 0.6806995451*g + 0.1073969566*b
	s := 0.0883024619*r + 0.2817188376*g + 0.6299787005*b
	l, m, s = math.Cbrt(l), math.Cbrt(m), math.Cbrt(s)
	return Lab{
		L:     float32(0.2104542553*l + 0.7936177850*m - 0.0040720468*s),
		A:     float32(1.9779984951*l - 2.4285922050*m + 0.4505937099*s),
		B:     float32(0.0259040371*l + 0.7827717662*m - 0.8086757660*s),
		Alpha: alpha,
	}
}

// alphaWeight scales alpha differences against Oklab ones: a fully transparent and a
// fully opaque version of one colour are as far apart as black and white.
const alphaWeight = 1.0

// Dist2 returns the squared distance between two colours, alpha included.
func Dist2(p, q Lab) float32 {
	dl, da, db, dA := p.L-q.L, p.A-q.A, p.B-q.B, (p.Alpha-q.Alpha)*alphaWeight
	return dl*dl + da*da + db*db + dA*dA
}
