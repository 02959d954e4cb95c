package trace

import (
	"context"
	"fmt"
	"image"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
	"github.com/tracecraft/tracecraft/plugins/centerline/fill"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
	"github.com/tracecraft/tracecraft/plugins/centerline/skeleton"
	"github.com/tracecraft/tracecraft/plugins/centerline/synth"
)

// TestStrokeSkeletonLeavesOutOnlyThePartsOutlinedWhole checks that strokeSkeleton, which
// does not thin the parts of the ink absorbed whole into the filled areas, gives the
// skeleton of the whole ink with the areas taken off: the parts left are thinned as
// they are beside the others. Silhouettes and brush drawings have parts absorbed and
// parts not; a drawing with two silhouettes side by side, one with a thin limb
// touching the other's box, checks parts a pixel apart.
func TestStrokeSkeletonLeavesOutOnlyThePartsOutlinedWhole(t *testing.T) {
	var imgs []*image.NRGBA
	var names []string
	for _, k := range []synth.ArtKind{synth.Silhouette, synth.Brush} {
		for seed := range uint64(3) {
			img, err := synth.Art(k, seed)
			if err != nil {
				t.Fatal(err)
			}
			imgs, names = append(imgs, img), append(names, fmt.Sprintf("%v-%d", k, seed))
		}
	}
	near := white(160, 100)
	for y := 10; y < 90; y++ {
		for x := 10; x < 70; x++ {
			near.Set(x, y, image.Black) // a block, absorbed
		}
		near.Set(71, y, image.Black) // a line a pixel off it, a part of its own
	}
	line(near, 100, 20, 150, 80, 3)
	imgs, names = append(imgs, near), append(names, "parts a pixel apart")
	o := DefaultOptions()
	absorbedSome := false
	for i, img := range imgs {
		w, h := img.Rect.Dx(), img.Rect.Dy()
		_, m := ink.Binarise(ink.Darkness(img), o.Threshold, o.Level)
		rs := distance.FindRuns(m.Pix, w, h)
		d := distance.TransformRuns(rs, w, h)
		_, blobs, blobRuns := areas(rs, d, w, h)
		parts := fill.PartsOf(rs, w)
		got, grown, _, err := strokeSkeleton(context.Background(), rs, d, w, h, slices.Clone(blobs), blobRuns, o, func() *fill.Parts { return parts })
		if err != nil {
			t.Fatal(err)
		}
		want, err := skeleton.ThinRuns(context.Background(), rs, d, w, h)
		if err != nil {
			t.Fatal(err)
		}
		if grown != nil {
			want.Remove(grown)
		}
		if !slices.Equal(got.Pixels(), want.Pixels()) {
			t.Errorf("%s: %d skeleton pixels, want the %d of the whole ink's skeleton off the areas", names[i], len(got.Pixels()), len(want.Pixels()))
		}
		if blobs != nil {
			_, whole := parts.AbsorbRuns(slices.Clone(blobs), blobRuns, absorbShare)
			absorbedSome = absorbedSome || slices.Contains(whole, true) && slices.Contains(whole, false)
		}
	}
	if !absorbedSome {
		t.Error("no drawing had parts both absorbed and not: the test proves nothing")
	}
}
