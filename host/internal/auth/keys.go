package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/store"
)

// Causes of a failed Verify, kept in the *fault.Error for logs; clients see only its
// message, which is the same for both.
var (
	// ErrUnknownKey means no key has the given key's hash.
	ErrUnknownKey = errors.New("auth: no such key")
	// ErrRevokedKey means the key exists but was revoked.
	ErrRevokedKey = errors.New("auth: key revoked")
)

// Messages of Verify's errors. An unknown and a revoked key get the same one, so a
// client cannot learn whether a key was ever issued.
const (
	msgEmpty     = "the API key is empty; send a valid, active key, or no key to use the public lane"
	msgMalformed = `the API key is malformed: keys are "tc_" followed by 32 letters and digits; send a valid, active key`
	msgInvalid   = "the API key is not a valid, active key"
	msgStoreDown = "the key database cannot be reached, so the API key cannot be checked; retry shortly, or send no key to use the public lane"
)

// Keys creates, lists, revokes and verifies API keys kept in a store.
type Keys struct {
	// Store keeps the keys' hashes.
	Store store.Store
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

func (k *Keys) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// Create issues a new key named name and returns it in plain, the only time it is ever
// available, with its stored record. It fails with an error wrapping store.ErrNameTaken
// if the name is in use, or describing what is wrong with an invalid name.
func (k *Keys) Create(ctx context.Context, name string) (string, store.Key, error) {
	if err := store.ValidName(name); err != nil {
		return "", store.Key{}, fmt.Errorf("auth: create key: %w", err)
	}
	plain, err := Generate()
	if err != nil {
		return "", store.Key{}, err
	}
	key, err := k.Store.CreateKey(ctx, name, Hash(plain), Prefix(plain), k.now())
	if err != nil {
		return "", store.Key{}, fmt.Errorf("auth: create key %q: %w", name, err)
	}
	return plain, key, nil
}

// List returns every key, revoked ones too, ordered by name.
func (k *Keys) List(ctx context.Context) ([]store.Key, error) {
	keys, err := k.Store.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: list keys: %w", err)
	}
	return keys, nil
}

// Revoke revokes the named key at once: its next request is refused, by this process or
// any other using the same store. Revoking a revoked key keeps the first revocation time.
// It fails with an error wrapping store.ErrNotFound for an unknown name.
func (k *Keys) Revoke(ctx context.Context, name string) (store.Key, error) {
	key, err := k.Store.RevokeKey(ctx, name, k.now())
	if err != nil {
		return store.Key{}, fmt.Errorf("auth: revoke key %q: %w", name, err)
	}
	return key, nil
}

// Verify returns the active key plain is, or a *fault.Error with code
// fault.InvalidAPIKey if plain is empty, malformed (the store is not consulted), unknown
// or revoked. A failure of the store itself is a fault.StoreUnavailable error: the
// client's key may well be valid, and it should retry.
//
// Every call reads the key from the store; nothing is cached, so a key revoked by any
// process sharing the store is refused from the next request on.
func (k *Keys) Verify(ctx context.Context, plain string) (store.Key, error) {
	if plain == "" {
		return store.Key{}, fault.New(fault.InvalidAPIKey, msgEmpty)
	}
	if !WellFormed(plain) {
		return store.Key{}, fault.New(fault.InvalidAPIKey, msgMalformed)
	}
	// The lookup is by hash, so its timing depends on the hash, not on how much of a
	// guessed key matches a real one.
	key, err := k.Store.KeyByHash(ctx, Hash(plain))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Key{}, fault.Wrap(ErrUnknownKey, fault.InvalidAPIKey, msgInvalid)
	case err != nil:
		return store.Key{}, fault.Wrap(err, fault.StoreUnavailable, msgStoreDown)
	case !key.Active():
		return store.Key{}, fault.Wrap(fmt.Errorf("%w: key %q was revoked at %s", ErrRevokedKey, key.Name, key.RevokedAt.Format(time.RFC3339)),
			fault.InvalidAPIKey, msgInvalid)
	}
	return key, nil
}
