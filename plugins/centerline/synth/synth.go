// Package synth draws test images of strokes whose centre lines and widths are known
// (random Bézier curves, polylines with sharp corners, crossings, T-junctions and
// handwriting-like waves, anti-aliased, optionally with noise or JPEG artefacts) and
// scores a tracer's recovered strokes against them. It serves the centerline engine's
// accuracy benchmarks; nothing in the engine imports it.
package synth

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
)

// P is a point.
type P struct{ X, Y float64 }

// Stroke is a centre line as a dense polyline, with its width.
type Stroke struct {
	Points []P
	Width  float64
}

// Kind is the kind of scene in one cell of a test image.
type Kind int

// The scene kinds.
const (
	Bezier Kind = iota
	Corners
	Crossing
	TJunction
	Handwriting
	numKinds
)

// Kinds lists every scene kind.
var Kinds = []Kind{Bezier, Corners, Crossing, TJunction, Handwriting}

// String names the kind.
func (k Kind) String() string {
	return [...]string{"bezier", "corners", "crossing", "t-junction", "handwriting"}[k]
}

// Damage is what happens to an image after drawing.
type Damage int

// The damages.
const (
	Clean Damage = iota
	Noise
	JPEG
)

// String names the damage.
func (d Damage) String() string { return [...]string{"clean", "noise", "jpeg"}[d] }

// Cell is the side of one scene's square; an image holds 2 x 2 scenes.
const Cell = 160

// Scene returns an image of 2 x 2 scenes of kind k drawn from seed, and their strokes.
func Scene(k Kind, seed uint64, dmg Damage) (*image.NRGBA, []Stroke) {
	r := rand.New(rand.NewPCG(seed, uint64(k)*7919+uint64(dmg)))
	var all []Stroke
	for cy := 0; cy < 2; cy++ {
		for cx := 0; cx < 2; cx++ {
			ox, oy := float64(cx*Cell), float64(cy*Cell)
			for _, s := range scene(k, r) {
				for i := range s.Points {
					s.Points[i].X += ox
					s.Points[i].Y += oy
				}
				all = append(all, s)
			}
		}
	}
	img := Render(2*Cell, 2*Cell, all)
	switch dmg {
	case Noise:
		for i := 0; i < len(img.Pix); i += 4 {
			n := r.NormFloat64() * 10
			for c := 0; c < 3; c++ {
				img.Pix[i+c] = uint8(math.Max(0, math.Min(255, float64(img.Pix[i+c])+n)))
			}
		}
	case JPEG:
		var b bytes.Buffer
		_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: 70})
		dec, _ := jpeg.Decode(&b)
		out := image.NewNRGBA(img.Rect)
		for y := 0; y < img.Rect.Dy(); y++ {
			for x := 0; x < img.Rect.Dx(); x++ {
				out.Set(x, y, dec.At(x, y))
			}
		}
		img = out
	}
	return img, all
}

func width(r *rand.Rand) float64 { return 1.5 + r.Float64()*10.5 }

// scene returns the strokes of one cell, inside [0, Cell)² with a margin.
func scene(k Kind, r *rand.Rand) []Stroke {
	w := width(r)
	m := w/2 + 12
	pt := func() P { return P{m + r.Float64()*(Cell-2*m), m + r.Float64()*(Cell-2*m)} }
	switch k {
	case Corners:
		// 3-4 vertices, turns of at most 110 degrees, legs long enough for the width.
		for {
			n := 3 + r.IntN(2)
			pts := []P{pt()}
			ok := true
			for tries := 0; len(pts) < n && ok; tries++ {
				if tries > 1000 {
					pts = pts[:1]
					tries = 0
				}
				q := pt()
				l := dist(pts[len(pts)-1], q)
				if l < 30+2*w {
					continue
				}
				if len(pts) >= 2 {
					a, b := pts[len(pts)-2], pts[len(pts)-1]
					u, v := unit(sub(b, a)), unit(sub(q, b))
					if u.X*v.X+u.Y*v.Y < math.Cos(110*math.Pi/180) {
						continue
					}
				}
				pts = append(pts, q)
			}
			poly := densify(pts)
			if !selfClose(poly, w) {
				return []Stroke{{poly, w}}
			}
		}
	case Crossing:
		for {
			a1, a2, b1, b2 := pt(), pt(), pt(), pt()
			if dist(a1, a2) < 80 || dist(b1, b2) < 80 {
				continue
			}
			u, v := unit(sub(a2, a1)), unit(sub(b2, b1))
			if math.Abs(u.X*v.X+u.Y*v.Y) > math.Cos(50*math.Pi/180) {
				continue
			}
			if _, ok := intersect(a1, a2, b1, b2); !ok {
				continue
			}
			w2 := width(r)
			return []Stroke{{densify([]P{a1, a2}), w}, {densify([]P{b1, b2}), w2}}
		}
	case TJunction:
		for {
			a1, a2 := pt(), pt()
			if dist(a1, a2) < 90 {
				continue
			}
			t := 0.3 + 0.4*r.Float64()
			j := P{a1.X + t*(a2.X-a1.X), a1.Y + t*(a2.Y-a1.Y)}
			u := unit(sub(a2, a1))
			n := P{-u.Y, u.X}
			if r.IntN(2) == 0 {
				n = P{u.Y, -u.X}
			}
			ang := (r.Float64() - 0.5) * 0.6
			d := P{n.X*math.Cos(ang) - n.Y*math.Sin(ang), n.X*math.Sin(ang) + n.Y*math.Cos(ang)}
			l := 40 + r.Float64()*40
			e := P{j.X + d.X*l, j.Y + d.Y*l}
			if e.X < m || e.Y < m || e.X > Cell-m || e.Y > Cell-m {
				continue
			}
			w2 := math.Min(width(r), w*1.5)
			return []Stroke{{densify([]P{a1, a2}), w}, {densify([]P{j, e}), w2}}
		}
	case Handwriting:
		x0, y0 := m, Cell/2+(r.Float64()-0.5)*40
		amp := 10 + r.Float64()*20
		f1, f2 := 0.04+r.Float64()*0.05, 0.1+r.Float64()*0.05
		ph := r.Float64() * 6
		var pts []P
		for x := x0; x <= Cell-m; x += 0.5 {
			y := y0 + amp*math.Sin(f1*x+ph) + amp*0.3*math.Sin(f2*x)
			pts = append(pts, P{x, math.Max(m, math.Min(Cell-m, y))})
		}
		return []Stroke{{pts, math.Min(w, 8)}}
	default:
		for {
			p0, p1, p2, p3 := pt(), pt(), pt(), pt()
			var pts []P
			for t := 0.0; t <= 1.0001; t += 0.002 {
				mt := 1 - t
				pts = append(pts, P{
					mt*mt*mt*p0.X + 3*mt*mt*t*p1.X + 3*mt*t*t*p2.X + t*t*t*p3.X,
					mt*mt*mt*p0.Y + 3*mt*mt*t*p1.Y + 3*mt*t*t*p2.Y + t*t*t*p3.Y})
			}
			if length(pts) > 60 && !selfClose(pts, w) && minRadius(pts) > w {
				return []Stroke{{pts, w}}
			}
		}
	}
}

// selfClose says whether two parts of a polyline far apart along it come within two
// widths of each other (a loop or hairpin, whose truth would be ambiguous).
func selfClose(pts []P, w float64) bool {
	arc := make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		arc[i] = arc[i-1] + dist(pts[i], pts[i-1])
	}
	for i := 0; i < len(pts); i += 4 {
		for j := i + 4; j < len(pts); j += 4 {
			if arc[j]-arc[i] > 6*w+20 && dist(pts[i], pts[j]) < 2*w+4 {
				return true
			}
		}
	}
	return false
}

// minRadius estimates the smallest radius of curvature along a dense polyline.
func minRadius(pts []P) float64 {
	best := math.Inf(1)
	for i := 5; i+5 < len(pts); i++ {
		a, b, c := pts[i-5], pts[i], pts[i+5]
		ab, bc, ca := dist(a, b), dist(b, c), dist(c, a)
		cross := math.Abs((b.X-a.X)*(c.Y-a.Y) - (b.Y-a.Y)*(c.X-a.X))
		if cross > 1e-9 {
			best = math.Min(best, ab*bc*ca/(2*cross))
		}
	}
	return best
}

func densify(v []P) []P {
	var out []P
	for i := 1; i < len(v); i++ {
		l := dist(v[i-1], v[i])
		n := int(math.Ceil(l / 0.5))
		for k := 0; k < n; k++ {
			t := float64(k) / float64(n)
			out = append(out, P{v[i-1].X + t*(v[i].X-v[i-1].X), v[i-1].Y + t*(v[i].Y-v[i-1].Y)})
		}
	}
	return append(out, v[len(v)-1])
}

func dist(a, b P) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }
func sub(a, b P) P        { return P{a.X - b.X, a.Y - b.Y} }
func unit(a P) P {
	l := math.Hypot(a.X, a.Y)
	return P{a.X / l, a.Y / l}
}

func length(pts []P) float64 {
	var l float64
	for i := 1; i < len(pts); i++ {
		l += dist(pts[i-1], pts[i])
	}
	return l
}

func intersect(a1, a2, b1, b2 P) (P, bool) {
	d := (a2.X-a1.X)*(b2.Y-b1.Y) - (a2.Y-a1.Y)*(b2.X-b1.X)
	if d == 0 {
		return P{}, false
	}
	t := ((b1.X-a1.X)*(b2.Y-b1.Y) - (b1.Y-a1.Y)*(b2.X-b1.X)) / d
	u := ((b1.X-a1.X)*(a2.Y-a1.Y) - (b1.Y-a1.Y)*(a2.X-a1.X)) / d
	if t < 0 || t > 1 || u < 0 || u > 1 {
		return P{}, false
	}
	return P{a1.X + t*(a2.X-a1.X), a1.Y + t*(a2.Y-a1.Y)}, true
}

// Render draws strokes in black with round caps on white, anti-aliased: each pixel's
// ink is the area of the stroke covering it, estimated on a 4 x 4 grid of samples.
func Render(w, h int, strokes []Stroke) *image.NRGBA {
	cov := make([]float64, w*h*16)
	for _, s := range strokes {
		r := s.Width / 2
		for i := 1; i < len(s.Points); i++ {
			a, b := s.Points[i-1], s.Points[i]
			x0 := int(math.Floor(math.Min(a.X, b.X) - r - 1))
			x1 := int(math.Ceil(math.Max(a.X, b.X) + r + 1))
			y0 := int(math.Floor(math.Min(a.Y, b.Y) - r - 1))
			y1 := int(math.Ceil(math.Max(a.Y, b.Y) + r + 1))
			for y := max(0, y0); y < min(h, y1); y++ {
				for x := max(0, x0); x < min(w, x1); x++ {
					dc := segDist(P{float64(x) + 0.5, float64(y) + 0.5}, a, b)
					if dc > r+0.75 {
						continue
					}
					if dc < r-0.75 {
						for k := 0; k < 16; k++ {
							cov[(y*w+x)*16+k] = 1
						}
						continue
					}
					for sy := 0; sy < 4; sy++ {
						for sx := 0; sx < 4; sx++ {
							k := (y*w+x)*16 + sy*4 + sx
							if cov[k] == 1 {
								continue
							}
							p := P{float64(x) + (float64(sx)+0.5)/4, float64(y) + (float64(sy)+0.5)/4}
							if segDist(p, a, b) <= r {
								cov[k] = 1
							}
						}
					}
				}
			}
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w*h; i++ {
		var c float64
		for k := 0; k < 16; k++ {
			c += cov[i*16+k]
		}
		v := uint8(math.Round(255 * (1 - c/16)))
		img.SetNRGBA(i%w, i/w, color.NRGBA{v, v, v, 255})
	}
	return img
}

func segDist(p, a, b P) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, ((p.X-a.X)*dx+(p.Y-a.Y)*dy)/l2))
	}
	return math.Hypot(p.X-a.X-t*dx, p.Y-a.Y-t*dy)
}
