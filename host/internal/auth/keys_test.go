package auth

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/store/sqlite"
)

var now = time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)

// countingStore is the real store, counting KeyByHash calls.
type countingStore struct {
	store.Store
	lookups atomic.Int64
}

func (s *countingStore) KeyByHash(ctx context.Context, hash string) (store.Key, error) {
	s.lookups.Add(1)
	return s.Store.KeyByHash(ctx, hash)
}

// newKeys returns Keys on a SQLite store in a temporary directory, and the store.
func newKeys(t *testing.T) (*Keys, *countingStore) {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cs := &countingStore{Store: s}
	return &Keys{Store: cs, Now: func() time.Time { return now }}, cs
}

func TestCreate(t *testing.T) {
	ctx := context.Background()
	keys, s := newKeys(t)
	plain, key, err := keys.Create(ctx, "alice")
	if err != nil {
		t.Fatalf("Create failed: %v", err)
	}
	if !WellFormed(plain) {
		t.Errorf("Create returned key %q, which is not well-formed", plain)
	}
	if key.Name != "alice" || key.Prefix != plain[:PrefixLen] || !key.CreatedAt.Equal(now) || !key.Active() {
		t.Errorf("Create returned %+v, want name alice, prefix %q, created %v, active", key, plain[:PrefixLen], now)
	}
	stored, err := s.Store.KeyByHash(ctx, Hash(plain))
	if err != nil || stored.ID != key.ID {
		t.Errorf("the store has %+v, %v under the key's hash; want key %d", stored, err, key.ID)
	}
	if _, err := s.Store.KeyByHash(ctx, plain); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the store finds the key by its plain text (%v); it must keep only the hash", err)
	}
}

func TestCreateFailures(t *testing.T) {
	tests := []struct {
		name    string
		keyName string
		wantIs  error
	}{
		{"a taken name fails with ErrNameTaken", "alice", store.ErrNameTaken},
		{"an empty name fails", "", nil},
		{"a name with a space fails", "bad name", nil},
		{"a name of 65 characters fails", strings.Repeat("n", 65), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keys, _ := newKeys(t)
			if _, _, err := keys.Create(context.Background(), "alice"); err != nil {
				t.Fatal(err)
			}
			plain, _, err := keys.Create(context.Background(), tc.keyName)
			if err == nil || plain != "" {
				t.Fatalf("Create(%q) returned %q, %v; want an error and no key", tc.keyName, plain, err)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("Create(%q) returned %v, want %v", tc.keyName, err, tc.wantIs)
			}
			list, _ := keys.List(context.Background())
			if len(list) != 1 {
				t.Errorf("after a failed Create the store has %d keys, want 1", len(list))
			}
		})
	}
}

func TestListAndRevoke(t *testing.T) {
	ctx := context.Background()
	keys, _ := newKeys(t)
	for _, name := range []string{"carol", "alice", "bob"} {
		if _, _, err := keys.Create(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	keys.Now = func() time.Time { return now.Add(time.Hour) }
	if k, err := keys.Revoke(ctx, "bob"); err != nil || !k.RevokedAt.Equal(now.Add(time.Hour)) {
		t.Errorf("Revoke(bob) returned %+v, %v; want it revoked at %v", k, err, now.Add(time.Hour))
	}
	if _, err := keys.Revoke(ctx, "dave"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Revoke(dave) returned %v, want ErrNotFound", err)
	}
	list, err := keys.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range list {
		got = append(got, k.Name+map[bool]string{true: "", false: " (revoked)"}[k.Active()])
	}
	if want := "alice, bob (revoked), carol"; strings.Join(got, ", ") != want {
		t.Errorf("List returned %q, want %q", strings.Join(got, ", "), want)
	}
}

func TestVerify(t *testing.T) {
	ctx := context.Background()
	keys, s := newKeys(t)
	valid, validKey, err := keys.Create(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	revoked, _, err := keys.Create(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Revoke(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	unknown, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		plain       string
		wantID      int64 // 0: want an invalid_api_key error
		wantMessage string
		wantCause   error
		wantLookup  bool
	}{
		{"an active key is accepted", valid, validKey.ID, "", nil, true},
		{"an empty key is refused without a lookup", "", 0, msgEmpty, nil, false},
		{"a key of the wrong length is refused without a lookup", valid[:KeyLen-1], 0, msgMalformed, nil, false},
		{"a key with a stray character is refused without a lookup", valid[:KeyLen-1] + "!", 0, msgMalformed, nil, false},
		{"a key with surrounding space is refused without a lookup", " " + valid, 0, msgMalformed, nil, false},
		{"a key of another prefix is refused without a lookup", "sk_" + valid[3:], 0, msgMalformed, nil, false},
		{"a well-formed key never issued is refused", unknown, 0, msgInvalid, ErrUnknownKey, true},
		{"a revoked key is refused with the same message", revoked, 0, msgInvalid, ErrRevokedKey, true},
		{"a key differing in case from an active one is refused", strings.ToUpper(valid[:3]) + valid[3:], 0, msgMalformed, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := s.lookups.Load()
			key, err := keys.Verify(ctx, tc.plain)
			if looked := s.lookups.Load() > before; looked != tc.wantLookup {
				t.Errorf("Verify(%q) looked the key up: %v, want %v", tc.plain, looked, tc.wantLookup)
			}
			if tc.wantID != 0 {
				if err != nil || key.ID != tc.wantID {
					t.Errorf("Verify(%q) returned %+v, %v; want key %d", tc.plain, key, err, tc.wantID)
				}
				return
			}
			var fe *fault.Error
			if !errors.As(err, &fe) || fe.Code != fault.InvalidAPIKey {
				t.Fatalf("Verify(%q) returned %+v, %v; want a *fault.Error with code %s", tc.plain, key, err, fault.InvalidAPIKey)
			}
			if fe.Message != tc.wantMessage {
				t.Errorf("Verify(%q) said %q, want %q", tc.plain, fe.Message, tc.wantMessage)
			}
			if tc.wantCause != nil && !errors.Is(err, tc.wantCause) {
				t.Errorf("Verify(%q) has cause %v, want %v", tc.plain, fe.Err, tc.wantCause)
			}
			for _, leak := range []string{"bob", "alice", "revoked", "exist", "unknown"} {
				if strings.Contains(strings.ToLower(fe.Message), leak) {
					t.Errorf("Verify(%q)'s message %q reveals %q", tc.plain, fe.Message, leak)
				}
			}
		})
	}
}

func TestVerifyWhenTheStoreFails(t *testing.T) {
	keys, s := newKeys(t)
	plain, _, err := keys.Create(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = keys.Verify(context.Background(), plain)
	if code := fault.Code(err); code != fault.StoreUnavailable {
		t.Errorf("Verify with a closed store returned %v (code %s), want code %s: the key may be valid", err, code, fault.StoreUnavailable)
	}
}

func TestKeysWithoutNowUseTheClock(t *testing.T) {
	keys, _ := newKeys(t)
	keys.Now = nil
	before := time.Now().Add(-time.Second)
	_, key, err := keys.Create(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	if key.CreatedAt.Before(before) || key.CreatedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("CreatedAt is %v, want about now", key.CreatedAt)
	}
}
