package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPresetBestAnswersWithTheHigherScoringTrace checks, through the real host and the
// bundled engines, that preset best answers with the trace that scores higher of the
// image's two likeliest settings, that what it answers is what that preset alone traces,
// that auto, in doubt about line art, answers the same, while it traces a flat logo
// once, and that a misspelt preset is refused naming best among the values.
func TestPresetBestAnswersWithTheHigherScoringTrace(t *testing.T) {
	t.Parallel()
	h := startHost(t, newPlugins(t, "tracecraft", "vtracer", "potrace"), t.TempDir(), "--workers", "2")
	// Line art whose anti-aliased ink the logo preset (tracecraft) follows better than the
	// lineart preset (potrace): best's two candidates.
	img, err := os.ReadFile(filepath.Join(corpusDir(), "lineart", "openclipart-trumpet.png"))
	if err != nil {
		t.Skipf("the bench corpus is not here: %v", err)
	}
	ssim := func(r reply) float64 {
		t.Helper()
		q, _ := r.json["quality"].(map[string]any)
		v, ok := q["ssim"].(float64)
		if r.status != 200 || !ok {
			t.Fatalf("want 200 with quality.ssim, got %s", r)
		}
		return v
	}
	best := h.vectorize(img, `{"preset":"best","output":{"quality":true}}`)
	got := ssim(best)
	scores := map[string]float64{}
	svgs := map[string]any{}
	for _, p := range []string{"lineart", "logo"} {
		r := h.vectorize(img, `{"preset":"`+p+`","output":{"quality":true}}`)
		scores[p], svgs[p] = ssim(r), r.json["svg"]
	}
	want := "lineart"
	if scores["logo"] > scores["lineart"] {
		want = "logo"
	}
	if best.json["preset"] != want || got != scores[want] || best.json["svg"] != svgs[want] {
		t.Errorf("best answered preset %v with ssim %v; the candidates score %v, want %s's trace", best.json["preset"], got, scores, want)
	}
	// The answer lists both candidates, the kept one first, with the scores each preset's
	// own answer has.
	cands, _ := best.json["candidates"].([]any)
	if len(cands) != 2 {
		t.Fatalf("candidates %v, want the 2 settings tried", best.json["candidates"])
	}
	for i, c := range cands {
		m, _ := c.(map[string]any)
		q, _ := m["quality"].(map[string]any)
		p, _ := m["preset"].(string)
		if (i == 0 && p != want) || q["ssim"] != scores[p] {
			t.Errorf("candidate %d = %v, want preset %s first and each with its own answer's ssim %v", i, m, want, scores)
		}
	}

	// auto: line art is never unambiguous, so auto compares the same two settings and
	// answers as best does; a flat logo of few colours is traced once, with no candidates.
	auto := h.vectorize(img, `{"output":{"quality":true}}`)
	if cands, _ := auto.json["candidates"].([]any); auto.json["preset"] != want || auto.json["svg"] != svgs[want] || len(cands) != 2 {
		t.Errorf("auto answered preset %v after %d candidates, want %s's trace after 2", auto.json["preset"], len(cands), want)
	}
	logo, err := os.ReadFile(filepath.Join(corpusDir(), "logo", "simpleicons-github.png"))
	if err != nil {
		t.Fatal(err)
	}
	if r := h.vectorize(logo, `{}`); r.status != 200 || r.json["preset"] != "logo" || r.json["candidates"] != nil {
		t.Errorf("auto on a flat logo: %s, want the logo preset traced once (no candidates)", r)
	}

	bad := h.vectorize(img, `{"preset":"bets"}`)
	if bad.status != 400 || bad.errorCode() != "invalid_settings" || !slices.Equal(bad.details(), []string{"preset"}) {
		t.Errorf("preset bets: got %s, want 400 invalid_settings on preset", bad)
	}
}
