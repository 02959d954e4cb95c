package trace

import (
	"context"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
)

// discs returns a w x h bitmap holding n random discs (some with a hole), drawn by
// rng, together with the bitmap of the first k of them.
func discs(rng *rand.Rand, w, h, n, k int) (all, first *Bitmap) {
	all, first = NewBitmap(w, h), NewBitmap(w, h)
	for i := range n {
		cx, cy := rng.Float64()*float64(w), rng.Float64()*float64(h)
		r := 3 + rng.Float64()*float64(min(w, h))/5
		hole := r * rng.Float64() * 0.6
		for y := range h {
			for x := range w {
				d2 := (float64(x)+0.5-cx)*(float64(x)+0.5-cx) + (float64(y)+0.5-cy)*(float64(y)+0.5-cy)
				if d2 <= r*r && d2 >= hole*hole {
					all.Set(x, y, true)
					if i < k {
						first.Set(x, y, true)
					}
				}
			}
		}
	}
	return all, first
}

// TestMemoTracesAsTrace: bitmaps that share boundaries (one holding a subset of the
// other's discs, as stacked colour layers do), traced through one memo in either order
// and concurrently, give exactly what Trace gives, also after the caller changed the
// curves of an earlier result; and the shared boundaries are worked out once.
func TestMemoTracesAsTrace(t *testing.T) {
	ctx := context.Background()
	opts := DefaultOptions()
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 2))
		w, h := 60+rng.IntN(80), 50+rng.IntN(80)
		all, first := discs(rng, w, h, 6, 3)
		want := [][]*Path{mustTrace(t, all, opts), mustTrace(t, first, opts)}
		memo := NewMemo(opts, h)
		got := make([][]*Path, 4)
		var wg sync.WaitGroup
		for i, bm := range []*Bitmap{all, first, first, all} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				roots, err := memo.Trace(ctx, bm)
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = roots
			}()
		}
		wg.Wait()
		for i, g := range got {
			if !reflect.DeepEqual(g, want[min(i, 3-i)]) {
				t.Fatalf("seed %d: trace %d through the memo differs from Trace", seed, i)
			}
			// The caller may change what it got.
			EachShape(g, func(p *Path) {
				for j := range p.Curve {
					p.Curve[j].End.X *= 2
				}
			})
		}
		again, err := memo.Trace(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, want[1]) {
			t.Fatalf("seed %d: a trace after the caller changed earlier curves differs from Trace", seed)
		}
		if memo.kept == 0 || memo.kept > countSegments(want[0])+countSegments(want[1]) {
			t.Errorf("seed %d: memo keeps %d segments, want some and at most the two traces' %d", seed, memo.kept,
				countSegments(want[0])+countSegments(want[1]))
		}
	}
}

func countSegments(roots []*Path) int {
	n := 0
	var walk func(ps []*Path)
	walk = func(ps []*Path) {
		for _, p := range ps {
			n += len(p.Curve)
			walk(p.Children)
		}
	}
	walk(roots)
	return n
}

// TestMemoOfAnotherHeightIsNotUsed: a bitmap of another height is traced as Trace
// traces it.
func TestMemoOfAnotherHeightIsNotUsed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	all, _ := discs(rng, 70, 60, 4, 0)
	memo := NewMemo(DefaultOptions(), 61)
	got, err := memo.Trace(context.Background(), all)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, mustTrace(t, all, DefaultOptions())) || memo.kept != 0 {
		t.Errorf("traced through a memo of another height: kept %d segments", memo.kept)
	}
}

// TestMovesRoundTrip: appendMoves packs each unit step in two bits and refuses others.
func TestMovesRoundTrip(t *testing.T) {
	pts := []point{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 2}, {-1, 2}, {-1, 1}}
	moves, ok := appendMoves(nil, pts)
	if !ok || len(moves) != 2 || moves[0] != 0|1<<2|2<<4|1<<6 || moves[1] != 2|3<<2 {
		t.Errorf("moves %08b ok %v, want [01100100 00001110] true", moves, ok)
	}
	if _, ok := appendMoves(nil, []point{{0, 0}, {2, 0}}); ok {
		t.Errorf("a step of 2 was packed")
	}
}

// TestMemoTracesLongPathsAsTrace: paths long enough for their straight runs to be found
// on all cores give what Trace gives.
func TestMemoTracesLongPathsAsTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	all, _ := discs(rng, 1400, 1300, 3, 0)
	// One large disc for certain: a path of about 8·600 corners.
	for y := range 1300 {
		for x := range 1400 {
			if dx, dy := float64(x)-700.5, float64(y)-650.5; dx*dx+dy*dy <= 600*600 {
				all.Set(x, y, true)
			}
		}
	}
	want := mustTrace(t, all, DefaultOptions())
	got, err := NewMemo(DefaultOptions(), all.Height).Trace(context.Background(), all)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a bitmap with a path of over %d corners traced through a memo differs from Trace", parallelCorners)
	}
}
