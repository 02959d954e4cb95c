package api

import "testing"

func TestTravelLengthIsReadFromTheSVGRoot(t *testing.T) {
	tests := []struct {
		name string
		svg  string
		want float64
		ok   bool
	}{
		{"stated on the root", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4" data-travel-length="12.5"><g/></svg>`, 12.5, true},
		{"absent", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><path d="M0 0"/></svg>`, 0, false},
		{"only inside the document does not count", `<svg viewBox="0 0 4 4"><g data-travel-length="3"/></svg>`, 0, false},
		{"not a number", `<svg data-travel-length="far"></svg>`, 0, false},
		{"negative", `<svg data-travel-length="-1"></svg>`, 0, false},
	}
	for _, tt := range tests {
		got := travelLength([]byte(tt.svg))
		if (got != nil) != tt.ok || (got != nil && *got != tt.want) {
			t.Errorf("%s: got %v, want %v (%v)", tt.name, got, tt.want, tt.ok)
		}
	}
}
