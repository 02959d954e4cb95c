package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/store/postgres"
	"github.com/tracecraft/tracecraft/host/internal/store/postgres/pgtest"
	"github.com/tracecraft/tracecraft/host/internal/store/storetest"
)

func openFresh(t *testing.T) store.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), pgtest.FreshSchema(t))
	if err != nil {
		t.Fatalf("Open failed: %v", err)
	}
	// Cleanups run last-in first-out: the store closes before its schema is dropped.
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	pgtest.Require(t) // skips (or fails in CI) once, not in every test of the suite
	storetest.Run(t, openFresh)
}

func TestStoreOpenDispatchesPostgresURLs(t *testing.T) {
	dsn := pgtest.FreshSchema(t)
	for _, d := range []string{dsn, "postgresql://" + strings.TrimPrefix(dsn, "postgres://")} {
		s, err := store.Open(context.Background(), d, t.TempDir())
		if err != nil {
			t.Fatalf("store.Open(%s) failed: %v", pgtest.Redact(d), err)
		}
		if _, ok := s.(*postgres.Store); !ok {
			t.Errorf("store.Open(%s) returned a %T, want *postgres.Store", pgtest.Redact(d), s)
		}
		s.Close()
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.FreshSchema(t)
	at := time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	k, err := s.CreateKey(ctx, "alice", "h", "tc_abcd", at)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RecordRequest(ctx, k.ID, store.Request{Status: 404, InputBytes: 5, At: at}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for range 2 {
		s, err = postgres.Open(ctx, dsn)
		if err != nil {
			t.Fatalf("reopening failed: %v", err)
		}
		u, err := s.Usage(ctx, k.ID, "2024-03-09", "2024-03-09")
		if err != nil || len(u) != 1 || u[0].Failures[404] != 1 || u[0].InputBytes != 5 {
			t.Errorf("after reopening Usage is %+v, %v; want 1 failure with status 404 and 5 input bytes", u, err)
		}
		s.Close()
	}
}

func TestOpenRefusesANewerSchema(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.FreshSchema(t)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	pgtest.Exec(t, dsn, "UPDATE schema_version SET version = 999")
	if s, err := postgres.Open(ctx, dsn); err == nil {
		s.Close()
		t.Errorf("Open of a database with schema version 999 succeeded, want an error")
	}
}

func TestConcurrentOpensOfAnEmptySchemaAllSucceed(t *testing.T) {
	dsn := pgtest.FreshSchema(t)
	storetest.ConcurrentOpens(t, 6, func(ctx context.Context) (store.Store, error) { return postgres.Open(ctx, dsn) })
}

func TestOpenOfAnUnreachableServerFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Port 1 on loopback refuses connections at once.
	s, err := postgres.Open(ctx, "postgres://postgres:secret@127.0.0.1:1/test?sslmode=disable&connect_timeout=2")
	if err == nil {
		s.Close()
		t.Fatal("Open of an unreachable server succeeded, want an error")
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows the password: %v", err)
	}
}

func TestStoreFailsFastWhileTheServerIsUnreachableAndRecovers(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.FreshSchema(t)
	proxy := pgtest.NewProxy(t, dsn)
	s, err := postgres.Open(ctx, pgtest.WithHost(t, dsn, proxy.Addr))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)
	k, err := s.CreateKey(ctx, "alice", "h", "tc_abcd", at)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping of a reachable server failed: %v", err)
	}

	proxy.Cut()
	calls := []struct {
		name string
		call func() error
	}{
		{"Ping", func() error { return s.Ping(ctx) }},
		{"KeyByHash", func() error { _, err := s.KeyByHash(ctx, "h"); return err }},
		{"RecordRequest", func() error { return s.RecordRequest(ctx, k.ID, store.Request{Status: 200, At: at}) }},
	}
	for _, c := range calls {
		start := time.Now()
		err := c.call()
		if err == nil || errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s with the server unreachable returned %v, want a connection error", c.name, err)
		}
		if d := time.Since(start); d > postgres.OpTimeout+time.Second {
			t.Errorf("%s with the server unreachable took %v, want at most OpTimeout (%v)", c.name, d, postgres.OpTimeout)
		}
	}

	proxy.Restore(t)
	// The first calls after the outage succeed: no dead pooled connection is used.
	for _, c := range calls {
		if err := c.call(); err != nil {
			t.Errorf("%s after the server came back failed: %v", c.name, err)
		}
	}
	u, err := s.Usage(ctx, k.ID, "2024-03-09", "2024-03-09")
	if err != nil || len(u) != 1 || u[0].Requests != 1 {
		t.Errorf("Usage after the outage is %+v, %v; want the one request recorded after it", u, err)
	}
}

func TestDialectIsPostgres(t *testing.T) {
	if got := openFresh(t).Dialect(); got != store.Postgres {
		t.Errorf("Dialect() = %q, want %q", got, store.Postgres)
	}
}

func TestOpenOfAnUnreachableServerWrapsErrUnavailable(t *testing.T) {
	s, err := postgres.Open(context.Background(), "postgres://postgres@127.0.0.1:1/test?sslmode=disable")
	if err == nil {
		s.Close()
		t.Fatal("Open of an unreachable server succeeded")
	}
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Open of an unreachable server returned %v, want an error wrapping store.ErrUnavailable", err)
	}
}

func TestOpenOfANewerSchemaIsNotUnavailable(t *testing.T) {
	dsn := pgtest.FreshSchema(t)
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	pgtest.Exec(t, dsn, "UPDATE schema_version SET version = 999")
	if _, err := postgres.Open(context.Background(), dsn); err == nil || errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Open of a newer schema returned %v, want an error that is not ErrUnavailable (retrying cannot fix it)", err)
	}
}
