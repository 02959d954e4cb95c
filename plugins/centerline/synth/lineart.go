package synth

import (
	"errors"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// ArtKind is a kind of line-art picture: drawings with no known centre line, to score
// how well a tracer's strokes reproduce the ink (rendered and compared with the image),
// beyond the few pictures of the bench corpus.
type ArtKind int

// The line-art kinds.
const (
	// Brush is brush or woodcut art: strokes that taper to points and swell, crossing
	// and touching.
	Brush ArtKind = iota
	// Silhouette is filled shapes with limbs that narrow and short thick stubs: a body,
	// legs, ears.
	Silhouette
	// Glyphs is text set in the fonts found on the machine, at several sizes.
	Glyphs
	// Shaded is a photographed page: text and pen lines under uneven lighting (a
	// gradient, a soft shadow) with sensor noise.
	Shaded
	// EvenPage is the same kind of page under even lighting, to check that a tracer's
	// handling of shading leaves it alone.
	EvenPage
)

// ArtKinds lists every line-art kind.
var ArtKinds = []ArtKind{Brush, Silhouette, Glyphs, Shaded, EvenPage}

// String names the kind.
func (k ArtKind) String() string {
	return [...]string{"brush", "silhouette", "glyphs", "shaded", "evenpage"}[k]
}

// FontDirs are the folders searched for the fonts of Glyphs, Shaded and EvenPage.
var FontDirs = []string{"/usr/share/fonts"}

// ErrNoFonts says that no TrueType or OpenType font was found in FontDirs.
var ErrNoFonts = errors.New("synth: no .ttf or .otf font under the font folders")

// Art returns a picture of kind k drawn from seed: black ink on white (or on lit paper
// for Shaded and EvenPage), anti-aliased, 640 x 480.
func Art(k ArtKind, seed uint64) (*image.NRGBA, error) {
	r := rand.New(rand.NewPCG(seed, 0xa27+uint64(k)))
	const w, h = 640, 480
	switch k {
	case Brush:
		return coverImage(brush(r, w, h)), nil
	case Silhouette:
		return coverImage(silhouette(r, w, h)), nil
	case Glyphs:
		a := image.NewAlpha(image.Rect(0, 0, w, h))
		if err := text(r, a, 22, 72); err != nil {
			return nil, err
		}
		return inked(a, func(x, y int) (float64, float64) { return 1, 0 }), nil
	default:
		a := image.NewAlpha(image.Rect(0, 0, w, h))
		if err := text(r, a, 14, 30); err != nil {
			return nil, err
		}
		pen(r, a)
		light := func(x, y int) (float64, float64) { return 0.93, 0.8 }
		if k == Shaded {
			light = lighting(r, w, h)
		}
		img := inked(a, light)
		for i := 0; i < len(img.Pix); i += 4 {
			n := r.NormFloat64() * 4
			for c := 0; c < 3; c++ {
				img.Pix[i+c] = uint8(math.Max(0, math.Min(255, float64(img.Pix[i+c])+n)))
			}
		}
		return img, nil
	}
}

// canvas is ink coverage built shape by shape: each shape is rasterised on its own and
// merged by the larger coverage, so that overlapping shapes drawn in opposite turning
// senses do not cancel (the rasteriser adds signed areas).
type canvas struct {
	a *image.Alpha
	z *vector.Rasterizer
}

func newCanvas(w, h int) *canvas {
	return &canvas{a: image.NewAlpha(image.Rect(0, 0, w, h)), z: vector.NewRasterizer(w, h)}
}

// shape starts a new shape.
func (c *canvas) shape() *vector.Rasterizer {
	c.flush()
	return c.z
}

// flush merges the shape drawn so far into the coverage.
func (c *canvas) flush() {
	b := c.a.Bounds()
	one := image.NewAlpha(b)
	c.z.Draw(one, b, image.Opaque, image.Point{})
	for i, v := range one.Pix {
		c.a.Pix[i] = max(c.a.Pix[i], v)
	}
	c.z.Reset(b.Dx(), b.Dy())
}

// brush returns 10 to 18 tapered strokes.
func brush(r *rand.Rand, w, h int) *canvas {
	z := newCanvas(w, h)
	n := 10 + r.IntN(9)
	for range n {
		wmax := 3 + r.Float64()*14
		m := wmax + 10
		pt := func() P { return P{m + r.Float64()*(float64(w)-2*m), m + r.Float64()*(float64(h)-2*m)} }
		var c []P
		for {
			c = cubic(pt(), pt(), pt(), pt())
			if length(c) > 80 && minRadius(c) > wmax {
				break
			}
		}
		// The width profile: a taper to a point at one or both ends, or a swell.
		shape := r.IntN(3)
		ws := make([]float64, len(c))
		for i := range c {
			t := float64(i) / float64(len(c)-1)
			switch shape {
			case 0:
				ws[i] = wmax * math.Pow(math.Sin(math.Pi*t), 0.7)
			case 1:
				ws[i] = wmax * math.Pow(1-t, 0.8)
			default:
				ws[i] = wmax * (0.35 + 0.65*math.Sin(math.Pi*t))
			}
			ws[i] = math.Max(ws[i], 0.8)
		}
		taper(z.shape(), c, ws)
	}
	return z
}

// silhouette returns a filled body with a head and limbs that
// narrow towards their ends.
func silhouette(r *rand.Rand, w, h int) *canvas {
	z := newCanvas(w, h)
	body := z.shape()
	cx, cy := float64(w)*(0.4+0.2*r.Float64()), float64(h)*(0.4+0.15*r.Float64())
	rx, ry := 90+r.Float64()*60, 50+r.Float64()*40
	// The body: an ellipse whose radius wobbles with a few harmonics.
	var amp, ph [4]float64
	for i := range amp {
		amp[i], ph[i] = r.Float64()*0.12, r.Float64()*2*math.Pi
	}
	const n = 180
	for i := 0; i < n; i++ {
		a := 2 * math.Pi * float64(i) / n
		f := 1.0
		for k := range amp {
			f += amp[k] * math.Sin(float64(k+2)*a+ph[k])
		}
		x, y := cx+rx*f*math.Cos(a), cy+ry*f*math.Sin(a)
		if i == 0 {
			body.MoveTo(float32(x), float32(y))
		} else {
			body.LineTo(float32(x), float32(y))
		}
	}
	body.ClosePath()
	// Limbs: from points on the body outwards, wide where they join and narrow at the
	// far end, some bending.
	limbs := 3 + r.IntN(4)
	for range limbs {
		a := 2 * math.Pi * r.Float64()
		p0 := P{cx + 0.8*rx*math.Cos(a), cy + 0.8*ry*math.Sin(a)}
		l := 60 + r.Float64()*90
		d := P{math.Cos(a) + (r.Float64()-0.5)*0.8, math.Sin(a) + (r.Float64()-0.5)*0.8}
		d = unit(d)
		p3 := P{p0.X + l*d.X, p0.Y + l*d.Y}
		bend := P{-d.Y * (r.Float64() - 0.5) * l * 0.6, d.X * (r.Float64() - 0.5) * l * 0.6}
		p1 := P{p0.X + l/3*d.X + bend.X, p0.Y + l/3*d.Y + bend.Y}
		p2 := P{p0.X + 2*l/3*d.X + bend.X, p0.Y + 2*l/3*d.Y + bend.Y}
		c := clip(cubic(p0, p1, p2, p3), w, h, 8)
		if len(c) < 10 {
			continue
		}
		w0, w1 := 18+r.Float64()*22, 4+r.Float64()*8
		ws := make([]float64, len(c))
		for i := range c {
			t := float64(i) / float64(len(c)-1)
			ws[i] = w0 + (w1-w0)*math.Sqrt(t)
		}
		taper(z.shape(), c, ws)
	}
	// Stubs: short thick bumps with round ends (ears, knobs, a tail's root), as wide as
	// they are long.
	for range 1 + r.IntN(3) {
		a := 2 * math.Pi * r.Float64()
		p0 := P{cx + 0.85*rx*math.Cos(a), cy + 0.85*ry*math.Sin(a)}
		l, wd := 15+r.Float64()*20, 12+r.Float64()*14
		p1 := P{p0.X + l*math.Cos(a), p0.Y + l*math.Sin(a)}
		c := clip(cubic(p0, p0, p1, p1), w, h, 8)
		if len(c) >= 4 {
			even(z.shape(), c, wd)
		}
	}
	return z
}

// clip returns the leading part of c that stays margin pixels inside a w x h image.
func clip(c []P, w, h int, margin float64) []P {
	for i, p := range c {
		if p.X < margin || p.Y < margin || p.X > float64(w)-margin || p.Y > float64(h)-margin {
			return c[:i]
		}
	}
	return c
}

// cubic returns the Bézier curve p0..p3 as a polyline of points about half a pixel
// apart.
func cubic(p0, p1, p2, p3 P) []P {
	n := int(math.Max(8, (dist(p0, p1)+dist(p1, p2)+dist(p2, p3))*2))
	pts := make([]P, 0, n+1)
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		mt := 1 - t
		pts = append(pts, P{
			mt*mt*mt*p0.X + 3*mt*mt*t*p1.X + 3*mt*t*t*p2.X + t*t*t*p3.X,
			mt*mt*mt*p0.Y + 3*mt*mt*t*p1.Y + 3*mt*t*t*p2.Y + t*t*t*p3.Y})
	}
	return pts
}

// taper adds to z the outline of a stroke along c whose width at c[i] is ws[i], with
// round ends: the left side forwards, a half circle, the right side back, a half
// circle.
func taper(z *vector.Rasterizer, c []P, ws []float64) {
	n := len(c)
	normal := func(i int) P {
		a, b := c[max(0, i-1)], c[min(n-1, i+1)]
		d := unit(sub(b, a))
		return P{-d.Y, d.X}
	}
	var out []P
	for i := 0; i < n; i++ {
		nv := normal(i)
		out = append(out, P{c[i].X + nv.X*ws[i]/2, c[i].Y + nv.Y*ws[i]/2})
	}
	out = append(out, arc(c[n-1], normal(n-1), ws[n-1]/2)...)
	for i := n - 1; i >= 0; i-- {
		nv := normal(i)
		out = append(out, P{c[i].X - nv.X*ws[i]/2, c[i].Y - nv.Y*ws[i]/2})
	}
	nv := normal(0)
	out = append(out, arc(c[0], P{-nv.X, -nv.Y}, ws[0]/2)...)
	z.MoveTo(float32(out[0].X), float32(out[0].Y))
	for _, p := range out[1:] {
		z.LineTo(float32(p.X), float32(p.Y))
	}
	z.ClosePath()
}

// even adds to z the outline of a stroke of width wd along c.
func even(z *vector.Rasterizer, c []P, wd float64) {
	ws := make([]float64, len(c))
	for i := range ws {
		ws[i] = wd
	}
	taper(z, c, ws)
}

// arc returns the inner points of the half circle of radius rad about c from the side
// nv points to, clockwise on screen, round to the other side.
func arc(c, nv P, rad float64) []P {
	const k = 12
	a0 := math.Atan2(nv.Y, nv.X)
	var out []P
	for i := 1; i < k; i++ {
		a := a0 - math.Pi*float64(i)/k
		out = append(out, P{c.X + rad*math.Cos(a), c.Y + rad*math.Sin(a)})
	}
	return out
}

// coverImage draws z's coverage as black on white.
func coverImage(z *canvas) *image.NRGBA {
	z.flush()
	return inked(z.a, func(x, y int) (float64, float64) { return 1, 0 })
}

// inked returns coverage a as ink on paper lit by light, which gives at each pixel the
// paper's brightness and the ink's (0..1).
func inked(a *image.Alpha, light func(x, y int) (paper, ink float64)) *image.NRGBA {
	b := a.Rect
	img := image.NewNRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := float64(a.AlphaAt(x, y).A) / 255
			paper, ink := light(x, y)
			ink *= 0.15 // the ink reflects a little of the light
			v := uint8(math.Round(255 * (paper*(1-c) + ink*c)))
			img.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	return img
}

// lighting returns uneven lighting of a w x h page: a linear gradient from a bright
// corner to a dim one and a soft-edged shadow across part of the page.
func lighting(r *rand.Rand, w, h int) func(x, y int) (float64, float64) {
	ang := r.Float64() * 2 * math.Pi
	gx, gy := math.Cos(ang), math.Sin(ang)
	lo := 0.35 + r.Float64()*0.25
	sx, sy := r.Float64()*float64(w), r.Float64()*float64(h)
	sa := r.Float64() * math.Pi
	nx, ny := math.Cos(sa), math.Sin(sa)
	soft := 20 + r.Float64()*60
	depth := 0.2 + r.Float64()*0.3
	diag := math.Hypot(float64(w), float64(h))
	return func(x, y int) (float64, float64) {
		fx, fy := float64(x)-float64(w)/2, float64(y)-float64(h)/2
		t := 0.5 + (fx*gx+fy*gy)/diag // 0..1 across the page
		l := lo + (0.95-lo)*t
		s := ((float64(x)-sx)*nx + (float64(y)-sy)*ny) / soft
		l *= 1 - depth/(1+math.Exp(-s))
		return l, l
	}
}

// text sets lines of random words in a random font at sizes from lo to hi pixels onto a.
func text(r *rand.Rand, a *image.Alpha, lo, hi float64) error {
	fonts, err := fontFiles()
	if err != nil {
		return err
	}
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789&?!(),.;"
	y := 0.0
	for {
		size := lo + r.Float64()*(hi-lo)
		y += size * 1.35
		if y > float64(a.Rect.Dy())-size*0.3 {
			return nil
		}
		face, err := loadFace(fonts[r.IntN(len(fonts))], size)
		if err != nil {
			return err
		}
		var line strings.Builder
		for line.Len() < 60 {
			for range 2 + r.IntN(7) {
				line.WriteByte(letters[r.IntN(len(letters))])
			}
			line.WriteByte(' ')
		}
		d := font.Drawer{Dst: a, Src: image.Opaque, Face: face, Dot: fixed.P(8+r.IntN(20), int(y))}
		d.DrawString(line.String())
		_ = face.Close()
	}
}

// pen draws a few hand-drawn lines over a (a signature, underlines), 2 to 5 px wide.
func pen(r *rand.Rand, a *image.Alpha) {
	w, h := a.Rect.Dx(), a.Rect.Dy()
	z := newCanvas(w, h)
	for range 2 + r.IntN(3) {
		x0 := 20 + r.Float64()*float64(w)/2
		y0 := 30 + r.Float64()*float64(h-60)
		wd := 2 + r.Float64()*3
		amp, f := 4+r.Float64()*14, 0.03+r.Float64()*0.08
		var c []P
		for x := x0; x < x0+150+r.Float64()*200 && x < float64(w)-20; x += 0.5 {
			c = append(c, P{x, y0 + amp*math.Sin(f*(x-x0))})
		}
		if len(c) >= 4 {
			even(z.shape(), c, wd)
		}
	}
	z.flush()
	for i, v := range z.a.Pix {
		a.Pix[i] = max(a.Pix[i], v)
	}
}

// fontFiles returns the TrueType and OpenType fonts under FontDirs, sorted.
func fontFiles() ([]string, error) {
	var out []string
	for _, dir := range FontDirs {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".ttf") || strings.HasSuffix(p, ".otf")) {
				out = append(out, p)
			}
			return nil
		})
	}
	if len(out) == 0 {
		return nil, ErrNoFonts
	}
	slices.Sort(out)
	return out, nil
}

func loadFace(path string, size float64) (font.Face, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := opentype.Parse(b)
	if err != nil {
		return nil, err
	}
	return opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
}
