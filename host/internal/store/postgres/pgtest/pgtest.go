// Package pgtest gives tests a PostgreSQL database or schema of their own on the server
// that $TRACECRAFT_TEST_POSTGRES names, so that packages testing in parallel never see
// each other's rows. When the server cannot be reached a test is skipped, or failed when
// the CI environment variable is set: CI must not pass without PostgreSQL.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN is the environment variable naming the test server.
const EnvDSN = "TRACECRAFT_TEST_POSTGRES"

// DefaultDSN is the test server when EnvDSN is empty: the one on this machine.
const DefaultDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// ServerDSN returns the test server's DSN: $TRACECRAFT_TEST_POSTGRES or DefaultDSN.
func ServerDSN() string {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return dsn
	}
	return DefaultDSN
}

var (
	reachOnce sync.Once
	reachErr  error
)

// Reachable returns nil if the test server accepts a connection and answers a ping. It
// asks once per process and remembers the answer.
func Reachable() error {
	reachOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, ServerDSN())
		if err == nil {
			err = c.Ping(ctx)
			c.Close(ctx)
		}
		reachErr = err
	})
	return reachErr
}

// Unreachable returns the sentence explaining that the server cannot be reached.
func Unreachable(err error) string {
	return fmt.Sprintf("PostgreSQL is not reachable at %s (set %s to another server): %v", Redact(ServerDSN()), EnvDSN, err)
}

// Require returns the test server's DSN. If the server cannot be reached it skips the
// test, or fails it when $CI is set.
func Require(tb testing.TB) string {
	tb.Helper()
	if err := Reachable(); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatal(Unreachable(err))
		}
		tb.Skip(Unreachable(err))
	}
	return ServerDSN()
}

// Redact hides the password of a URL DSN.
func Redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		return u.Redacted()
	}
	return dsn
}

// uniqueName returns prefix and 12 random hex digits: a valid unquoted SQL identifier.
func uniqueName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// FreshSchema creates a uniquely named schema in the test database, dropped when the
// test ends, and returns a DSN whose search_path puts a store's tables in it.
func FreshSchema(tb testing.TB) string {
	tb.Helper()
	dsn := Require(tb)
	schema := uniqueName("tc_test_")
	Exec(tb, dsn, "CREATE SCHEMA "+schema)
	tb.Cleanup(func() { Exec(tb, dsn, "DROP SCHEMA "+schema+" CASCADE") })
	return WithParam(dsn, "search_path", schema)
}

// FreshDatabase creates a uniquely named, empty database on the test server, dropped
// (with its connections ended) when the test ends, and returns its DSN. Tests that run
// several host processes use one, so that nothing else on the server shares its tables.
func FreshDatabase(tb testing.TB) string {
	tb.Helper()
	dsn := Require(tb)
	name := uniqueName("tc_test_")
	Exec(tb, dsn, "CREATE DATABASE "+name)
	tb.Cleanup(func() { Exec(tb, dsn, "DROP DATABASE "+name+" WITH (FORCE)") })
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return u.String()
	}
	return dsn + " dbname=" + name
}

// WithParam returns dsn with the connection parameter key set to value.
func WithParam(dsn, key, value string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set(key, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " " + key + "=" + value
}

// WithHost returns the URL dsn with its host and port replaced by hostport, as a test
// does to reach the server through a proxy.
func WithHost(tb testing.TB, dsn, hostport string) string {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil || !strings.HasPrefix(u.Scheme, "postgres") {
		tb.Fatalf("%s is not a postgres:// URL", Redact(dsn))
	}
	u.Host = hostport
	return u.String()
}

// Exec runs one statement on its own connection to dsn.
func Exec(tb testing.TB, dsn, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("connect to %s: %v", Redact(dsn), err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}
