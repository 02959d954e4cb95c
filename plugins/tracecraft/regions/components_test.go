package regions

import (
	"context"
	"image"
	"image/color"
	"math/rand"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/quantize"
)

// floodLabels labels the 4-connected components of equal key by flood fill, numbered
// in raster order of their first pixel: the reference components must match.
func floodLabels(w, h int, key []int16) []int32 {
	labels := make([]int32, w*h)
	for i := range labels {
		labels[i] = -1
	}
	n := int32(0)
	var stack []int
	for i := range labels {
		if labels[i] >= 0 {
			continue
		}
		labels[i] = n
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := j%w, j/w
			for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				nx, ny := x+d[0], y+d[1]
				if nx < 0 || ny < 0 || nx >= w || ny >= h {
					continue
				}
				if k := ny*w + nx; labels[k] < 0 && key[k] == key[j] {
					labels[k] = n
					stack = append(stack, k)
				}
			}
		}
		n++
	}
	return labels
}

// measureLabels measures the n components of labels pixel by pixel: key, pixel count and
// bounds.
func measureLabels(w int, key []int16, labels []int32, n int) []component {
	comps := make([]component, n)
	for i := range comps {
		comps[i] = empty(0)
	}
	for i, l := range labels {
		x, y := int32(i%w), int32(i/w)
		comps[l].join(component{key: key[i], pixels: 1, x0: x, y0: y, x1: x + 1, y1: y + 1})
	}
	return comps
}

func TestComponentsInBandsNumberLikeAFloodFillWhateverTheBands(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	sizes := []struct{ w, h, keys int }{{1, 1, 1}, {7, 1, 2}, {1, 9, 2}, {13, 11, 2}, {40, 37, 3}, {64, 64, 5}}
	for _, sz := range sizes {
		key := make([]int16, sz.w*sz.h)
		for i := range key {
			key[i] = int16(rng.Intn(sz.keys))
		}
		want := floodLabels(sz.w, sz.h, key)
		for _, bands := range []int{1, 2, 3, 5, 8, sz.h + 3} {
			got, comps, err := componentsInBands(context.Background(), sz.w, sz.h, key, bands)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) || len(comps) != int(slices.Max(want))+1 {
				t.Errorf("%dx%d in %d bands: labels differ from the flood fill's (%d sets, want %d)",
					sz.w, sz.h, bands, len(comps), slices.Max(want)+1)
				continue
			}
			if wantComps := measureLabels(sz.w, key, want, len(comps)); !slices.Equal(comps, wantComps) {
				t.Errorf("%dx%d in %d bands: components measured %v, want %v", sz.w, sz.h, bands, comps, wantComps)
			}
		}
	}
}

// TestMergedRegionsAreTheComponentsOfTheMergedColours checks that after merging, the
// regions are exactly the 4-connected components of the colours the pixels end up with,
// numbered in raster order of their first pixel and measured right, as labelling the
// merged map's colours afresh would give them.
func TestMergedRegionsAreTheComponentsOfTheMergedColours(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	palette := []color.NRGBA{{255, 0, 0, 255}, {250, 10, 10, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}
	for _, sz := range []struct{ w, h, block int }{{9, 7, 1}, {40, 30, 2}, {64, 48, 3}, {97, 61, 2}} {
		for _, minRegion := range []int{2, 5, 25} {
			q := &quantize.Result{Width: sz.w, Height: sz.h, Palette: palette, Index: make([]int16, sz.w*sz.h)}
			for _, c := range palette {
				q.Lab = append(q.Lab, quantize.ToLab(c.R, c.G, c.B, c.A))
			}
			img := image.NewNRGBA(image.Rect(0, 0, sz.w, sz.h))
			// Blocks of one random key, then single pixels changed: regions of many sizes.
			bw, bh := (sz.w+sz.block-1)/sz.block, (sz.h+sz.block-1)/sz.block
			blocks := make([]int16, bw*bh)
			for i := range blocks {
				blocks[i] = int16(rng.Intn(len(palette)+1)) - 1
			}
			for i := range q.Index {
				k := blocks[(i/sz.w/sz.block)*bw+i%sz.w/sz.block]
				if rng.Intn(8) == 0 {
					k = int16(rng.Intn(len(palette)+1)) - 1
				}
				q.Index[i] = k
				if k >= 0 {
					img.SetNRGBA(i%sz.w, i/sz.w, palette[k])
				}
			}
			m, err := Build(context.Background(), img, q, Options{MinRegion: minRegion})
			if err != nil {
				t.Fatal(err)
			}
			colours := make([]int16, len(m.Labels))
			for i, l := range m.Labels {
				colours[i] = int16(m.Regions[l].Palette)
			}
			want := floodLabels(sz.w, sz.h, colours)
			if !slices.Equal(m.Labels, want) || len(m.Regions) != int(slices.Max(want))+1 {
				t.Errorf("%dx%d minRegion %d: labels differ from the components of the merged colours (%d regions, want %d)",
					sz.w, sz.h, minRegion, len(m.Regions), slices.Max(want)+1)
				continue
			}
			for l, c := range measureLabels(sz.w, colours, want, len(m.Regions)) {
				r := m.Regions[l]
				wantBounds := image.Rect(int(c.x0), int(c.y0), int(c.x1), int(c.y1))
				if r.Pixels != int(c.pixels) || r.Bounds != wantBounds || r.Palette != int(c.key) {
					t.Errorf("%dx%d minRegion %d: region %d is %d pixels in %v of palette %d, want %d in %v of %d",
						sz.w, sz.h, minRegion, l, r.Pixels, r.Bounds, r.Palette, c.pixels, wantBounds, c.key)
				}
			}
		}
	}
}
