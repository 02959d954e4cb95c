package trace

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/vtracer/cluster"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// specks returns a w x h white image with isolated black 1x2 specks: no dark area is as
// large as a 2x2 speckle, so the bw mode keeps them all.
func specks(w, h int) *image.NRGBA {
	img := enginetest.Fill(w, h, color.NRGBA{255, 255, 255, 255})
	for y := 0; y+1 < h; y += 4 {
		for x := (y / 4) % 3; x < w; x += 3 {
			img.SetNRGBA(x, y, color.NRGBA{A: 255})
			img.SetNRGBA(x, y+1, color.NRGBA{A: 255})
		}
	}
	return img
}

// TestBWMatchesClustering checks the bw mode's own labelling against what it replaces:
// clustering the binarized image. The SVGs must be byte for byte the same.
func TestBWMatchesClustering(t *testing.T) {
	type sample struct {
		name string
		img  *image.NRGBA
	}
	samples := []sample{
		{"noise", enginetest.Noise(64, 48, 7)},
		{"specks, none large", specks(30, 20)},
		{"all light", enginetest.Fill(9, 7, color.NRGBA{255, 255, 255, 255})},
		{"all dark", enginetest.Fill(9, 7, color.NRGBA{A: 255})},
		{"transparent", enginetest.Fill(5, 5, color.NRGBA{})},
	}
	for _, s := range enginetest.Samples() {
		samples = append(samples, sample{s.Name, s.Image})
	}
	for _, cat := range []string{"logo", "lineart", "photo"} {
		if dir := enginetest.CorpusImages(t, cat); len(dir) > 0 {
			samples = append(samples, sample{cat, enginetest.LoadPNG(t, dir[0])})
		}
	}
	variants := []struct {
		name string
		set  func(*Options)
	}{
		{"defaults", func(*Options) {}},
		{"cutout", func(o *Options) { o.Cutout = true }},
		{"polygon", func(o *Options) { o.Mode = Polygon }},
		{"pixel, no speckle filter", func(o *Options) { o.Mode, o.FilterSpeckle = Pixel, 0 }},
		{"speckle 1", func(o *Options) { o.FilterSpeckle = 1 }},
		{"speckle 10", func(o *Options) { o.FilterSpeckle = 10 }},
	}
	ctx := context.Background()
	for _, s := range samples {
		for _, v := range variants {
			t.Run(fmt.Sprintf("%s/%s", s.name, v.name), func(t *testing.T) {
				o := DefaultOptions()
				o.BW = true
				v.set(&o)
				got, err := Trace(ctx, s.img, o)
				if err != nil {
					t.Fatal(err)
				}
				want, err := traceClusters(ctx, Binarize(s.img), o, cluster.Config{SpeckleArea: o.FilterSpeckle * o.FilterSpeckle})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("bw SVG differs from the clustered one:\n got %.300s\nwant %.300s", got, want)
				}
			})
		}
	}
}

func TestLabelDark(t *testing.T) {
	// . # . #      areas numbered in raster order of their first pixel; 4-connected,
	// # # . .      so the pixels at (3,2) and (2,3), touching at a corner, stay apart.
	// . . . #
	// # . # .
	rows := []string{".#.#", "##..", "...#", "#.#."}
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for y, r := range rows {
		for x, c := range r {
			v := color.NRGBA{255, 255, 255, 255}
			if c == '#' {
				v = color.NRGBA{A: 255}
			}
			img.SetNRGBA(x, y, v)
		}
	}
	lab, n, err := labelDark(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{
		-1, 0, -1, 1,
		0, 0, -1, -1,
		-1, -1, -1, 2,
		3, -1, 4, -1,
	}
	if n != 5 || fmt.Sprint(lab) != fmt.Sprint(want) {
		t.Errorf("labels %v (%d areas), want %v (5)", lab, n, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := labelDark(ctx, img); err == nil {
		t.Error("labelDark ignored a cancelled context")
	}
}

func TestBlocks(t *testing.T) {
	// Pieces of many sizes, some larger than a block, must come back in one piece, in
	// order.
	var b blocks
	var want []byte
	for i := 0; i < 3000; i++ {
		piece := bytes.Repeat([]byte{byte('a' + i%26)}, (i*i*37)%5000)
		if i == 1500 {
			piece = bytes.Repeat([]byte{'Z'}, maxBlock+3)
		}
		if i%2 == 0 {
			b.write(piece)
		} else {
			b.writeString(string(piece))
		}
		want = append(want, piece...)
	}
	if got := b.bytes(); !bytes.Equal(got, want) {
		t.Errorf("joined %d bytes, want %d (or different content)", len(got), len(want))
	}
	var small blocks
	small.writeString("<svg/>")
	if got := string(small.bytes()); got != "<svg/>" {
		t.Errorf("one block: %q", got)
	}
}
