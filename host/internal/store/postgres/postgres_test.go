package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/store/postgres"
	"github.com/tracecraft/tracecraft/host/internal/store/storetest"
)

// defaultDSN is the server the tests use unless TRACECRAFT_TEST_POSTGRES names another.
const defaultDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

var (
	reachOnce sync.Once
	reachErr  error
)

// serverDSN returns the test server's DSN, skipping the test if the server cannot be
// reached, or failing it when the CI environment variable is set.
func serverDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("TRACECRAFT_TEST_POSTGRES")
	if dsn == "" {
		dsn = defaultDSN
	}
	reachOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, dsn)
		if err == nil {
			err = c.Ping(ctx)
			c.Close(ctx)
		}
		reachErr = err
	})
	if reachErr != nil {
		msg := "PostgreSQL is not reachable at " + redact(dsn) + " (set TRACECRAFT_TEST_POSTGRES to another server): " + reachErr.Error()
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dsn
}

// redact hides the password of a URL DSN.
func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		return u.Redacted()
	}
	return dsn
}

// freshSchema creates a uniquely named schema, dropped when the test ends, and returns a
// DSN whose search_path puts the store's tables in it.
func freshSchema(t *testing.T) string {
	t.Helper()
	dsn := serverDSN(t)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "tc_test_" + hex.EncodeToString(b)
	admin(t, dsn, "CREATE SCHEMA "+schema)
	t.Cleanup(func() { admin(t, dsn, "DROP SCHEMA "+schema+" CASCADE") })
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}

// admin runs one statement on its own connection.
func admin(t *testing.T, dsn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", redact(dsn), err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func openFresh(t *testing.T) store.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), freshSchema(t))
	if err != nil {
		t.Fatalf("Open failed: %v", err)
	}
	// Cleanups run last-in first-out: the store closes before its schema is dropped.
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	serverDSN(t) // skips (or fails in CI) once, not in every test of the suite
	storetest.Run(t, openFresh)
}

func TestStoreOpenDispatchesPostgresURLs(t *testing.T) {
	dsn := freshSchema(t)
	for _, d := range []string{dsn, "postgresql://" + strings.TrimPrefix(dsn, "postgres://")} {
		s, err := store.Open(context.Background(), d, t.TempDir())
		if err != nil {
			t.Fatalf("store.Open(%s) failed: %v", redact(d), err)
		}
		if _, ok := s.(*postgres.Store); !ok {
			t.Errorf("store.Open(%s) returned a %T, want *postgres.Store", redact(d), s)
		}
		s.Close()
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	dsn := freshSchema(t)
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
	dsn := freshSchema(t)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	admin(t, dsn, "UPDATE schema_version SET version = 999")
	if s, err := postgres.Open(ctx, dsn); err == nil {
		s.Close()
		t.Errorf("Open of a database with schema version 999 succeeded, want an error")
	}
}

func TestConcurrentOpensOfAnEmptySchemaAllSucceed(t *testing.T) {
	dsn := freshSchema(t)
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			s, err := postgres.Open(context.Background(), dsn)
			if err == nil {
				_, err = s.ListKeys(context.Background())
				s.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a concurrent Open failed: %v", err)
		}
	}
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
