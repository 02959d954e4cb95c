package svg

import (
	"bytes"
	"image/color"
	"strings"
	"testing"
)

func TestNumWritesTheShortestFixedForm(t *testing.T) {
	tests := []struct {
		v    float64
		prec int
		want string
	}{
		{0, 2, "0"},
		{-0.0001, 2, "0"},
		{0.5, 2, ".5"},
		{-0.25, 2, "-.25"},
		{1.005, 1, "1"},
		{12.3456, 2, "12.35"},
		{-12.3449, 2, "-12.34"},
		{100, 3, "100"},
		{2.5, 0, "3"},
		{-2.5, 0, "-3"},
		{1.23456789, 8, "1.23456789"},
		{1.5, 12, "1.5"},
		{0.000001, 8, ".000001"},
	}
	for _, tt := range tests {
		if got := Num(tt.v, tt.prec); got != tt.want {
			t.Errorf("Num(%v, %d) = %q, want %q", tt.v, tt.prec, got, tt.want)
		}
	}
}

func TestPathPicksTheShorterFormWithoutDrift(t *testing.T) {
	tests := []struct {
		name string
		draw func(p *Path)
		want string
	}{
		{"square uses H and V", func(p *Path) {
			p.MoveTo(10, 10)
			p.LineTo(20, 10)
			p.LineTo(20, 20)
			p.LineTo(10, 20)
			p.Close()
		}, "M10 10H20V20H10Z"},
		{"relative when shorter", func(p *Path) {
			p.MoveTo(100.5, 200.25)
			p.LineTo(101, 201)
		}, "M100.5 200.25l.5.75"},
		{"lines after a move need no command letter", func(p *Path) {
			p.MoveTo(10, 10)
			p.LineTo(5, 3)
		}, "M10 10 5 3"},
		{"implicit repetition of lines", func(p *Path) {
			p.MoveTo(0, 0)
			p.LineTo(3, 4)
			p.LineTo(7, 9)
			p.LineTo(12, 20)
		}, "M0 0 3 4 7 9l5 11"},
		{"smooth cubic", func(p *Path) {
			p.MoveTo(0, 0)
			p.CubicTo(0, 10, 10, 10, 10, 0)
			p.CubicTo(10, -10, 20, -10, 20, 0)
		}, "M0 0C0 10 10 10 10 0S20-10 20 0"},
		{"close returns to the subpath start", func(p *Path) {
			p.MoveTo(50, 50)
			p.LineTo(60, 55)
			p.Close()
			p.MoveTo(51, 51)
		}, "M50 50l10 5Zm1 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPath(2)
			tt.draw(p)
			if got := p.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPathEndsWhereTheAbsolutePathEnds(t *testing.T) {
	p := NewPath(1)
	x, y := 0.0, 0.0
	p.MoveTo(x, y)
	for i := 0; i < 1000; i++ {
		x += 0.33
		y += 0.17
		p.LineTo(x, y)
	}
	gx, gy := p.Current()
	if Num(gx, 1) != Num(x, 1) || Num(gy, 1) != Num(y, 1) {
		t.Errorf("current point %v,%v, want %s,%s", gx, gy, Num(x, 1), Num(y, 1))
	}
}

func TestHeaderAndColours(t *testing.T) {
	var b bytes.Buffer
	Header(&b, 640, 480, true, "")
	Footer(&b)
	want := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 480" width="640" height="480"></svg>` + "\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if got := Hex(color.NRGBA{R: 0xff, G: 0x88, B: 0x00}); got != "#f80" {
		t.Errorf("Hex = %q, want #f80", got)
	}
	if got := Hex(color.NRGBA{R: 0x12, G: 0x34, B: 0x56}); got != "#123456" {
		t.Errorf("Hex = %q, want #123456", got)
	}
	if got := Opacity(128); got != ".502" {
		t.Errorf("Opacity(128) = %q", got)
	}
}

func TestPaintAddsTheOpacityOnlyWhenNeeded(t *testing.T) {
	for _, tc := range []struct {
		attr string
		c    color.NRGBA
		want string
	}{
		{"fill", color.NRGBA{R: 0xff, G: 0x88, A: 255}, ` fill="#f80"`},
		{"fill", color.NRGBA{R: 0x12, G: 0x34, B: 0x56, A: 128}, ` fill="#123456" fill-opacity=".502"`},
		{"stroke", color.NRGBA{A: 255}, ` stroke="#000"`},
		{"stroke", color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 1}, ` stroke="#fff" stroke-opacity=".004"`},
		{"fill", color.NRGBA{}, ` fill="#000" fill-opacity="0"`},
	} {
		if got := Paint(tc.attr, tc.c); got != tc.want {
			t.Errorf("Paint(%q, %v) = %q, want %q", tc.attr, tc.c, got, tc.want)
		}
	}
}

func TestIDsAreShortStableAndUnique(t *testing.T) {
	var ids IDs
	got := []string{
		ids.Colour(color.NRGBA{0x1a, 0x2b, 0x3c, 255}),
		ids.Shape(),
		ids.Shape(),
		ids.Colour(color.NRGBA{0x1a, 0x2b, 0x3c, 0x80}),
		ids.Colour(color.NRGBA{0x1a, 0x2b, 0x3c, 255}),
		ids.Shape(),
	}
	want := []string{"c-1a2b3c", "p-1", "p-2", "c-1a2b3c80", "c-1a2b3c-2", "p-3"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got ids %v, want %v", got, want)
	}
}
