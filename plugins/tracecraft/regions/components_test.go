package regions

import (
	"context"
	"math/rand"
	"slices"
	"testing"
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
			got, n, err := componentsInBands(context.Background(), sz.w, sz.h, key, nil, bands)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) || n != int(slices.Max(want))+1 {
				t.Errorf("%dx%d in %d bands: labels differ from the flood fill's (%d sets, want %d)",
					sz.w, sz.h, bands, n, slices.Max(want)+1)
			}
		}
	}
}
