package enginetest

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// CorpusEnv names the environment variable that points at the bench corpus
// (a folder holding logo/, poster/, photo/ and lineart/ with PNG files).
const CorpusEnv = "TRACECRAFT_CORPUS"

// CorpusDir returns the bench corpus folder: $TRACECRAFT_CORPUS, or the folder
// shared/bench/corpus found beside one of the working directory's ancestors. It skips
// the test or benchmark when there is none, so that a checkout without the bench still
// passes its tests.
func CorpusDir(tb testing.TB) string {
	tb.Helper()
	if dir := os.Getenv(CorpusEnv); dir != "" {
		return dir
	}
	dir, err := os.Getwd()
	if err == nil {
		for {
			cand := filepath.Join(dir, "shared", "bench", "corpus")
			if st, err := os.Stat(cand); err == nil && st.IsDir() {
				return cand
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	tb.Skipf("no bench corpus: set %s or keep shared/bench beside the repository", CorpusEnv)
	return ""
}

// CorpusImages returns the PNG paths of one category of the corpus, sorted.
func CorpusImages(tb testing.TB, category string) []string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(CorpusDir(tb), category, "*.png"))
	if err != nil || len(paths) == 0 {
		tb.Skipf("no images in corpus category %q", category)
	}
	sort.Strings(paths)
	return paths
}

// LoadPNG decodes an image file (PNG, or any format raster reads) into an NRGBA image
// exactly as the sdk decodes uploads for engines.
func LoadPNG(tb testing.TB, path string) *image.NRGBA {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	img, _, err := raster.Decode(data, 0)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return img
}

// Name returns the file name of path without folder and extension, for sub-benchmark
// names.
func Name(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// BenchmarkCorpus runs one sub-benchmark per image of a corpus category, tracing it with
// e at its default parameters: an engine's BenchmarkTrace_<Category> is one call.
func BenchmarkCorpus[P any](b *testing.B, e sdk.Engine[P], category string) {
	params := sdk.Defaults[P]()
	for _, path := range CorpusImages(b, category) {
		img := LoadPNG(b, path)
		b.Run(Name(path), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Trace(context.Background(), img, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
