package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/internal/testbin"
)

// TestTheErrorTableIsTheOneEveryDocumentShows starts the host with the bundled engines at
// its default limits and checks that /llms.txt and the OpenAPI document list every code of
// the error table under the status the server answers it with, and that the repository's
// docs/openapi.json is that document (TRACECRAFT_UPDATE_DOCS=1 rewrites it). The README
// and docs/errors.md are checked against the table in package fault.
func TestTheErrorTableIsTheOneEveryDocumentShows(t *testing.T) {
	t.Parallel()
	plugins := t.TempDir()
	for _, e := range []string{"tracecraft", "vtracer", "potrace", "tracecraft2", "potrace2", "centerline"} {
		testbin.Install(t, testbin.Build(t, "./plugins/"+e), plugins, e)
	}
	h := startHost(t, plugins, t.TempDir())

	llms := string(h.get("/llms.txt").body)
	for _, k := range fault.Kinds {
		if want := fmt.Sprintf("- %d %s: %s.", k.Status, k.Code, k.When); !strings.Contains(llms, want) {
			t.Errorf("llms.txt lacks %q", want)
		}
	}

	r := h.get("/api/openapi.json")
	var doc map[string]any
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	listed := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			for status, resp := range op.(map[string]any)["responses"].(map[string]any) {
				for _, code := range responseCodes(resp) {
					listed[code] = true
					if want := strconv.Itoa(fault.Status(code)); status != want {
						t.Errorf("%s %s lists %s under %s, the server answers it with %s", method, path, code, status, want)
					}
					if _, ok := fault.Lookup(code); !ok {
						t.Errorf("%s %s lists %s, which is not in the error table", method, path, code)
					}
				}
			}
		}
	}
	for _, k := range fault.Kinds {
		if !listed[k.Code] && k.Code != fault.NotFound && k.Code != fault.MethodNotAllowed {
			t.Errorf("no operation of the OpenAPI document lists %s", k.Code)
		}
	}

	var pretty bytes.Buffer
	if err := json.Indent(&pretty, r.body, "", "  "); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(testbin.Root(), "docs", "openapi.json")
	if os.Getenv("TRACECRAFT_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(file, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if committed, err := os.ReadFile(file); err != nil || !bytes.Equal(committed, pretty.Bytes()) {
		t.Errorf("docs/openapi.json is not the document the host serves with the bundled engines (%v); "+
			"run TRACECRAFT_UPDATE_DOCS=1 go test ./host -run TestTheErrorTableIsTheOneEveryDocumentShows", err)
	}
}

// responseCodes returns the error codes a response of the OpenAPI document lists in its
// content's code enum.
func responseCodes(resp any) []string {
	var codes []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if code, ok := v["code"].(map[string]any); ok {
				if enum, ok := code["enum"].([]any); ok {
					for _, c := range enum {
						codes = append(codes, c.(string))
					}
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(resp)
	return codes
}
