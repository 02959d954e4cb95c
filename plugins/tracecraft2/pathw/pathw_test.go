package pathw

import (
	"math"
	"testing"
)

func TestShortest(t *testing.T) {
	tests := []struct {
		v, tol float64
		want   int64
	}{
		{12.04, 0.05, 12000},
		{12.06, 0.05, 12100},
		{12.06, 0.1, 12000},
		{-3.149, 0.01, -3150},
		{0.4, 0.5, 0},
		{7.1234, 0, 7123},
	}
	for _, tc := range tests {
		if got := shortest(tc.v, tc.tol); got != tc.want {
			t.Errorf("shortest(%v, %v) = %d, want %d", tc.v, tc.tol, got, tc.want)
		}
	}
}

func TestPathForms(t *testing.T) {
	tests := []struct {
		name string
		draw func(p *Path)
		want string
	}{
		{"square", func(p *Path) {
			p.MoveTo(10.02, 10)
			p.LineTo(20, 9.98)
			p.LineTo(20.03, 20)
			p.LineTo(10, 20)
			p.Close()
		},
			"M10 10H20V20H10Z"},
		{"relative offsets rounded", func(p *Path) { p.MoveTo(100.37, 200.12); p.LineTo(112.41, 197.15); p.Close() },
			"M100.4 200.1l12-3Z"},
		{"smooth cubic", func(p *Path) {
			p.MoveTo(0, 0)
			p.CubicTo(10, 0, 20, 10, 30, 10)
			p.CubicTo(40.1, 10.1, 50, 0, 60, 0)
		}, "M0 0C10 0 20 10 30 10S50 0 60 0"},
	}
	for _, tc := range tests {
		p := New(0.1, 0.4)
		tc.draw(p)
		if got := string(p.Bytes()); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestNoDrift: every written end point stays within the tolerance of the point asked
// for, however long the path, because offsets are taken from the point written.
func TestNoDrift(t *testing.T) {
	p := New(0.1, 0.4)
	p.MoveTo(0.33, 0.33)
	for i := 1; i < 2000; i++ {
		x, y := 0.33+float64(i)*1.0449, 0.33+math.Sin(float64(i))*7.777
		p.LineTo(x, y)
		cx, cy := p.Current()
		if math.Abs(cx-x) > 0.1+1e-9 || math.Abs(cy-y) > 0.1+1e-9 {
			t.Fatalf("point %d written at (%v, %v), asked (%v, %v)", i, cx, cy, x, y)
		}
	}
}
