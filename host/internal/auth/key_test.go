package auth

import (
	"bytes"
	"strings"
	"testing"
)

func TestGenerate(t *testing.T) {
	seen := map[string]bool{}
	counts := map[rune]int{}
	const n = 2000
	for range n {
		k, err := Generate()
		if err != nil {
			t.Fatalf("Generate failed: %v", err)
		}
		if !WellFormed(k) {
			t.Fatalf("Generate returned %q, which is not well-formed", k)
		}
		if seen[k] {
			t.Fatalf("Generate returned %q twice", k)
		}
		seen[k] = true
		for _, c := range k[len(KeyPrefix):] {
			counts[c]++
		}
	}
	// Each of the 62 characters is expected n*32/62 ≈ 1032 times (σ ≈ 32); 25% off is
	// about 8σ, so only a broken generator fails this.
	want := float64(n*secretLen) / 62
	for _, c := range base62 {
		if got := float64(counts[c]); got < 0.75*want || got > 1.25*want {
			t.Errorf("character %q appeared %v times in %d keys, want about %.0f", c, got, n, want)
		}
	}
}

func TestGenerateSampling(t *testing.T) {
	tests := []struct {
		name  string
		bytes []byte
		want  string
	}{
		{
			name:  "bytes below 248 map to the alphabet by their value modulo 62",
			bytes: append(bytes.Repeat([]byte{0, 61, 62, 247}, 8), make([]byte, 16)...),
			want:  "tc_" + strings.Repeat("0z0z", 8),
		},
		{
			name: "bytes 248 to 255 are skipped, not folded onto the first characters",
			bytes: append(append([]byte{248, 249, 250, 251, 252, 253, 254, 255}, bytes.Repeat([]byte{1}, 40)...),
				make([]byte, 48)...),
			want: "tc_" + strings.Repeat("1", 32),
		},
		{
			name: "a read with too many rejected bytes is followed by another",
			bytes: append(append(bytes.Repeat([]byte{255}, 40), bytes.Repeat([]byte{10}, 8)...),
				bytes.Repeat([]byte{36}, 48)...),
			want: "tc_" + strings.Repeat("A", 8) + strings.Repeat("a", 24),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := generate(bytes.NewReader(tc.bytes))
			if err != nil {
				t.Fatalf("generate failed: %v", err)
			}
			if got != tc.want {
				t.Errorf("generate returned %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGenerateFailsWhenRandomnessRunsOut(t *testing.T) {
	if k, err := generate(bytes.NewReader(bytes.Repeat([]byte{255}, 100))); err == nil {
		t.Errorf("generate from a reader of rejected bytes returned %q, want an error", k)
	}
}

func TestHash(t *testing.T) {
	tests := []struct {
		name, plain, want string
	}{
		{"the hash is the hex SHA-256", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"the empty string hashes too", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Hash(tc.plain); got != tc.want {
				t.Errorf("Hash(%q) = %s, want %s", tc.plain, got, tc.want)
			}
		})
	}
}

func TestPrefix(t *testing.T) {
	tests := []struct {
		name, plain, want string
	}{
		{"a key keeps tc_ and 4 characters", "tc_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "tc_AbCd"},
		{"a short string is kept whole", "tc_A", "tc_A"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Prefix(tc.plain); got != tc.want {
				t.Errorf("Prefix(%q) = %q, want %q", tc.plain, got, tc.want)
			}
		})
	}
}

func TestWellFormed(t *testing.T) {
	valid := "tc_" + strings.Repeat("aZ9", 10) + "xy"
	tests := []struct {
		name  string
		plain string
		want  bool
	}{
		{"a key of tc_ and 32 base62 characters is well-formed", valid, true},
		{"an empty string is not", "", false},
		{"a key one character short is not", valid[:KeyLen-1], false},
		{"a key one character long is not", valid + "a", false},
		{"another prefix is not", "tk_" + valid[3:], false},
		{"an upper-case prefix is not", "TC_" + valid[3:], false},
		{"a dash inside is not", valid[:10] + "-" + valid[11:], false},
		{"an underscore inside is not", valid[:10] + "_" + valid[11:], false},
		{"a trailing newline is not", valid[:KeyLen-1] + "\n", false},
		{"a non-ASCII letter is not", valid[:KeyLen-2] + "é", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := WellFormed(tc.plain); got != tc.want {
				t.Errorf("WellFormed(%q) = %v, want %v", tc.plain, got, tc.want)
			}
		})
	}
}
