package api

import (
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

// TestValidateListsEveryProblem checks that validate returns the job of a good upload,
// and for a bad one the first problem's code with every problem in the details.
func TestValidateListsEveryProblem(t *testing.T) {
	s, _ := newTestServer(t, &memEngines{}, 1)
	s.Limits = s.Limits.WithDefaults()
	img := pngOf(t, 6, 4)
	tests := []struct {
		name     string
		up       upload
		code     string   // "" for a valid upload
		fields   []string // the details' fields, in order
		problems bool     // whether the message counts the problems
	}{
		{name: "a good upload", up: upload{image: img, hasImage: true, settings: []byte(`{"engine":"mem","mem":{"color":"blue"}}`)}},
		{name: "no settings", up: upload{image: img, hasImage: true}},
		{name: "no image", up: upload{settings: []byte(`{"engine":"mem"}`)},
			code: fault.MissingImage, fields: []string{"image"}},
		{name: "an empty image", up: upload{image: []byte{}, hasImage: true},
			code: fault.EmptyImage, fields: []string{"image"}},
		{name: "not an image", up: upload{image: []byte("GIF89a...."), hasImage: true},
			code: fault.UnsupportedFormat, fields: []string{"image"}},
		{name: "bad settings", up: upload{image: img, hasImage: true, settings: []byte(`{"engine":"mem","mem":{"color":"green"}}`)},
			code: fault.InvalidSettings, fields: []string{"mem.color"}},
		{name: "settings that are not JSON", up: upload{image: img, hasImage: true, settings: []byte(`{"engine":`)},
			code: fault.InvalidSettings, fields: []string{"settings"}},
		{name: "several settings problems", up: upload{image: img, hasImage: true, settings: []byte(`{"engine":"mem","mem":{"color":"green","size":3}}`)},
			code: fault.InvalidSettings, fields: []string{"mem.color", "mem.size"}, problems: true},
		{name: "no image and bad settings: the image's code first", up: upload{settings: []byte(`{"engine":"mem","mem":{"color":"green"}}`)},
			code: fault.MissingImage, fields: []string{"image", "mem.color"}, problems: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job, err := s.validate(tt.up)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("validate: %v", err)
				}
				if job.Info.Width != 6 || job.Info.Height != 4 || len(job.Image) != len(img) || len(job.Catalog.Engines) != 1 {
					t.Errorf("job %+v lacks the image, its size or the catalog", job.Info)
				}
				return
			}
			fe := fault.As(err)
			var fields []string
			for _, d := range fe.Details {
				fields = append(fields, d.Field)
			}
			if fe.Code != tt.code || strings.Join(fields, ",") != strings.Join(tt.fields, ",") {
				t.Errorf("got %s with details %v, want %s with %v: %v", fe.Code, fields, tt.code, tt.fields, err)
			}
			if counted := strings.Contains(fe.Message, "problems, listed in details"); counted != tt.problems {
				t.Errorf("the message %q counts the problems: %v, want %v", fe.Message, counted, tt.problems)
			}
		})
	}
}
