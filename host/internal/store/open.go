package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// DefaultFile is the name of the SQLite database Open creates in the data directory when
// no DSN is given.
const DefaultFile = "tracecraft.db"

// Dialect names, as implementations register under them.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// OpenFunc opens a store of one dialect: for SQLite, target is a file path; for
// PostgreSQL, a postgres:// URL.
type OpenFunc func(ctx context.Context, target string) (Store, error)

var (
	openersMu sync.RWMutex
	openers   = map[string]OpenFunc{}
)

// Register makes a dialect available to Open. The sqlite and postgres packages call it
// from init, the way database/sql drivers register: the implementations import this
// package for its types, so this package cannot import them.
func Register(dialect string, open OpenFunc) {
	openersMu.Lock()
	defer openersMu.Unlock()
	if _, dup := openers[dialect]; dup {
		panic("store: Register called twice for dialect " + dialect)
	}
	openers[dialect] = open
}

// Open opens the store a DSN names and creates or migrates its schema:
//
//	""                   the SQLite file <dataDir>/tracecraft.db, creating dataDir
//	"sqlite:PATH"        the SQLite file PATH
//	"postgres://..."     PostgreSQL (also "postgresql://...")
//
// The dialect's package must be linked in, e.g. with
// import _ "github.com/tracecraft/tracecraft/host/internal/store/sqlite".
func Open(ctx context.Context, dsn, dataDir string) (Store, error) {
	dialect, target, err := parseDSN(dsn, dataDir)
	if err != nil {
		return nil, err
	}
	openersMu.RLock()
	open := openers[dialect]
	openersMu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("store: no %s implementation linked in; import _ \"github.com/tracecraft/tracecraft/host/internal/store/%s\"", dialect, dialect)
	}
	if dsn == "" {
		// 0o700: the database holds key hashes and usage, nothing for other users.
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("store: create data directory: %w", err)
		}
	}
	return open(ctx, target)
}

// parseDSN returns the dialect and its target for a DSN, as Open documents.
func parseDSN(dsn, dataDir string) (dialect, target string, err error) {
	switch {
	case dsn == "":
		if dataDir == "" {
			return "", "", fmt.Errorf("store: no DSN and no data directory given")
		}
		return SQLite, filepath.Join(dataDir, DefaultFile), nil
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" {
			return "", "", fmt.Errorf("store: DSN %q names no file; write sqlite:PATH", dsn)
		}
		return SQLite, path, nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return Postgres, dsn, nil
	}
	scheme, _, _ := strings.Cut(dsn, ":")
	// Only the scheme is quoted: the rest may hold a password.
	return "", "", fmt.Errorf("store: unknown DSN scheme %q; use sqlite:PATH or a postgres:// URL", scheme)
}
