// Package auth issues, verifies and revokes API keys. A key is shown once, at creation;
// the store keeps only its hash and a short prefix for people to recognise it by.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

const (
	// KeyPrefix starts every key, so that a key is recognisable in a config file or a
	// leaked log (and secret scanners can match it).
	KeyPrefix = "tc_"
	// secretLen is the number of random base62 characters after KeyPrefix: 32 of them
	// carry 32·log2(62) ≈ 190 bits.
	secretLen = 32
	// KeyLen is the length of a key.
	KeyLen = len(KeyPrefix) + secretLen
	// PrefixLen is how much of a key Prefix keeps: "tc_" and 4 random characters, enough
	// to tell keys apart in a list, about 24 bits of the 190, so safe to show.
	PrefixLen = 7
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Generate returns a new random key: "tc_" and 32 base62 characters from crypto/rand.
func Generate() (string, error) {
	return generate(rand.Reader)
}

// generate draws the key's characters from r by rejection sampling: a byte b is used
// only if b < 248 (4·62), so b%62 is uniform over the alphabet; the 8 larger values are
// skipped rather than folded in, which would favour the first 8 characters.
func generate(r io.Reader) (string, error) {
	const limit = 256 - 256%len(base62) // 248
	key := make([]byte, 0, KeyLen)
	key = append(key, KeyPrefix...)
	buf := make([]byte, 48) // 32 needed; one read almost always suffices (31/32 accepted)
	for len(key) < KeyLen {
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", fmt.Errorf("auth: read random bytes: %w", err)
		}
		for _, b := range buf {
			if int(b) < limit && len(key) < KeyLen {
				key = append(key, base62[int(b)%len(base62)])
			}
		}
	}
	return string(key), nil
}

// Hash returns the hex SHA-256 of a key, the only form in which the store keeps it.
// A fast hash suffices, unlike for passwords: a key has about 190 bits of randomness, so
// no dictionary or brute-force search over a leaked hash can find it, and salting or
// stretching (bcrypt, argon2) would only slow down every request without making a key
// harder to recover. An unsalted hash also lets the store find the key by its hash.
func Hash(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}

// Prefix returns the first 7 characters of a key ("tc_AbCd"), or all of a shorter
// string.
func Prefix(plain string) string {
	if len(plain) < PrefixLen {
		return plain
	}
	return plain[:PrefixLen]
}

// WellFormed reports whether plain looks like a key: "tc_" and 32 base62 characters.
// It says nothing of whether such a key exists.
func WellFormed(plain string) bool {
	if len(plain) != KeyLen || plain[:len(KeyPrefix)] != KeyPrefix {
		return false
	}
	for i := len(KeyPrefix); i < len(plain); i++ {
		c := plain[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}
