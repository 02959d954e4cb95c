package fault_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/sdk"
)

// stringConsts returns the string constants declared with literal values in the Go
// files of dir, by name.
func stringConsts(t *testing.T, dir string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	out := map[string]string{}
	{
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				d, ok := n.(*ast.GenDecl)
				if !ok || d.Tok != token.CONST {
					return true
				}
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								out[name.Name], _ = strconv.Unquote(lit.Value)
							}
						}
					}
				}
				return false
			})
		}
	}
	return out
}

// TestEveryCodeIsInTheTableOnce reads the package's own source and the sdk's for every
// code constant, so that a code added without a table row fails here.
func TestEveryCodeIsInTheTableOnce(t *testing.T) {
	seen := map[string]int{}
	for _, k := range fault.Kinds {
		seen[k.Code]++
		if k.Status < 400 || k.Status > 599 || http.StatusText(k.Status) == "" {
			t.Errorf("%s has status %d, want a 4xx or 5xx status", k.Code, k.Status)
		}
		if k.When == "" || k.Do == "" {
			t.Errorf("%s lacks its when or what-to-do text", k.Code)
		}
	}
	host := stringConsts(t, ".")
	for name, code := range host {
		if seen[code] != 1 {
			t.Errorf("code %s (fault.%s) appears %d times in Kinds, want once", code, name, seen[code])
		}
	}
	if len(host) != len(fault.Kinds) {
		t.Errorf("%d code constants, %d table rows", len(host), len(fault.Kinds))
	}
	sdkCodes := stringConsts(t, "../../../sdk/internal/coded")
	if len(sdkCodes) < 5 {
		t.Fatalf("found only %d sdk codes: %v", len(sdkCodes), sdkCodes)
	}
	for name, code := range sdkCodes {
		if seen[code] != 1 {
			t.Errorf("the sdk's code %s (%s) is not in the host's table", code, name)
		}
	}
}

// TestTheDocsShowTheTable checks docs/errors.md and the README's error list against the
// table. With TRACECRAFT_UPDATE_DOCS=1 it rewrites them instead.
func TestTheDocsShowTheTable(t *testing.T) {
	table := fault.Markdown()
	for _, tc := range []struct{ file, begin, end string }{
		{"../../../docs/errors.md", "<!-- errors:begin -->\n", "<!-- errors:end -->"},
		{"../../../README.md", "<!-- errors:begin -->\n", "<!-- errors:end -->"},
	} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		i, j := strings.Index(doc, tc.begin), strings.Index(doc, tc.end)
		if i < 0 || j < i {
			t.Errorf("%s has no %q ... %q block", tc.file, strings.TrimSpace(tc.begin), tc.end)
			continue
		}
		got := doc[i+len(tc.begin) : j]
		if got == table {
			continue
		}
		if os.Getenv("TRACECRAFT_UPDATE_DOCS") == "1" {
			if err := os.WriteFile(tc.file, []byte(doc[:i+len(tc.begin)]+table+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s's error table is stale (run TRACECRAFT_UPDATE_DOCS=1 go test ./host/internal/fault); got\n%s\nwant\n%s", tc.file, got, table)
	}
}

func TestStatusOfAnUnknownCodeIs500(t *testing.T) {
	for code, want := range map[string]int{fault.InvalidSettings: 400, fault.QueueFull: 429, fault.StoreUnavailable: 503, "no_such_code": 500} {
		if got := fault.Status(code); got != want {
			t.Errorf("Status(%q) = %d, want %d", code, got, want)
		}
	}
}

func TestFromSDKKeepsTheHostsOwnMessage(t *testing.T) {
	inner := sdk.Errorf(sdk.CodeOutputTooLarge, "the engine's message")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"an sdk error", inner, "the engine's message"},
		{"a host error wrapping one", fault.Wrap(inner, fault.OutputTooLarge, "the host's message"), "the host's message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fault.As(fault.FromSDK(tt.err))
			if got.Code != fault.OutputTooLarge || got.Message != tt.want {
				t.Errorf("got %s %q, want output_too_large %q", got.Code, got.Message, tt.want)
			}
		})
	}
}
