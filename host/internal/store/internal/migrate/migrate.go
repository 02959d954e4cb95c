// Package migrate reads a dialect's embedded schema migrations and applies them through
// a small interface each dialect implements on a transaction that holds its database's
// write lock, recording the version reached in a schema_version table.
package migrate

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Step is one migration: the SQL that takes the schema from Version-1 to Version.
type Step struct {
	Version int
	Name    string
	SQL     string
}

// Load returns the migrations in fsys's root, named "NNNN_what.sql", ordered by version.
// Versions must run 1, 2, 3, ... without gaps, so a missing file cannot be skipped
// silently.
func Load(fsys fs.FS) ([]Step, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	steps := make([]Step, 0, len(names))
	for _, name := range names {
		num, _, ok := strings.Cut(path.Base(name), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("migrate: %s: name must be NNNN_what.sql", name)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		steps = append(steps, Step{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i].Version < steps[j].Version })
	for i, s := range steps {
		if s.Version != i+1 {
			return nil, fmt.Errorf("migrate: %s: expected version %d", s.Name, i+1)
		}
	}
	return steps, nil
}

// Latest returns the version the steps lead to.
func Latest(steps []Step) int { return len(steps) }

// Tx is a dialect's transaction, holding the database's write lock.
type Tx interface {
	// Exec runs a statement without arguments.
	Exec(ctx context.Context, sql string) error
	// Version returns COALESCE(MAX(version), 0) from schema_version.
	Version(ctx context.Context) (int, error)
}

// Apply loads the migrations in fsys and applies those the database lacks in tx, then
// records the version reached. It refuses a database newer than the migrations.
func Apply(ctx context.Context, tx Tx, fsys fs.FS) error {
	steps, err := Load(fsys)
	if err != nil {
		return err
	}
	if err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_version: %w", err)
	}
	v, err := tx.Version(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > Latest(steps) {
		return fmt.Errorf("schema version %d is newer than this program's %d; upgrade the program", v, Latest(steps))
	}
	for _, s := range steps[v:] {
		if err := tx.Exec(ctx, s.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", s.Name, err)
		}
	}
	if err := tx.Exec(ctx, `DELETE FROM schema_version`); err != nil {
		return err
	}
	return tx.Exec(ctx, `INSERT INTO schema_version (version) VALUES (`+strconv.Itoa(Latest(steps))+`)`)
}
