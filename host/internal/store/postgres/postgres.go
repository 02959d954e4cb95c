// Package postgres implements store.Store on PostgreSQL with pgx. Importing it registers
// the "postgres" dialect with store.Open.
//
// Tables live in the first schema of the connection's search_path, which a DSN may set
// (postgres://...?search_path=tracecraft). Counts are added in SQL with
// INSERT ... ON CONFLICT DO UPDATE SET x = x + excluded.x, so concurrent requests, from
// any number of processes, are all counted; RecordRequest is one statement (see
// recordSQL) that first updates the key's row, which serializes the requests of one key
// and fixes the order locks are taken in, so its writes never deadlock.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/store/internal/migrate"
)

// PoolSize is the most connections one Store opens.
const PoolSize = 8

// ConnectTimeout bounds opening a connection when the DSN sets no connect_timeout, so
// that a database host that has gone silent fails requests quickly rather than holding
// them.
const ConnectTimeout = 3 * time.Second

// OpTimeout bounds every call of a Store but Open, waiting for a connection included:
// when the database is unreachable, callers get an error within it, whatever their own
// context allows. (Open's migration may wait longer for another process's.)
const OpTimeout = 5 * time.Second

// migrationLock is the pg_advisory_xact_lock key that serializes schema migrations of
// processes opening the database at once ("tracecraft" in ASCII, truncated).
const migrationLock int64 = 0x7472616365637261

//go:embed migrations/*.sql
var migrations embed.FS

func init() {
	store.Register(store.Postgres, func(ctx context.Context, dsn string) (store.Store, error) {
		return Open(ctx, dsn)
	})
}

// Store is a store.Store on a PostgreSQL database.
type Store struct {
	pool *pool
}

var _ store.Store = (*Store)(nil)

// Open connects to the database a postgres:// URL (or key=value DSN) names and creates
// or migrates the schema. Several processes may open the same database at once. If the
// server cannot be reached, the error wraps store.ErrUnavailable.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's parse errors leave the password out.
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = ConnectTimeout
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "tracecraft"
	}
	s := &Store{pool: newPool(cfg, PoolSize)}
	if err := s.pool.with(ctx, migrateSchema(ctx)); err != nil {
		s.pool.close()
		if unreachable(err) {
			return nil, fmt.Errorf("postgres: %w: %w", store.ErrUnavailable, err)
		}
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return s, nil
}

// unreachable reports whether err is a failure to reach the server (refused, timed out,
// cut off) rather than one the server answered with.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF)
}

// migrateSchema applies the embedded migrations the database lacks, in one transaction
// holding an advisory lock, so a process opening the database at the same time waits and
// then finds the schema current.
func migrateSchema(ctx context.Context) func(*pgx.Conn) error {
	return func(c *pgx.Conn) error {
		sub, err := fs.Sub(migrations, "migrations")
		if err != nil {
			return err
		}
		return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
				return fmt.Errorf("lock for migration: %w", err)
			}
			return migrate.Apply(ctx, pgTx{tx}, sub)
		})
	}
}

// pgTx adapts a pgx transaction to migrate.Tx.
type pgTx struct{ tx pgx.Tx }

func (t pgTx) Exec(ctx context.Context, q string) error {
	_, err := t.tx.Exec(ctx, q)
	return err
}

func (t pgTx) Version(ctx context.Context) (v int, err error) {
	err = t.tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v)
	return v, err
}

// do runs fn on a pooled connection, within OpTimeout.
func (s *Store) do(ctx context.Context, fn func(context.Context, *pgx.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	return s.pool.with(ctx, func(c *pgx.Conn) error { return fn(ctx, c) })
}

// Dialect implements store.Store.
func (s *Store) Dialect() string { return store.Postgres }

// Ping implements store.Store: one round trip on a pooled connection, which proves the
// server reachable and the pool able to connect.
func (s *Store) Ping(ctx context.Context) error {
	err := s.do(ctx, func(ctx context.Context, c *pgx.Conn) error { return c.Ping(ctx) })
	if err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

const keyColumns = `id, name, prefix, created_at, last_used_at, revoked_at`

// scanKey reads a row of keyColumns.
func scanKey(row pgx.Row) (store.Key, error) {
	var k store.Key
	var used, revoked *time.Time
	if err := row.Scan(&k.ID, &k.Name, &k.Prefix, &k.CreatedAt, &used, &revoked); err != nil {
		return store.Key{}, err
	}
	k.CreatedAt = k.CreatedAt.UTC()
	if used != nil {
		k.LastUsedAt = used.UTC()
	}
	if revoked != nil {
		k.RevokedAt = revoked.UTC()
	}
	return k, nil
}

// date returns the date column value of a valid day.
func date(day string) time.Time {
	t, _ := time.Parse(store.DayLayout, day)
	return t
}

// CreateKey implements store.Store.
func (s *Store) CreateKey(ctx context.Context, name, hash, prefix string, at time.Time) (store.Key, error) {
	if err := store.CheckNewKey(name, hash, prefix); err != nil {
		return store.Key{}, err
	}
	var k store.Key
	err := s.do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		var err error
		// A concurrent insert of the same name makes ON CONFLICT wait for it, then do
		// nothing: exactly one creation wins.
		k, err = scanKey(c.QueryRow(ctx,
			`INSERT INTO keys (name, hash, prefix, created_at) VALUES ($1, $2, $3, $4)
			 ON CONFLICT (name) DO NOTHING RETURNING `+keyColumns,
			name, hash, prefix, at))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Key{}, fmt.Errorf("postgres: create key %q: %w", name, store.ErrNameTaken)
	}
	if err != nil {
		return store.Key{}, fmt.Errorf("postgres: create key %q: %w", name, err)
	}
	return k, nil
}

// KeyByHash implements store.Store.
func (s *Store) KeyByHash(ctx context.Context, hash string) (store.Key, error) {
	var k store.Key
	err := s.do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		var err error
		k, err = scanKey(c.QueryRow(ctx, `SELECT `+keyColumns+` FROM keys WHERE hash = $1`, hash))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Key{}, store.ErrNotFound
	}
	if err != nil {
		return store.Key{}, fmt.Errorf("postgres: key by hash: %w", err)
	}
	return k, nil
}

// ListKeys implements store.Store. COLLATE "C" orders bytewise, as SQLite does,
// whatever the database's locale.
func (s *Store) ListKeys(ctx context.Context) ([]store.Key, error) {
	keys := []store.Key{}
	err := s.do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT `+keyColumns+` FROM keys ORDER BY name COLLATE "C"`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			k, err := scanKey(rows)
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list keys: %w", err)
	}
	return keys, nil
}

// RevokeKey implements store.Store.
func (s *Store) RevokeKey(ctx context.Context, name string, at time.Time) (store.Key, error) {
	var k store.Key
	err := s.do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		var err error
		k, err = scanKey(c.QueryRow(ctx,
			`UPDATE keys SET revoked_at = COALESCE(revoked_at, $1) WHERE name = $2 RETURNING `+keyColumns,
			at, name))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Key{}, fmt.Errorf("postgres: revoke key %q: %w", name, store.ErrNotFound)
	}
	if err != nil {
		return store.Key{}, fmt.Errorf("postgres: revoke key %q: %w", name, err)
	}
	return k, nil
}

// recordSQL adds one request to a key's usage in one statement, so one round trip and
// one implicit transaction: it moves the key's last use forward (GREATEST ignores NULL,
// so a first use sets it), adds to the day's row, and, for a failure, to the day's row
// of its status ($4 is 1 for a success, $10 for a cancellation). Each step feeds the next, so they take their row locks in that order,
// always the key's first: writes of one key queue behind each other and never deadlock.
// It returns 0 for an unknown key, having written nothing.
const recordSQL = `
WITH k AS (
	UPDATE keys SET last_used_at = GREATEST(last_used_at, $2) WHERE id = $1 RETURNING id
), d AS (
	INSERT INTO usage_days AS d (key_id, day, requests, successes, cancelled, input_bytes, output_bytes, pixels, engine_ms)
	SELECT id, $3, 1, $4::bigint, $10::bigint, $5, $6, $7, $8 FROM k
	ON CONFLICT (key_id, day) DO UPDATE SET
		requests     = d.requests     + excluded.requests,
		successes    = d.successes    + excluded.successes,
		cancelled    = d.cancelled    + excluded.cancelled,
		input_bytes  = d.input_bytes  + excluded.input_bytes,
		output_bytes = d.output_bytes + excluded.output_bytes,
		pixels       = d.pixels       + excluded.pixels,
		engine_ms    = d.engine_ms    + excluded.engine_ms
	RETURNING key_id
), f AS (
	INSERT INTO usage_failures AS f (key_id, day, status, count)
	SELECT key_id, $3, $9, 1 FROM d WHERE $4::bigint = 0 AND $10::bigint = 0
	ON CONFLICT (key_id, day, status) DO UPDATE SET count = f.count + excluded.count
)
SELECT count(*) FROM k`

// RecordRequest implements store.Store.
func (s *Store) RecordRequest(ctx context.Context, keyID int64, r store.Request) error {
	r, err := r.Normalized()
	if err != nil {
		return err
	}
	success, cancelled := r.Outcome()
	var found int
	err = s.do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		return c.QueryRow(ctx, recordSQL, keyID, r.At, date(r.Day), success,
			r.InputBytes, r.OutputBytes, r.Pixels, r.EngineMillis, r.Status, cancelled).Scan(&found)
	})
	if err == nil && found == 0 {
		err = store.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres: record request of key %d: %w", keyID, err)
	}
	return nil
}

// Usage implements store.Store. One SELECT reads the days and their failures from the
// same snapshot, so Requests always equals Successes plus Cancelled plus the failures.
func (s *Store) Usage(ctx context.Context, keyID int64, from, to string) ([]store.Usage, error) {
	if err := store.ValidRange(from, to); err != nil {
		return nil, err
	}
	days := []store.Usage{}
	err := s.do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		rows, err := c.Query(ctx,
			`SELECT d.day, d.requests, d.successes, d.cancelled, d.input_bytes, d.output_bytes, d.pixels, d.engine_ms, f.status, f.count
			 FROM usage_days d
			 LEFT JOIN usage_failures f ON f.key_id = d.key_id AND f.day = d.day
			 WHERE d.key_id = $1 AND d.day BETWEEN $2 AND $3
			 ORDER BY d.day, f.status`,
			keyID, date(from), date(to))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var u store.Usage
			var day time.Time
			var status, count sql.NullInt64
			if err := rows.Scan(&day, &u.Requests, &u.Successes, &u.Cancelled, &u.InputBytes, &u.OutputBytes, &u.Pixels, &u.EngineMillis, &status, &count); err != nil {
				return err
			}
			u.Day = day.Format(store.DayLayout)
			days = store.AppendUsageRow(days, u, status.Valid, int(status.Int64), count.Int64)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(days) == 0 {
			var exists bool
			if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM keys WHERE id = $1)`, keyID).Scan(&exists); err != nil {
				return err
			}
			if !exists {
				return store.ErrNotFound
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: usage of key %d: %w", keyID, err)
	}
	return days, nil
}

// Close closes the connections.
func (s *Store) Close() error {
	s.pool.close()
	return nil
}
