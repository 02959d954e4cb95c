package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrUnavailable means the database cannot be reached. Open's error wraps it when the
// cause is a connection failure, which OpenLater retries; callers test it with
// errors.Is.
var ErrUnavailable = errors.New("store: database unreachable")

// Later is a Store whose database could not be reached when the process started: it
// keeps trying to open it in the background and, until it succeeds, fails every call
// with an error wrapping ErrUnavailable. A host uses it so that it starts, and serves
// callers without a key, during a database outage.
type Later struct {
	dialect string
	cancel  context.CancelFunc
	done    chan struct{}

	mu sync.RWMutex
	s  Store
}

var _ Store = (*Later)(nil)

// OpenLater calls open every interval until it succeeds or Close is called, reporting
// each failure to failed (which may be nil). dialect is what Dialect reports meanwhile.
func OpenLater(dialect string, open func(context.Context) (Store, error), interval time.Duration, failed func(error)) *Later {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Later{dialect: dialect, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			s, err := open(ctx)
			if err == nil {
				l.mu.Lock()
				l.s = s
				l.mu.Unlock()
				return
			}
			if failed != nil && ctx.Err() == nil {
				failed(err)
			}
		}
	}()
	return l
}

// store returns the opened store, or an error wrapping ErrUnavailable.
func (l *Later) store() (Store, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.s == nil {
		return nil, fmt.Errorf("%w: not opened yet, retrying", ErrUnavailable)
	}
	return l.s, nil
}

// Open reports whether the database has been opened.
func (l *Later) Open() bool {
	_, err := l.store()
	return err == nil
}

// Dialect implements Store.
func (l *Later) Dialect() string { return l.dialect }

// Ping implements Store.
func (l *Later) Ping(ctx context.Context) error {
	s, err := l.store()
	if err != nil {
		return err
	}
	return s.Ping(ctx)
}

// CreateKey implements Store.
func (l *Later) CreateKey(ctx context.Context, name, hash, prefix string, at time.Time) (Key, error) {
	s, err := l.store()
	if err != nil {
		return Key{}, err
	}
	return s.CreateKey(ctx, name, hash, prefix, at)
}

// KeyByHash implements Store.
func (l *Later) KeyByHash(ctx context.Context, hash string) (Key, error) {
	s, err := l.store()
	if err != nil {
		return Key{}, err
	}
	return s.KeyByHash(ctx, hash)
}

// ListKeys implements Store.
func (l *Later) ListKeys(ctx context.Context) ([]Key, error) {
	s, err := l.store()
	if err != nil {
		return nil, err
	}
	return s.ListKeys(ctx)
}

// RevokeKey implements Store.
func (l *Later) RevokeKey(ctx context.Context, name string, at time.Time) (Key, error) {
	s, err := l.store()
	if err != nil {
		return Key{}, err
	}
	return s.RevokeKey(ctx, name, at)
}

// RecordRequest implements Store.
func (l *Later) RecordRequest(ctx context.Context, keyID int64, r Request) error {
	s, err := l.store()
	if err != nil {
		return err
	}
	return s.RecordRequest(ctx, keyID, r)
}

// Usage implements Store.
func (l *Later) Usage(ctx context.Context, keyID int64, from, to string) ([]Usage, error) {
	s, err := l.store()
	if err != nil {
		return nil, err
	}
	return s.Usage(ctx, keyID, from, to)
}

// Close stops the retries and closes the store if it was opened.
func (l *Later) Close() error {
	l.cancel()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == nil {
		return nil
	}
	return l.s.Close()
}
