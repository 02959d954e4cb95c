package sdk

import (
	"errors"
	"image/color"
	"math"
	"strconv"
	"strings"
)

var errColor = errors.New("not a CSS colour")

// ParseColor parses a CSS colour: a hex colour (#rgb, #rgba, #rrggbb, #rrggbbaa), rgb() or
// rgba() in the comma or the space syntax with numbers or percentages and an optional
// alpha, hsl() or hsla() with an optional angle unit (deg, rad, grad, turn), a named
// colour of CSS Color Module Level 4, or "transparent". Keywords and function names are
// case-insensitive. It accepts nothing else (no url(), var() or currentColor), so a
// parsed colour can be written into an SVG without escaping.
func ParseColor(s string) (color.NRGBA, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || len(s) > DefaultMaxLength {
		return color.NRGBA{}, errColor
	}
	if s[0] == '#' {
		return parseHex(s[1:])
	}
	if s == "transparent" {
		return color.NRGBA{}, nil
	}
	if c, ok := namedColors[s]; ok {
		return color.NRGBA{R: uint8(c >> 16), G: uint8(c >> 8), B: uint8(c), A: 255}, nil
	}
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return color.NRGBA{}, errColor
	}
	fn, args := s[:open], s[open+1:len(s)-1]
	parts, alpha, err := splitArgs(args)
	if err != nil || len(parts) != 3 {
		return color.NRGBA{}, errColor
	}
	a := 1.0
	if alpha != "" {
		if a, err = parseAlpha(alpha); err != nil {
			return color.NRGBA{}, err
		}
	}
	switch fn {
	case "rgb", "rgba":
		var ch [3]float64
		for i, p := range parts {
			if ch[i], err = parseChannel(p); err != nil {
				return color.NRGBA{}, err
			}
		}
		return nrgba(ch[0], ch[1], ch[2], a), nil
	case "hsl", "hsla":
		h, err := parseHue(parts[0])
		if err != nil {
			return color.NRGBA{}, err
		}
		sat, err1 := parsePercent(parts[1])
		light, err2 := parsePercent(parts[2])
		if err1 != nil || err2 != nil {
			return color.NRGBA{}, errColor
		}
		r, g, b := hslToRGB(h, sat, light)
		return nrgba(r*255, g*255, b*255, a), nil
	}
	return color.NRGBA{}, errColor
}

func parseHex(h string) (color.NRGBA, error) {
	for _, c := range h {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return color.NRGBA{}, errColor
		}
	}
	nib := func(i int) uint8 { v, _ := strconv.ParseUint(h[i:i+1], 16, 8); return uint8(v) }
	byt := func(i int) uint8 { v, _ := strconv.ParseUint(h[i:i+2], 16, 8); return uint8(v) }
	switch len(h) {
	case 3, 4:
		c := color.NRGBA{R: nib(0) * 17, G: nib(1) * 17, B: nib(2) * 17, A: 255}
		if len(h) == 4 {
			c.A = nib(3) * 17
		}
		return c, nil
	case 6, 8:
		c := color.NRGBA{R: byt(0), G: byt(2), B: byt(4), A: 255}
		if len(h) == 8 {
			c.A = byt(6)
		}
		return c, nil
	}
	return color.NRGBA{}, errColor
}

// splitArgs splits "1, 2, 3, .5" or "1 2 3 / 50%" into three channel arguments and an
// optional alpha argument.
func splitArgs(args string) (parts []string, alpha string, err error) {
	if strings.Contains(args, ",") {
		parts = strings.Split(args, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		if len(parts) == 4 {
			return parts[:3], parts[3], nil
		}
		return parts, "", nil
	}
	main, alphaPart, hasSlash := strings.Cut(args, "/")
	parts = strings.Fields(main)
	if hasSlash {
		alpha = strings.TrimSpace(alphaPart)
		if alpha == "" {
			return nil, "", errColor
		}
	}
	return parts, alpha, nil
}

func parseNumber(s string) (float64, error) {
	if s == "" || strings.ContainsAny(s, "xXpPnN_") { // no hex floats, inf, nan or digit separators
		return 0, errColor
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, errColor
	}
	return f, nil
}

func parsePercent(s string) (float64, error) {
	if !strings.HasSuffix(s, "%") {
		return 0, errColor
	}
	f, err := parseNumber(s[:len(s)-1])
	return clamp01(f / 100), err
}

func parseChannel(s string) (float64, error) {
	if strings.HasSuffix(s, "%") {
		f, err := parsePercent(s)
		return f * 255, err
	}
	f, err := parseNumber(s)
	return math.Max(0, math.Min(255, f)), err
}

func parseAlpha(s string) (float64, error) {
	if strings.HasSuffix(s, "%") {
		return parsePercent(s)
	}
	f, err := parseNumber(s)
	return clamp01(f), err
}

func parseHue(s string) (float64, error) {
	units := []struct {
		suffix string
		scale  float64
	}{{"deg", 1}, {"grad", 0.9}, {"rad", 180 / math.Pi}, {"turn", 360}}
	scale := 1.0
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, scale = strings.TrimSuffix(s, u.suffix), u.scale
			break
		}
	}
	f, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	h := math.Mod(f*scale, 360)
	if h < 0 {
		h += 360
	}
	return h, nil
}

// hslToRGB converts hue in degrees and saturation, lightness in [0,1] to RGB in [0,1],
// following the CSS Color 4 definition.
func hslToRGB(h, s, l float64) (r, g, b float64) {
	f := func(n float64) float64 {
		k := math.Mod(n+h/30, 12)
		a := s * math.Min(l, 1-l)
		return l - a*math.Max(-1, math.Min(math.Min(k-3, 9-k), 1))
	}
	return f(0), f(8), f(4)
}

func clamp01(f float64) float64 { return math.Max(0, math.Min(1, f)) }

func nrgba(r, g, b, a float64) color.NRGBA {
	u := func(v float64) uint8 { return uint8(math.Round(math.Max(0, math.Min(255, v)))) }
	return color.NRGBA{R: u(r), G: u(g), B: u(b), A: u(a * 255)}
}

// namedColors are the CSS Color Module Level 4 named colours, as 0xRRGGBB.
var namedColors = map[string]uint32{
	"aliceblue": 0xf0f8ff, "antiquewhite": 0xfaebd7, "aqua": 0x00ffff, "aquamarine": 0x7fffd4,
	"azure": 0xf0ffff, "beige": 0xf5f5dc, "bisque": 0xffe4c4, "black": 0x000000,
	"blanchedalmond": 0xffebcd, "blue": 0x0000ff, "blueviolet": 0x8a2be2, "brown": 0xa52a2a,
	"burlywood": 0xdeb887, "cadetblue": 0x5f9ea0, "chartreuse": 0x7fff00, "chocolate": 0xd2691e,
	"coral": 0xff7f50, "cornflowerblue": 0x6495ed, "cornsilk": 0xfff8dc, "crimson": 0xdc143c,
	"cyan": 0x00ffff, "darkblue": 0x00008b, "darkcyan": 0x008b8b, "darkgoldenrod": 0xb8860b,
	"darkgray": 0xa9a9a9, "darkgreen": 0x006400, "darkgrey": 0xa9a9a9, "darkkhaki": 0xbdb76b,
	"darkmagenta": 0x8b008b, "darkolivegreen": 0x556b2f, "darkorange": 0xff8c00, "darkorchid": 0x9932cc,
	"darkred": 0x8b0000, "darksalmon": 0xe9967a, "darkseagreen": 0x8fbc8f, "darkslateblue": 0x483d8b,
	"darkslategray": 0x2f4f4f, "darkslategrey": 0x2f4f4f, "darkturquoise": 0x00ced1, "darkviolet": 0x9400d3,
	"deeppink": 0xff1493, "deepskyblue": 0x00bfff, "dimgray": 0x696969, "dimgrey": 0x696969,
	"dodgerblue": 0x1e90ff, "firebrick": 0xb22222, "floralwhite": 0xfffaf0, "forestgreen": 0x228b22,
	"fuchsia": 0xff00ff, "gainsboro": 0xdcdcdc, "ghostwhite": 0xf8f8ff, "gold": 0xffd700,
	"goldenrod": 0xdaa520, "gray": 0x808080, "green": 0x008000, "greenyellow": 0xadff2f,
	"grey": 0x808080, "honeydew": 0xf0fff0, "hotpink": 0xff69b4, "indianred": 0xcd5c5c,
	"indigo": 0x4b0082, "ivory": 0xfffff0, "khaki": 0xf0e68c, "lavender": 0xe6e6fa,
	"lavenderblush": 0xfff0f5, "lawngreen": 0x7cfc00, "lemonchiffon": 0xfffacd, "lightblue": 0xadd8e6,
	"lightcoral": 0xf08080, "lightcyan": 0xe0ffff, "lightgoldenrodyellow": 0xfafad2, "lightgray": 0xd3d3d3,
	"lightgreen": 0x90ee90, "lightgrey": 0xd3d3d3, "lightpink": 0xffb6c1, "lightsalmon": 0xffa07a,
	"lightseagreen": 0x20b2aa, "lightskyblue": 0x87cefa, "lightslategray": 0x778899, "lightslategrey": 0x778899,
	"lightsteelblue": 0xb0c4de, "lightyellow": 0xffffe0, "lime": 0x00ff00, "limegreen": 0x32cd32,
	"linen": 0xfaf0e6, "magenta": 0xff00ff, "maroon": 0x800000, "mediumaquamarine": 0x66cdaa,
	"mediumblue": 0x0000cd, "mediumorchid": 0xba55d3, "mediumpurple": 0x9370db, "mediumseagreen": 0x3cb371,
	"mediumslateblue": 0x7b68ee, "mediumspringgreen": 0x00fa9a, "mediumturquoise": 0x48d1cc, "mediumvioletred": 0xc71585,
	"midnightblue": 0x191970, "mintcream": 0xf5fffa, "mistyrose": 0xffe4e1, "moccasin": 0xffe4b5,
	"navajowhite": 0xffdead, "navy": 0x000080, "oldlace": 0xfdf5e6, "olive": 0x808000,
	"olivedrab": 0x6b8e23, "orange": 0xffa500, "orangered": 0xff4500, "orchid": 0xda70d6,
	"palegoldenrod": 0xeee8aa, "palegreen": 0x98fb98, "paleturquoise": 0xafeeee, "palevioletred": 0xdb7093,
	"papayawhip": 0xffefd5, "peachpuff": 0xffdab9, "peru": 0xcd853f, "pink": 0xffc0cb,
	"plum": 0xdda0dd, "powderblue": 0xb0e0e6, "purple": 0x800080, "rebeccapurple": 0x663399,
	"red": 0xff0000, "rosybrown": 0xbc8f8f, "royalblue": 0x4169e1, "saddlebrown": 0x8b4513,
	"salmon": 0xfa8072, "sandybrown": 0xf4a460, "seagreen": 0x2e8b57, "seashell": 0xfff5ee,
	"sienna": 0xa0522d, "silver": 0xc0c0c0, "skyblue": 0x87ceeb, "slateblue": 0x6a5acd,
	"slategray": 0x708090, "slategrey": 0x708090, "snow": 0xfffafa, "springgreen": 0x00ff7f,
	"steelblue": 0x4682b4, "tan": 0xd2b48c, "teal": 0x008080, "thistle": 0xd8bfd8,
	"tomato": 0xff6347, "turquoise": 0x40e0d0, "violet": 0xee82ee, "wheat": 0xf5deb3,
	"white": 0xffffff, "whitesmoke": 0xf5f5f5, "yellow": 0xffff00, "yellowgreen": 0x9acd32,
}
