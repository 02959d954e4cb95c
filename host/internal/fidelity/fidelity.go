// Package fidelity scores how close a trace is to its image, the way the project's bench
// (../shared/bench, lib/metrics.mjs and score.mjs) scores it: both images composited over
// white, SSIM on their BT.601 luma and PSNR on their RGB samples. The measure reads the
// images a row at a time, so it holds a few rows of numbers, never a whole-image buffer.
package fidelity

import (
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"
)

// The SSIM constants of Wang, Bovik, Sheikh and Simoncelli (2004), as the bench uses
// them: an 11 x 11 Gaussian window of sigma 1.5, K1 = 0.01, K2 = 0.03, L = 255.
const (
	Window = 11
	Sigma  = 1.5
	K1     = 0.01
	K2     = 0.03
	L      = 255
)

// MaxPSNR caps the PSNR, in dB: identical images have an infinite one, which JSON cannot
// carry; the bench reports them at 100 dB too.
const MaxPSNR = 100

// Score is a trace's fidelity to its image.
type Score struct {
	// SSIM is the mean structural similarity of the two images' luma over every
	// Window x Window window inside the image: 1 for identical images. Nil when the
	// image is narrower or shorter than one window, as the bench leaves it.
	SSIM *float64 `json:"ssim"`
	// PSNR is the peak signal-to-noise ratio over all RGB samples in dB, at most MaxPSNR.
	PSNR float64 `json:"psnr"`
}

// Round returns the score at the bench's precision: SSIM to 4 decimals, PSNR to 2.
func (s Score) Round() Score {
	if s.SSIM != nil {
		v := math.Round(*s.SSIM*1e4) / 1e4
		s.SSIM = &v
	}
	s.PSNR = math.Round(s.PSNR*100) / 100
	return s
}

// String writes the score as "ssim=0.9834; psnr=27.12" (without ssim when there is
// none), the form of a bare answer's X-Tracecraft-Quality header.
func (s Score) String() string {
	var parts []string
	if s.SSIM != nil {
		parts = append(parts, "ssim="+strconv.FormatFloat(*s.SSIM, 'f', -1, 64))
	}
	return strings.Join(append(parts, "psnr="+strconv.FormatFloat(s.PSNR, 'f', -1, 64)), "; ")
}

// gauss is the window's normalised 1-D Gaussian; the 2-D window is its outer product.
var gauss = func() [Window]float64 {
	var g [Window]float64
	s := 0.0
	for i := range g {
		d := float64(i - Window/2)
		g[i] = math.Exp(-(d * d) / (2 * Sigma * Sigma))
		s += g[i]
	}
	for i := range g {
		g[i] /= s
	}
	return g
}()

// Meter measures two images of the same size fed to it row by row, top to bottom, each
// row composited over white as R, G, B values from 0 to 255 (see Flatten).
type Meter struct {
	w, h, y int
	// se sums the squared differences of the samples.
	se float64
	// la and lb are the current row's luma; ring holds the last Window rows of the five
	// horizontally filtered quantities (a, b, a², b², ab), Window rows each.
	la, lb []float32
	ring   [5][Window][]float64
	sum    float64
	n      int
	// row holds the current row's five quantities (a, b, a², b², ab) as float64, and
	// acc the five vertically filtered ones, reused from row to row.
	row [5][]float64
	acc [5][]float64
}

// NewMeter returns a meter for two w x h images.
func NewMeter(w, h int) *Meter {
	m := &Meter{w: w, h: h, la: make([]float32, w), lb: make([]float32, w)}
	if ow := w - Window + 1; ow > 0 && h >= Window {
		for q := range m.ring {
			for r := range m.ring[q] {
				m.ring[q][r] = make([]float64, ow)
			}
			m.row[q] = make([]float64, w)
			m.acc[q] = make([]float64, ow)
		}
	}
	return m
}

// Add takes the next row of each image, 3 x w values each (R, G, B per pixel).
func (m *Meter) Add(a, b []float32) {
	for x := 0; x < m.w; x++ {
		for c := 0; c < 3; c++ {
			d := float64(a[x*3+c]) - float64(b[x*3+c])
			m.se += d * d
		}
		m.la[x] = luma(a[x*3:])
		m.lb[x] = luma(b[x*3:])
	}
	if m.ring[0][0] != nil {
		m.filterRow()
	}
	m.y++
}

// luma is BT.601's weighted sum, rounded to float32 as the bench keeps it.
func luma(p []float32) float32 {
	return float32(0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2]))
}

// filterRow filters the current row horizontally into the ring and, once Window rows are
// there, filters the window's column vertically and adds the SSIM of each window whose
// bottom row this is ('valid' filtering: windows that fit in the image only).
func (m *Meter) filterRow() {
	qa, qb, qaa, qbb, qab := m.row[0], m.row[1], m.row[2], m.row[3], m.row[4]
	for x := range qa {
		a, b := float64(m.la[x]), float64(m.lb[x])
		qa[x], qb[x], qaa[x], qbb[x], qab[x] = a, b, a*a, b*b, a*b
	}
	slot := m.y % Window
	for q := range m.ring {
		h, row := m.ring[q][slot], m.row[q]
		for x := range h {
			h[x] = window(row[x : x+Window])
		}
	}
	if m.y < Window-1 {
		return
	}
	top := m.y - Window + 1
	var rows [Window][]float64
	for q := range m.acc {
		for k := range rows {
			rows[k] = m.ring[q][(top+k)%Window]
		}
		column(m.acc[q], &rows)
	}
	const c1, c2 = (K1 * L) * (K1 * L), (K2 * L) * (K2 * L)
	mu1s, mu2s, saas, sbbs, sabs := m.acc[0], m.acc[1], m.acc[2], m.acc[3], m.acc[4]
	for x := range mu1s {
		mu1, mu2 := mu1s[x], mu2s[x]
		s1, s2, s12 := saas[x]-mu1*mu1, sbbs[x]-mu2*mu2, sabs[x]-mu1*mu2
		m.sum += ((2*mu1*mu2 + c1) * (2*s12 + c2)) / ((mu1*mu1 + mu2*mu2 + c1) * (s1 + s2 + c2))
		m.n++
	}
}

// window returns the Gaussian-weighted sum of w's first Window values. Like column, it
// adds the terms in window order starting from zero, the order of the filter's
// definition, written out so that the sum stays in a register: the same bits as a loop.
func window(w []float64) float64 {
	w = w[:Window]
	s := 0.0
	s += gauss[0] * w[0]
	s += gauss[1] * w[1]
	s += gauss[2] * w[2]
	s += gauss[3] * w[3]
	s += gauss[4] * w[4]
	s += gauss[5] * w[5]
	s += gauss[6] * w[6]
	s += gauss[7] * w[7]
	s += gauss[8] * w[8]
	s += gauss[9] * w[9]
	s += gauss[10] * w[10]
	return s
}

// column sets each out[x] to the Gaussian-weighted sum of rows[0][x] to rows[Window-1][x].
func column(out []float64, rows *[Window][]float64) {
	n := len(out)
	r0 := rows[0][:n]
	r1 := rows[1][:n]
	r2 := rows[2][:n]
	r3 := rows[3][:n]
	r4 := rows[4][:n]
	r5 := rows[5][:n]
	r6 := rows[6][:n]
	r7 := rows[7][:n]
	r8 := rows[8][:n]
	r9 := rows[9][:n]
	r10 := rows[10][:n]
	for x := range out {
		s := 0.0
		s += gauss[0] * r0[x]
		s += gauss[1] * r1[x]
		s += gauss[2] * r2[x]
		s += gauss[3] * r3[x]
		s += gauss[4] * r4[x]
		s += gauss[5] * r5[x]
		s += gauss[6] * r6[x]
		s += gauss[7] * r7[x]
		s += gauss[8] * r8[x]
		s += gauss[9] * r9[x]
		s += gauss[10] * r10[x]
		out[x] = s
	}
}

// Score returns the score of the rows added, which should be all h of them.
func (m *Meter) Score() Score {
	var s Score
	if m.n > 0 {
		v := m.sum / float64(m.n)
		s.SSIM = &v
	}
	s.PSNR = MaxPSNR
	if n := float64(m.w) * float64(m.y) * 3; n > 0 && m.se > 0 {
		s.PSNR = math.Min(MaxPSNR, 10*math.Log10(L*L/(m.se/n)))
	}
	return s
}

// Flatten writes row y of img composited over white into dst (3 values per pixel, 0 to
// 255, float32 as the bench keeps them), the way the bench flattens: straight colour c
// with alpha a (0 to 1) gives c·a + 255·(1−a).
func Flatten(img image.Image, y int, dst []float32) {
	b := img.Bounds()
	w := b.Dx()
	switch im := img.(type) {
	case *image.NRGBA:
		p := im.Pix[(y)*im.Stride:]
		for x := 0; x < w; x++ {
			a := float64(p[x*4+3]) / 255
			for c := 0; c < 3; c++ {
				dst[x*3+c] = float32(float64(p[x*4+c])*a + 255*(1-a))
			}
		}
	case *image.RGBA:
		// Premultiplied: over white, c + (255 − a), exact in whole numbers.
		p := im.Pix[(y)*im.Stride:]
		for x := 0; x < w; x++ {
			for c := 0; c < 3; c++ {
				dst[x*3+c] = float32(int(p[x*4+c]) + 255 - int(p[x*4+3]))
			}
		}
	default:
		for x := 0; x < w; x++ {
			n := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			a := float64(n.A) / 255
			for c, v := range [3]uint8{n.R, n.G, n.B} {
				dst[x*3+c] = float32(float64(v)*a + 255*(1-a))
			}
		}
	}
}

// Measure scores image b against image a; both must have the same size.
func Measure(a, b image.Image) Score {
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	m := NewMeter(w, h)
	ra, rb := make([]float32, 3*w), make([]float32, 3*w)
	for y := 0; y < h; y++ {
		Flatten(a, y, ra)
		Flatten(b, y, rb)
		m.Add(ra, rb)
	}
	return m.Score()
}
