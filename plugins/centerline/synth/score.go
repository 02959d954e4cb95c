package synth

import (
	"math"
	"slices"
)

// Score holds a tracer's figures on a set of images.
type Score struct {
	// Distances from recovered centre-line samples (every half pixel) to the true line.
	Distances []float64
	// Key points (free ends and junctions) matched within MatchRadius.
	TrueKeys, FoundKeys, MatchedTrue, MatchedFound int
	// Strokes counted per image.
	TrueStrokes, FoundStrokes int
	// ImagesCountWithin10 counts images whose stroke count is within 10 % of the truth.
	Images, ImagesCountWithin10 int
	// WidthErrors are |recovered - true| width per matched recovered stroke.
	WidthErrors []float64
}

// MatchRadius is how near a recovered end or junction must be to a true one.
const MatchRadius = 2.0

// Add scores one image's recovered strokes against its true ones.
func (s *Score) Add(truth, found []Stroke) {
	var tsegs []seg
	for si, t := range truth {
		for i := 1; i < len(t.Points); i++ {
			tsegs = append(tsegs, seg{t.Points[i-1], t.Points[i], si})
		}
	}
	for _, f := range found {
		votes := map[int]int{}
		for _, p := range resample(f.Points, 0.5) {
			d, si := nearest(p, tsegs)
			s.Distances = append(s.Distances, d)
			votes[si]++
		}
		best, n := -1, 0
		for si, v := range votes {
			if v > n || (v == n && si < best) {
				best, n = si, v
			}
		}
		if best >= 0 {
			s.WidthErrors = append(s.WidthErrors, math.Abs(f.Width-truth[best].Width))
		}
	}
	tk, fk := KeyPoints(truth, 1), KeyPoints(found, 1.5)
	s.TrueKeys += len(tk)
	s.FoundKeys += len(fk)
	s.MatchedTrue += matched(tk, fk)
	s.MatchedFound += matched(fk, tk)
	s.TrueStrokes += len(truth)
	s.FoundStrokes += len(found)
	s.Images++
	if math.Abs(float64(len(found)-len(truth))) <= 0.1*float64(len(truth)) {
		s.ImagesCountWithin10++
	}
}

// Summary is the score's figures.
type Summary struct {
	MeanDist, P99Dist, Recall, Precision, CountRatio, CountWithin10, MedianWidthErr float64
}

// Summary returns the figures.
func (s *Score) Summary() Summary {
	d := slices.Clone(s.Distances)
	slices.Sort(d)
	var sum float64
	for _, v := range d {
		sum += v
	}
	out := Summary{
		Recall:        float64(s.MatchedTrue) / math.Max(1, float64(s.TrueKeys)),
		Precision:     float64(s.MatchedFound) / math.Max(1, float64(s.FoundKeys)),
		CountRatio:    float64(s.FoundStrokes) / math.Max(1, float64(s.TrueStrokes)),
		CountWithin10: float64(s.ImagesCountWithin10) / math.Max(1, float64(s.Images)),
	}
	if len(d) > 0 {
		out.MeanDist = sum / float64(len(d))
		out.P99Dist = d[int(0.99*float64(len(d)-1))]
	}
	we := slices.Clone(s.WidthErrors)
	slices.Sort(we)
	if len(we) > 0 {
		out.MedianWidthErr = we[len(we)/2]
	}
	return out
}

type seg struct {
	a, b P
	s    int
}

func nearest(p P, segs []seg) (float64, int) {
	best, at := math.Inf(1), -1
	for _, sg := range segs {
		if math.Abs(p.X-sg.a.X) > best+1 && math.Abs(p.X-sg.b.X) > best+1 && (p.X-sg.a.X)*(p.X-sg.b.X) > 0 {
			continue
		}
		if d := segDist(p, sg.a, sg.b); d < best {
			best, at = d, sg.s
		}
	}
	return best, at
}

func resample(pts []P, step float64) []P {
	if len(pts) < 2 {
		return pts
	}
	out := []P{pts[0]}
	carry := 0.0
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		l := dist(a, b)
		t := step - carry
		for ; t <= l; t += step {
			out = append(out, P{a.X + (b.X-a.X)*t/l, a.Y + (b.Y-a.Y)*t/l})
		}
		carry = l - (t - step)
	}
	return out
}

// KeyPoints returns the free ends and junctions of strokes: an end touching another
// stroke (within touch pixels) is a junction, as is a crossing of two strokes;
// junctions closer than 3 pixels count once.
func KeyPoints(strokes []Stroke, touch float64) []P {
	var keys []P
	var segs []seg
	for si, s := range strokes {
		for i := 1; i < len(s.Points); i++ {
			segs = append(segs, seg{s.Points[i-1], s.Points[i], si})
		}
	}
	var junctions []P
	for si, s := range strokes {
		if len(s.Points) == 0 {
			continue
		}
		first, last := s.Points[0], s.Points[len(s.Points)-1]
		if len(s.Points) > 2 && dist(first, last) < touch {
			continue // closed
		}
		for _, e := range []P{first, last} {
			isJ := false
			for _, sg := range segs {
				if sg.s != si && segDist(e, sg.a, sg.b) <= touch {
					isJ = true
					break
				}
			}
			if isJ {
				junctions = append(junctions, e)
			} else {
				keys = append(keys, e)
			}
		}
	}
	for i := 0; i < len(segs); i++ {
		for j := i + 1; j < len(segs); j++ {
			if segs[i].s == segs[j].s {
				continue
			}
			if p, ok := intersect(segs[i].a, segs[i].b, segs[j].a, segs[j].b); ok {
				junctions = append(junctions, p)
			}
		}
	}
	var merged []P
	for _, j := range junctions {
		dup := false
		for _, m := range merged {
			if dist(j, m) < 3 {
				dup = true
				break
			}
		}
		if !dup {
			merged = append(merged, j)
		}
	}
	return append(keys, merged...)
}

func matched(a, b []P) int {
	n := 0
	for _, p := range a {
		for _, q := range b {
			if dist(p, q) <= MatchRadius {
				n++
				break
			}
		}
	}
	return n
}
