package sdk_test

import (
	"go/build"
	"strings"
	"testing"
)

// TestAuthorPackagesImportNothingOfTheHost walks the imports of what an engine author
// imports (sdk, enginetest and everything they pull in from this module) and fails if
// any leads to the host or Gin, or to package pluginhost from anywhere but enginetest,
// whose RunBinary starts a plugin as the host does.
func TestAuthorPackagesImportNothingOfTheHost(t *testing.T) {
	const module = "github.com/tracecraft/tracecraft/"
	seen := map[string]bool{}
	var walk func(path, from string)
	walk = func(path, from string) {
		if seen[path] {
			return
		}
		seen[path] = true
		if strings.HasPrefix(path, module+"host") || strings.HasPrefix(path, "github.com/gin-gonic/") ||
			path == module+"sdk/pluginhost" && from != module+"sdk/enginetest" {
			t.Errorf("%s imports %s, which is host side", from, path)
			return
		}
		if !strings.HasPrefix(path, module) {
			return
		}
		pkg, err := build.Import(path, "", 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			walk(imp, path)
		}
	}
	for _, p := range []string{"sdk", "sdk/enginetest", "sdk/raster", "sdk/svg", "sdk/analysis"} {
		walk(module+p, "(root)")
	}
	if len(seen) < 8 {
		t.Errorf("walked only %d packages: %v", len(seen), seen)
	}
}
