package engine_test

import (
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft2/engine"
	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

func BenchmarkTrace_Logo(b *testing.B)    { enginetest.BenchmarkCorpus(b, engine.New(), "logo") }
func BenchmarkTrace_Poster(b *testing.B)  { enginetest.BenchmarkCorpus(b, engine.New(), "poster") }
func BenchmarkTrace_Photo(b *testing.B)   { enginetest.BenchmarkCorpus(b, engine.New(), "photo") }
func BenchmarkTrace_Lineart(b *testing.B) { enginetest.BenchmarkCorpus(b, engine.New(), "lineart") }
