// Package sqlite implements store.Store on a SQLite file with the pure-Go
// modernc.org/sqlite driver, so that a running server and the keys CLI can share the
// file at the same time. Importing it registers the "sqlite" dialect with store.Open.
//
// The file is in WAL mode: readers never block the writer nor each other, and every read
// sees the latest commit, of this process or another. Every write transaction begins with
// BEGIN IMMEDIATE, taking the database's write lock before it reads anything, so two
// writers never both hold a read snapshot and deadlock upgrading it; a writer waits for
// the lock up to the busy timeout. synchronous=NORMAL is the documented trade-off of WAL
// mode: a commit survives a crash of the process, but the last commits before a power
// loss or OS crash may be rolled back (the database stays consistent).
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/store/internal/migrate"

	msqlite "modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// BusyTimeout is how long a statement waits for a lock another connection or process
// holds before failing with "database is locked".
const BusyTimeout = 5 * time.Second

// readers is the size of the pool of read-only connections; reads run in parallel under
// WAL, writes are serialized by SQLite anyway.
const readers = 4

//go:embed migrations/*.sql
var migrations embed.FS

func init() {
	store.Register(store.SQLite, func(ctx context.Context, path string) (store.Store, error) {
		return Open(ctx, path)
	})
}

// Store is a store.Store on one SQLite file.
type Store struct {
	// w holds the single write connection of this process: writers of one process
	// queue in database/sql, where waiting honours the context, rather than in SQLite's
	// busy handler, which polls; the busy timeout only arbitrates between processes.
	w *sql.DB
	// r holds read-only connections.
	r *sql.DB
}

var _ store.Store = (*Store)(nil)

// Open opens or creates the SQLite database at path and creates or migrates its schema.
// Several processes may open the same file at once.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || strings.ContainsRune(path, '?') {
		// The driver reads everything after '?' as connection parameters.
		return nil, fmt.Errorf("sqlite: invalid database path %q", path)
	}
	busy := fmt.Sprint(BusyTimeout.Milliseconds())
	w, err := sql.Open("sqlite", path+"?_txlock=immediate&_busy_timeout="+busy+
		"&_synchronous=NORMAL&_foreign_keys=1")
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	if err := useWAL(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	if err := migrateSchema(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	// The read pool opens after the migration, when the file is in WAL mode.
	r, err := sql.Open("sqlite", path+"?_busy_timeout="+busy+"&_foreign_keys=1&_query_only=1")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	return &Store{w: w, r: r}, nil
}

// useWAL puts the database file in WAL mode (a persistent setting of the file). SQLite
// answers SQLITE_BUSY at once, without waiting in the busy handler, when another
// connection converts the same new file at that moment, so the conversion is retried
// until it succeeds or BusyTimeout passes.
func useWAL(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(BusyTimeout)
	wait := time.Millisecond
	for {
		var mode string
		err := db.QueryRowContext(ctx, `PRAGMA journal_mode=WAL`).Scan(&mode)
		switch {
		case err == nil && strings.EqualFold(mode, "wal"):
			return nil
		case err == nil:
			return fmt.Errorf("journal mode is %q after asking for WAL", mode)
		case !isBusy(err) || time.Now().After(deadline):
			return fmt.Errorf("setting WAL mode: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY, primary or extended code.
func isBusy(err error) bool {
	var e *msqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

// migrateSchema applies the embedded migrations the database lacks, in one transaction
// that holds the write lock, so a process opening the file at the same time waits and
// then finds the schema current.
func migrateSchema(ctx context.Context, db *sql.DB) error {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	return write(ctx, db, func(tx *sql.Tx) error { return migrate.Apply(ctx, sqlTx{tx}, sub) })
}

// sqlTx adapts a database/sql transaction to migrate.Tx.
type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, q string) error {
	_, err := t.tx.ExecContext(ctx, q)
	return err
}

func (t sqlTx) Version(ctx context.Context) (v int, err error) {
	err = t.tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v)
	return v, err
}

// write runs fn in a transaction begun with BEGIN IMMEDIATE (the _txlock DSN option) and
// commits it if fn returns nil.
func write(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

const keyColumns = `id, name, prefix, created_at, last_used_at, revoked_at`

// scanKey reads a row of keyColumns.
func scanKey(row interface{ Scan(...any) error }) (store.Key, error) {
	var k store.Key
	var created int64
	var used, revoked sql.NullInt64
	if err := row.Scan(&k.ID, &k.Name, &k.Prefix, &created, &used, &revoked); err != nil {
		return store.Key{}, err
	}
	k.CreatedAt = fromMicros(created)
	if used.Valid {
		k.LastUsedAt = fromMicros(used.Int64)
	}
	if revoked.Valid {
		k.RevokedAt = fromMicros(revoked.Int64)
	}
	return k, nil
}

// Times are stored as Unix microseconds: integers compare and MAX() correctly, and
// microseconds are what PostgreSQL keeps too, so both stores round alike.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// CreateKey implements store.Store.
func (s *Store) CreateKey(ctx context.Context, name, hash, prefix string, at time.Time) (store.Key, error) {
	if err := store.CheckNewKey(name, hash, prefix); err != nil {
		return store.Key{}, err
	}
	var k store.Key
	err := write(ctx, s.w, func(tx *sql.Tx) error {
		var err error
		k, err = scanKey(tx.QueryRowContext(ctx,
			`INSERT INTO keys (name, hash, prefix, created_at) VALUES (?, ?, ?, ?)
			 ON CONFLICT (name) DO NOTHING RETURNING `+keyColumns,
			name, hash, prefix, micros(at)))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return store.Key{}, fmt.Errorf("sqlite: create key %q: %w", name, store.ErrNameTaken)
	}
	if err != nil {
		return store.Key{}, fmt.Errorf("sqlite: create key %q: %w", name, err)
	}
	return k, nil
}

// KeyByHash implements store.Store.
func (s *Store) KeyByHash(ctx context.Context, hash string) (store.Key, error) {
	k, err := scanKey(s.r.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM keys WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Key{}, store.ErrNotFound
	}
	if err != nil {
		return store.Key{}, fmt.Errorf("sqlite: key by hash: %w", err)
	}
	return k, nil
}

// ListKeys implements store.Store.
func (s *Store) ListKeys(ctx context.Context) ([]store.Key, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+keyColumns+` FROM keys ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list keys: %w", err)
	}
	defer rows.Close()
	keys := []store.Key{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list keys: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list keys: %w", err)
	}
	return keys, nil
}

// RevokeKey implements store.Store.
func (s *Store) RevokeKey(ctx context.Context, name string, at time.Time) (store.Key, error) {
	var k store.Key
	err := write(ctx, s.w, func(tx *sql.Tx) error {
		var err error
		k, err = scanKey(tx.QueryRowContext(ctx,
			`UPDATE keys SET revoked_at = COALESCE(revoked_at, ?) WHERE name = ? RETURNING `+keyColumns,
			micros(at), name))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return store.Key{}, fmt.Errorf("sqlite: revoke key %q: %w", name, store.ErrNotFound)
	}
	if err != nil {
		return store.Key{}, fmt.Errorf("sqlite: revoke key %q: %w", name, err)
	}
	return k, nil
}

// RecordRequest implements store.Store. The three statements run in one IMMEDIATE
// transaction, and each adds to the stored counts in SQL (x = x + excluded.x) rather
// than writing back a value read earlier, so no increment can be lost.
func (s *Store) RecordRequest(ctx context.Context, keyID int64, r store.Request) error {
	r, err := r.Normalized()
	if err != nil {
		return err
	}
	success, cancelled := r.Outcome()
	err = write(ctx, s.w, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE keys SET last_used_at = MAX(COALESCE(last_used_at, ?1), ?1) WHERE id = ?2`,
			micros(r.At), keyID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return store.ErrNotFound
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO usage_days (key_id, day, requests, successes, cancelled, input_bytes, output_bytes, pixels, engine_ms)
			 VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (key_id, day) DO UPDATE SET
			   requests     = requests     + excluded.requests,
			   successes    = successes    + excluded.successes,
			   cancelled    = cancelled    + excluded.cancelled,
			   input_bytes  = input_bytes  + excluded.input_bytes,
			   output_bytes = output_bytes + excluded.output_bytes,
			   pixels       = pixels       + excluded.pixels,
			   engine_ms    = engine_ms    + excluded.engine_ms`,
			keyID, r.Day, success, cancelled, r.InputBytes, r.OutputBytes, r.Pixels, r.EngineMillis); err != nil {
			return err
		}
		if success == 0 && cancelled == 0 {
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO usage_failures (key_id, day, status, count) VALUES (?, ?, ?, 1)
				 ON CONFLICT (key_id, day, status) DO UPDATE SET count = count + excluded.count`,
				keyID, r.Day, r.Status); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: record request of key %d: %w", keyID, err)
	}
	return nil
}

// Usage implements store.Store. One SELECT reads the days and their failures from the
// same snapshot, so Requests always equals Successes plus Cancelled plus the failures.
func (s *Store) Usage(ctx context.Context, keyID int64, from, to string) ([]store.Usage, error) {
	if err := store.ValidRange(from, to); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx,
		`SELECT d.day, d.requests, d.successes, d.cancelled, d.input_bytes, d.output_bytes, d.pixels, d.engine_ms, f.status, f.count
		 FROM usage_days d
		 LEFT JOIN usage_failures f ON f.key_id = d.key_id AND f.day = d.day
		 WHERE d.key_id = ? AND d.day BETWEEN ? AND ?
		 ORDER BY d.day, f.status`,
		keyID, from, to)
	if err != nil {
		return nil, fmt.Errorf("sqlite: usage of key %d: %w", keyID, err)
	}
	defer rows.Close()
	days := []store.Usage{}
	for rows.Next() {
		var u store.Usage
		var status, count sql.NullInt64
		if err := rows.Scan(&u.Day, &u.Requests, &u.Successes, &u.Cancelled, &u.InputBytes, &u.OutputBytes, &u.Pixels, &u.EngineMillis, &status, &count); err != nil {
			return nil, fmt.Errorf("sqlite: usage of key %d: %w", keyID, err)
		}
		days = store.AppendUsageRow(days, u, status.Valid, int(status.Int64), count.Int64)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: usage of key %d: %w", keyID, err)
	}
	if len(days) == 0 {
		if err := s.r.QueryRowContext(ctx, `SELECT 1 FROM keys WHERE id = ?`, keyID).Scan(new(int)); errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("sqlite: usage of key %d: %w", keyID, store.ErrNotFound)
		} else if err != nil {
			return nil, fmt.Errorf("sqlite: usage of key %d: %w", keyID, err)
		}
	}
	return days, nil
}

// Dialect implements store.Store.
func (s *Store) Dialect() string { return store.SQLite }

// Ping implements store.Store: a query on the read pool, which finds a file that was
// removed or became unreadable.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_version`).Scan(new(int)); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	return nil
}

// Close closes both connection pools.
func (s *Store) Close() error {
	return errors.Join(s.w.Close(), s.r.Close())
}
