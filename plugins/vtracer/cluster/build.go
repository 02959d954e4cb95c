package cluster

import (
	"context"
	"encoding/binary"
	"image"

	"github.com/tracecraft/tracecraft/sdk/label"
)

// A cluster's state (builder.state) is its mean colour while it is alive (merging),
// packed R | G<<8 | B<<16, then absorbed|c once it is merged into cluster c, or root
// once it has no neighbour left.
const (
	absorbed = 1 << 31
	root     = ^uint32(0)
)

// builder holds the state of one Build. Pixels are addressed in a padded layout, one
// sentinel pixel (-1, like a transparent one) around the image, so that neighbours never
// need bounds checks: pixel (x, y) is (y+1)*stride + x + 1.
//
// A photo starts with about one cluster per four pixels, so the per-cluster state is
// kept in parallel slices of small fixed-size values (24 bytes and a bit a cluster, the
// merge queue about 8 bytes per 32 clusters), sized once when the number of clusters is
// known. With the two int32 per pixel that is about 14 bytes a pixel on a photo.
type builder struct {
	cfg    Config
	img    *image.NRGBA
	w, h   int
	stride int // w + 2

	cur []int32 // per padded pixel: current cluster, -1 for transparent and padding
	// next links the pixels of each live cluster in a ring, from head round to head.
	// When a cluster is absorbed, its ring is spliced into the other's right after the
	// other's head, so the pixels of every absorbed cluster stay one run of links: area
	// links from head, which absorb moves to the start of that run.
	next []int32

	// Per cluster.
	head  []int32
	area  []int32
	sum   [][3]uint32          // R, G, B sums while the area is at most smallArea
	big   map[int32]*[4]uint64 // R, G, B (and alpha, in label) sums of larger clusters
	state []uint32             // mean colour while alive, then absorbed|cluster or root
	kept  []uint64             // bit set: merged as a shape of its own, or a kept root

	order []int32 // kept clusters in the order they stopped growing

	// opacity is the mean alpha of each cluster's first area: a cluster keeps the index
	// of the area it grew from, and its shape takes that area's opacity.
	opacity []uint8
}

// smallArea is the largest area whose channel sums always fit a uint32 (255 * 2^24 <
// 2^32); sums of larger clusters move to builder.big. A variable so that tests can take
// the big path on small images.
var smallArea int32 = 1 << 24

func (b *builder) isKept(c int32) bool { return b.kept[c>>6]>>(c&63)&1 != 0 }
func (b *builder) keep(c int32)        { b.kept[c>>6] |= 1 << (c & 63) }

// sums returns the R, G, B sums of cluster c.
func (b *builder) sums(c int32) [3]uint64 {
	if b.area[c] > smallArea {
		s := b.big[c]
		return [3]uint64{s[0], s[1], s[2]}
	}
	s := &b.sum[c]
	return [3]uint64{uint64(s[0]), uint64(s[1]), uint64(s[2])}
}

// setSums stores the R, G, B sums of cluster c, whose area is already set, and its mean.
func (b *builder) setSums(c int32, s [3]uint64) {
	if b.area[c] > smallArea {
		if b.big == nil {
			b.big = map[int32]*[4]uint64{}
		}
		if p := b.big[c]; p != nil {
			p[0], p[1], p[2] = s[0], s[1], s[2]
		} else {
			b.big[c] = &[4]uint64{s[0], s[1], s[2]}
		}
	} else {
		b.sum[c] = [3]uint32{uint32(s[0]), uint32(s[1]), uint32(s[2])}
	}
	b.state[c] = meanOf(s, b.area[c])
}

func newBuilder(img *image.NRGBA, cfg Config) *builder {
	b := img.Rect
	cfg.Shift = min(max(cfg.Shift, 0), 7)
	cfg.Tolerance = max(cfg.Tolerance, 0)
	cfg.SpeckleArea = max(cfg.SpeckleArea, 0)
	cfg.LayerDifference = max(cfg.LayerDifference, 0)
	return &builder{cfg: cfg, img: img, w: b.Dx(), h: b.Dy(), stride: b.Dx() + 2}
}

// row returns the pixels of row y, 4 bytes (R, G, B, A) each.
func (b *builder) row(y int) []byte {
	off := b.img.PixOffset(b.img.Rect.Min.X, b.img.Rect.Min.Y+y)
	return b.img.Pix[off : off+4*b.w]
}

func le32(p []byte) uint32 { return binary.LittleEndian.Uint32(p) }

// similar reports whether two packed colours are the same colour under the config: after
// dropping Shift low bits, no channel (alpha included) differs by more than Tolerance
// steps and all four together by no more than twice Tolerance.
func (b *builder) similar(c, d uint32) bool {
	s := uint(b.cfg.Shift)
	if b.cfg.Tolerance == 0 {
		mask := uint32(0xff>>s<<s) * 0x01010101
		return (c^d)&mask == 0
	}
	t := int32(b.cfg.Tolerance)
	var total int32
	for k := 0; k < 32; k += 8 {
		dv := int32(c>>k&0xff>>s) - int32(d>>k&0xff>>s)
		if dv < 0 {
			dv = -dv
		}
		if dv > t {
			return false
		}
		total += dv
	}
	return total <= 2*t
}

// label finds the connected areas of similar colour (Hoshen-Kopelman: one raster pass
// with union-find over provisional labels, a second to number the areas in order of
// their first pixel) and sets up the per-cluster state.
func (b *builder) label(ctx context.Context) error {
	lab, parent, partial, err := b.provisional(ctx)
	if err != nil {
		return err
	}
	n := int32(label.Number(parent))
	for p, l := range lab {
		if l >= 0 {
			lab[p] = parent[l]
		}
	}
	// The union-find parents are no longer needed: their array, as long as the image,
	// becomes the cluster member lists.
	next := parent[:cap(parent)]
	for i := range next {
		next[i] = -1
	}
	b.cur, b.next = lab, next
	b.gather(n, partial)
	return nil
}

// provisional is the first raster pass: every opaque-enough pixel gets the label of a
// similar neighbour already seen (left, above and, with Diagonal, the upper diagonals),
// labels that meet are joined in parent, and a pixel with none starts a new label. It
// returns the labels (bordered, stride b.stride, -1 where transparent), the union-find
// parents of the labels made, and whether any pixel is partly transparent.
func (b *builder) provisional(ctx context.Context) (lab, parent []int32, partial bool, err error) {
	w, h, st := b.w, b.h, b.stride
	np := st * (h + 2)
	lab = make([]int32, np)
	for i := range lab {
		lab[i] = -1
	}
	// A raster pass makes at most one label per pixel.
	parent = make([]int32, np)
	nl := int32(0)
	join := func(l, u int32) int32 {
		if l < 0 || l == u {
			return u
		}
		label.Union(parent, l, u)
		return l
	}
	diag := b.cfg.Diagonal
	var prev []byte
	for y := 0; y < h; y++ {
		if y&31 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, false, err
			}
		}
		row := b.row(y)
		base := (y+1)*st + 1
		for x := 0; x < w; x++ {
			c := le32(row[4*x:])
			if c>>24 == 0 {
				continue
			}
			if c>>24 != 0xff {
				partial = true
			}
			p := base + x
			l := int32(-1)
			if q := lab[p-1]; q >= 0 && b.similar(c, le32(row[4*x-4:])) {
				l = q
			}
			if y > 0 {
				if q := lab[p-st]; q >= 0 && q != l && b.similar(c, le32(prev[4*x:])) {
					l = join(l, q)
				}
				if diag {
					if q := lab[p-st-1]; q >= 0 && q != l && b.similar(c, le32(prev[4*x-4:])) {
						l = join(l, q)
					}
					if q := lab[p-st+1]; q >= 0 && q != l && x+1 < w && b.similar(c, le32(prev[4*x+4:])) {
						l = join(l, q)
					}
				}
			}
			if l < 0 {
				l = nl
				parent[l] = l
				nl++
			}
			lab[p] = l
		}
		prev = row
	}
	return lab, parent[:nl], partial, nil
}

// gather sets up the state of the n clusters labelled in b.cur: member lists in b.next,
// areas, colour sums (32-bit while a cluster is small, 64-bit in b.big after), mean
// colours and, when partial, opacities.
func (b *builder) gather(n int32, partial bool) {
	w, h, st := b.w, b.h, b.stride
	lab, next := b.cur, b.next
	b.head = make([]int32, n)
	b.area = make([]int32, n)
	b.sum = make([][3]uint32, n)
	b.state = make([]uint32, n)
	b.kept = make([]uint64, (n+63)/64)
	for i := range b.head {
		b.head[i] = -1
	}
	var alpha []uint32 // alpha sums of the areas, for their opacity
	if partial {
		alpha = make([]uint32, n)
	}
	for y := 0; y < h; y++ {
		row := b.row(y)
		base := (y+1)*st + 1
		for x := 0; x < w; x++ {
			p := int32(base + x)
			l := lab[p]
			if l < 0 {
				continue
			}
			if hd := b.head[l]; hd < 0 {
				b.head[l] = p
				next[p] = p
			} else {
				next[p] = next[hd]
				next[hd] = p
			}
			b.area[l]++
			px := row[4*x : 4*x+4]
			if a := b.area[l]; a <= smallArea {
				s := &b.sum[l]
				s[0] += uint32(px[0])
				s[1] += uint32(px[1])
				s[2] += uint32(px[2])
				if partial {
					alpha[l] += uint32(px[3])
				}
				continue
			} else if a == smallArea+1 {
				s := &b.sum[l]
				big := &[4]uint64{uint64(s[0]), uint64(s[1]), uint64(s[2])}
				if partial {
					big[3] = uint64(alpha[l])
				}
				if b.big == nil {
					b.big = map[int32]*[4]uint64{}
				}
				b.big[l] = big
			}
			s := b.big[l]
			s[0] += uint64(px[0])
			s[1] += uint64(px[1])
			s[2] += uint64(px[2])
			s[3] += uint64(px[3])
		}
	}
	for l := range b.state {
		b.state[l] = meanOf(b.sums(int32(l)), b.area[l])
	}
	if partial {
		b.opacity = make([]uint8, n)
		for l, s := range alpha {
			a := uint64(s)
			if b.area[l] > smallArea {
				a = b.big[int32(l)][3]
			}
			b.opacity[l] = uint8(div(a, b.area[l]))
		}
	}
}

// meanOf packs the rounded mean colour of a cluster with R, G, B sums s and area
// pixels.
func meanOf(s [3]uint64, area int32) uint32 {
	return div(s[0], area) | div(s[1], area)<<8 | div(s[2], area)<<16
}

// div returns sum/area rounded half up.
func div(sum uint64, area int32) uint32 {
	a := uint64(area)
	return uint32((sum + a/2) / a)
}

// colorDiff is the sum of the absolute differences of the red, green and blue channels.
// Alpha separates areas (anti-aliased edges start apart from the shape they border) but
// does not count as a colour difference, so those edges are absorbed like VTracer
// absorbs them, while a translucent area of another colour stays a shape of its own.
func colorDiff(c, d uint32) int32 {
	var t int32
	for k := 0; k < 24; k += 8 {
		v := int32(c>>k&0xff) - int32(d>>k&0xff)
		if v < 0 {
			v = -v
		}
		t += v
	}
	return t
}
