package synth

import (
	"testing"
	"time"
)

func TestScenesAreDrawnQuickly(t *testing.T) {
	for _, k := range Kinds {
		start := time.Now()
		img, truth := Scene(k, 1, Clean)
		if len(truth) < 4 || img.Rect.Dx() != 2*Cell {
			t.Errorf("%v: %d strokes, %d px wide", k, len(truth), img.Rect.Dx())
		}
		t.Logf("%v: %v", k, time.Since(start))
	}
}

func TestScoreOfTheTruthIsPerfect(t *testing.T) {
	for _, k := range Kinds {
		_, truth := Scene(k, 2, Clean)
		var s Score
		s.Add(truth, truth)
		got := s.Summary()
		if got.MeanDist > 1e-9 || got.Recall != 1 || got.Precision != 1 || got.CountRatio != 1 || got.MedianWidthErr != 0 {
			t.Errorf("%v: %+v, want a perfect score", k, got)
		}
	}
}
