// Package store persists API keys and their daily usage. It holds the domain types and
// the Store interface; the sqlite and postgres sub-packages implement it, and storetest
// is the suite both must pass.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sentinel errors a Store returns, possibly wrapped; test them with errors.Is.
var (
	// ErrNotFound means no key has the given name, hash or ID.
	ErrNotFound = errors.New("store: key not found")
	// ErrNameTaken means a key, active or revoked, already has the name.
	ErrNameTaken = errors.New("store: key name already taken")
)

// DayLayout is the layout of a usage day: a calendar date in UTC.
const DayLayout = "2006-01-02"

// MaxNameLen is the longest key name ValidName accepts.
const MaxNameLen = 64

// Key is an API key as stored: everything but the key itself, of which only a hash and a
// short prefix are kept.
type Key struct {
	// ID identifies the key in usage records; it is never reused.
	ID int64
	// Name is the operator's unique label for the key (see ValidName).
	Name string
	// Prefix is the first 7 characters of the key, such as "tc_AbCd": enough for a
	// person to tell keys apart, far too little to guess the rest, so safe to show.
	Prefix string
	// CreatedAt is when the key was created, in UTC.
	CreatedAt time.Time
	// LastUsedAt is the time of the latest recorded request, in UTC; zero if never used.
	LastUsedAt time.Time
	// RevokedAt is when the key was revoked, in UTC; zero while the key is active.
	RevokedAt time.Time
}

// Active reports whether the key has not been revoked.
func (k Key) Active() bool { return k.RevokedAt.IsZero() }

// Request is one finished request made with a key, as RecordRequest adds it to usage.
type Request struct {
	// Day is the usage day ("YYYY-MM-DD", UTC) the request counts towards. Empty means
	// the UTC day of At.
	Day string
	// Status is the HTTP status answered: 2xx counts as a success, StatusCancelled as
	// cancelled, any other as a failure under that status.
	Status int
	// InputBytes is the size of the uploaded file.
	InputBytes int64
	// OutputBytes is the size of the SVG returned (zero for failures).
	OutputBytes int64
	// Pixels is the number of pixels of the decoded image.
	Pixels int64
	// EngineMillis is the time the engine spent tracing, in milliseconds.
	EngineMillis int64
	// At is when the request finished; it becomes the key's LastUsedAt unless that is
	// already later. Required.
	At time.Time
}

// Normalized returns r with Day filled in from At when empty, or an error naming the
// first invalid field. Implementations call it before writing anything.
func (r Request) Normalized() (Request, error) {
	if r.At.IsZero() {
		return r, errors.New("store: request has no time (At)")
	}
	if r.Day == "" {
		r.Day = Day(r.At)
	} else if err := ValidDay(r.Day); err != nil {
		return r, err
	}
	if r.Status < 100 || r.Status > 599 {
		return r, fmt.Errorf("store: request status %d is not an HTTP status (100-599)", r.Status)
	}
	if r.InputBytes < 0 || r.OutputBytes < 0 || r.Pixels < 0 || r.EngineMillis < 0 {
		return r, fmt.Errorf("store: request amounts must not be negative: input %d, output %d, pixels %d, engine ms %d",
			r.InputBytes, r.OutputBytes, r.Pixels, r.EngineMillis)
	}
	return r, nil
}

// StatusCancelled is the status of a request whose client went away before its answer
// (nginx's 499, "client closed request"): its job was dropped from the queue or stopped
// in the engine, and it counts as cancelled, neither a success nor a failure.
const StatusCancelled = 499

// Success reports whether the status is 2xx.
func (r Request) Success() bool { return r.Status >= 200 && r.Status <= 299 }

// Cancelled reports whether the client went away before the answer.
func (r Request) Cancelled() bool { return r.Status == StatusCancelled }

// Outcome returns 1 for a success or a cancellation (success, cancelled) and 0 for the
// other; a request that is neither is a failure under its status.
func (r Request) Outcome() (success, cancelled int) {
	if r.Success() {
		return 1, 0
	}
	if r.Cancelled() {
		return 0, 1
	}
	return 0, 0
}

// Usage is the usage of one key on one day.
type Usage struct {
	// Day is the calendar day in UTC, "YYYY-MM-DD".
	Day string
	// Requests counts every recorded request: Successes plus Cancelled plus the sum of
	// Failures.
	Requests int64
	// Successes counts the requests answered with a 2xx status.
	Successes int64
	// Cancelled counts the requests whose client went away before the answer.
	Cancelled int64
	// Failures counts the other requests by HTTP status. Never nil.
	Failures map[int]int64
	// InputBytes, OutputBytes, Pixels and EngineMillis are sums over all requests.
	InputBytes   int64
	OutputBytes  int64
	Pixels       int64
	EngineMillis int64
}

// Store keeps API keys and their usage. Implementations are safe for concurrent use, and
// several processes may use the same database at once: nothing is cached, so a change
// made by one (a revocation, say) is seen by the next call of another.
type Store interface {
	// Dialect names the implementation: SQLite or Postgres.
	Dialect() string
	// Ping returns nil if the database answers a query, for health checks.
	Ping(ctx context.Context) error
	// CreateKey stores a new key under name with the hash and prefix of its secret. It
	// returns ErrNameTaken if a key of that name exists, revoked or not, and an error
	// from ValidName if the name is invalid.
	CreateKey(ctx context.Context, name, hash, prefix string, at time.Time) (Key, error)
	// KeyByHash returns the key whose secret has the hash, revoked keys included (the
	// caller checks Active), or ErrNotFound.
	KeyByHash(ctx context.Context, hash string) (Key, error)
	// ListKeys returns every key, revoked ones too, ordered by name (bytewise).
	ListKeys(ctx context.Context) ([]Key, error)
	// RevokeKey marks the named key revoked at the time given and returns it, or
	// ErrNotFound. Revoking a revoked key is not an error and keeps the first time.
	RevokeKey(ctx context.Context, name string, at time.Time) (Key, error)
	// RecordRequest atomically adds one request to the key's usage of the request's day
	// and moves the key's LastUsedAt forward to r.At. Concurrent calls, from any number
	// of goroutines or processes, are all counted exactly. It returns ErrNotFound for an
	// unknown key; a revoked key's requests are still recorded.
	RecordRequest(ctx context.Context, keyID int64, r Request) error
	// Usage returns the key's usage on the days from..to ("YYYY-MM-DD", inclusive) that
	// have any, in ascending order; days without requests are left out. It returns
	// ErrNotFound for an unknown key.
	Usage(ctx context.Context, keyID int64, from, to string) ([]Usage, error)
	// Close releases the database.
	Close() error
}

// CheckNewKey returns nil if a key can be created with name, hash and prefix: the name
// is valid and neither hash nor prefix is empty. Both stores check it before inserting.
func CheckNewKey(name, hash, prefix string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	if hash == "" || prefix == "" {
		return errors.New("store: create key: empty hash or prefix")
	}
	return nil
}

// ValidName returns nil if name can name a key: 1 to 64 ASCII letters, digits, '.', '_'
// or '-'. Names appear in logs and CLI output, so nothing that needs quoting is allowed.
func ValidName(name string) error {
	if name == "" {
		return errors.New("store: key name is empty; use 1-64 letters, digits, '.', '_' or '-'")
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("store: key name is %d characters long; use at most %d", len(name), MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("store: key name %q has %q at byte %d; use only letters, digits, '.', '_' or '-'", name, c, i)
		}
	}
	return nil
}

// Day returns the usage day of t: its calendar date in UTC.
func Day(t time.Time) string { return t.UTC().Format(DayLayout) }

// ValidDay returns nil if day is a calendar date written "YYYY-MM-DD".
func ValidDay(day string) error {
	if _, err := time.Parse(DayLayout, day); err != nil {
		return fmt.Errorf("store: day %q is not a date written YYYY-MM-DD", day)
	}
	return nil
}

// ValidRange returns nil if from and to are both days ValidDay accepts.
func ValidRange(from, to string) error {
	if err := ValidDay(from); err != nil {
		return err
	}
	return ValidDay(to)
}

// AppendUsageRow folds one row of a usage query into days: the stores read a key's days
// joined with their failure counts, one row per day and failure status, ordered by day.
// u holds the row's day and totals; failed says the row has a failure status, with its
// count. Hosts before schema version 2 recorded a cancelled request as a failure under
// StatusCancelled: such a count is cancelled too.
func AppendUsageRow(days []Usage, u Usage, failed bool, status int, count int64) []Usage {
	if n := len(days); n == 0 || days[n-1].Day != u.Day {
		u.Failures = map[int]int64{}
		days = append(days, u)
	}
	switch {
	case failed && status == StatusCancelled:
		days[len(days)-1].Cancelled += count
	case failed:
		days[len(days)-1].Failures[status] = count
	}
	return days
}
