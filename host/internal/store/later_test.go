package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/store/sqlite"
)

func TestOpenLaterFailsCallsUntilTheDatabaseOpensThenServesThem(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "later.db")
	var attempts, failures atomic.Int32
	reachable := make(chan struct{})
	l := store.OpenLater(store.SQLite, func(ctx context.Context) (store.Store, error) {
		attempts.Add(1)
		select {
		case <-reachable:
			return sqlite.Open(ctx, path)
		default:
			return nil, store.ErrUnavailable
		}
	}, 10*time.Millisecond, func(error) { failures.Add(1) })
	defer l.Close()

	if l.Dialect() != store.SQLite {
		t.Errorf("Dialect() = %q before opening, want %q", l.Dialect(), store.SQLite)
	}
	for name, call := range map[string]func() error{
		"Ping":      func() error { return l.Ping(ctx) },
		"KeyByHash": func() error { _, err := l.KeyByHash(ctx, "h"); return err },
		"CreateKey": func() error { _, err := l.CreateKey(ctx, "alice", "h", "tc_abcd", time.Now()); return err },
	} {
		if err := call(); !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s before the database opened returned %v, want ErrUnavailable", name, err)
		}
	}
	for failures.Load() < 2 {
		time.Sleep(5 * time.Millisecond)
	}

	close(reachable)
	deadline := time.Now().Add(5 * time.Second)
	for !l.Open() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !l.Open() {
		t.Fatalf("the store did not open within 5 s of the database becoming reachable (%d attempts)", attempts.Load())
	}
	if err := l.Ping(ctx); err != nil {
		t.Errorf("Ping after opening failed: %v", err)
	}
	if _, err := l.CreateKey(ctx, "alice", "h", "tc_abcd", time.Now()); err != nil {
		t.Errorf("CreateKey after opening failed: %v", err)
	}
	n := attempts.Load()
	time.Sleep(50 * time.Millisecond)
	if attempts.Load() != n {
		t.Errorf("OpenLater kept trying after it opened the store")
	}
}

func TestOpenLaterStopsTryingOnClose(t *testing.T) {
	var attempts atomic.Int32
	l := store.OpenLater(store.Postgres, func(context.Context) (store.Store, error) {
		attempts.Add(1)
		return nil, store.ErrUnavailable
	}, time.Millisecond, nil)
	time.Sleep(20 * time.Millisecond)
	if err := l.Close(); err != nil {
		t.Errorf("Close of a store never opened returned %v", err)
	}
	n := attempts.Load()
	time.Sleep(20 * time.Millisecond)
	if attempts.Load() != n || n == 0 {
		t.Errorf("attempts went from %d to %d after Close; want some before and none after", n, attempts.Load())
	}
}
