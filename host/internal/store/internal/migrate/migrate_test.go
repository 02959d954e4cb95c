package migrate

import (
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name    string
		fsys    fstest.MapFS
		want    []int // versions in order
		wantErr bool
	}{
		{"version 10 after 1 and 2 is a gap", fstest.MapFS{"0002_b.sql": file("B"), "0010_a.sql": file("A"), "0001_z.sql": file("Z")}, nil, true},
		{"consecutive migrations load by number, not by name", fstest.MapFS{"0002_b.sql": file("B"), "0001_z.sql": file("Z"), "README": file("x")}, []int{1, 2}, false},
		{"a gap in the numbers is refused", fstest.MapFS{"0001_a.sql": file("A"), "0003_c.sql": file("C")}, nil, true},
		{"a name without a number is refused", fstest.MapFS{"init.sql": file("A")}, nil, true},
		{"version 0 is refused", fstest.MapFS{"0000_a.sql": file("A")}, nil, true},
		{"no migrations load as none", fstest.MapFS{}, []int{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps, err := Load(tc.fsys)
			if tc.wantErr {
				if err == nil {
					t.Errorf("Load returned %+v, want an error", steps)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load failed: %v", err)
			}
			if len(steps) != len(tc.want) {
				t.Fatalf("Load returned %d steps, want %d", len(steps), len(tc.want))
			}
			for i, s := range steps {
				if s.Version != tc.want[i] {
					t.Errorf("step %d has version %d, want %d", i, s.Version, tc.want[i])
				}
			}
			if Latest(steps) != len(tc.want) {
				t.Errorf("Latest = %d, want %d", Latest(steps), len(tc.want))
			}
		})
	}
}
