package sqlite_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/store/sqlite"
	"github.com/tracecraft/tracecraft/host/internal/store/storetest"
)

func openTemp(t *testing.T) store.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatalf("Open failed: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, openTemp)
}

func TestOpen(t *testing.T) {
	tests := []struct {
		name string
		path string
	}{
		{"a path with a question mark is refused", filepath.Join(t.TempDir(), "x?mode=ro")},
		{"an empty path is refused", ""},
		{"a file in a missing directory cannot be opened", filepath.Join(t.TempDir(), "missing", "x.db")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sqlite.Open(context.Background(), tc.path)
			if err == nil {
				s.Close()
				t.Errorf("Open(%q) succeeded, want an error", tc.path)
			}
		})
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	at := time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)
	s, err := sqlite.Open(ctx, path)
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
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Opening again runs the migrations again: they must find nothing to do.
	for range 2 {
		s, err = sqlite.Open(ctx, path)
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
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	bump(t, path)
	if s, err := sqlite.Open(ctx, path); err == nil {
		s.Close()
		t.Errorf("Open of a database with schema version 999 succeeded, want an error")
	}
}

// bump sets the schema version of the database at path to 999.
func bump(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE schema_version SET version = 999`); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentOpensOfANewFileAllSucceed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	storetest.ConcurrentOpens(t, 8, func(ctx context.Context) (store.Store, error) { return sqlite.Open(ctx, path) })
}

// Cross-process test: the test binary runs itself again as a child process (like the
// keys CLI next to a running server) that writes the same file while the parent does.
const (
	childEnv     = "TRACECRAFT_SQLITE_CHILD_DB"
	childKeyEnv  = "TRACECRAFT_SQLITE_CHILD_KEY"
	perProcess   = 300 // requests each process records
	childCreates = 5   // keys the child creates, revoking every other one
)

func TestCrossProcessWritesAreExact(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)
	shared, err := s.CreateKey(ctx, "shared", "hash-shared", "tc_shar", at)
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrossProcessChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+path, childKeyEnv+"="+strconv.FormatInt(shared.ID, 10))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Both processes start writing together once the child has its store open.
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "ready" {
	}
	fmt.Fprintln(stdin, "go")
	stdin.Close()

	var wg sync.WaitGroup
	errs := make(chan error, perProcess+childCreates)
	for w := range 3 {
		wg.Go(func() {
			for i := w; i < perProcess; i += 3 {
				if err := s.RecordRequest(ctx, shared.ID, request(i, at)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() {
		for i := range childCreates {
			if _, err := s.CreateKey(ctx, fmt.Sprintf("parent-%d", i), fmt.Sprintf("hash-parent-%d", i), "tc_pare", at); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	for lines.Scan() {
		t.Logf("child: %s", lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child process failed: %v", err)
	}
	close(errs)
	for err := range errs {
		t.Errorf("parent write failed: %v", err)
	}

	var want store.Usage
	want.Day, want.Failures = "2024-03-09", map[int]int64{}
	for range 2 {
		for i := range perProcess {
			storetest.Count(&want, request(i, at))
		}
	}
	u, err := s.Usage(ctx, shared.ID, "2024-03-09", "2024-03-09")
	if err != nil {
		t.Fatal(err)
	}
	if len(u) != 1 || fmt.Sprint(u[0]) != fmt.Sprint(want) {
		t.Errorf("after two processes recorded %d requests each, Usage is %+v, want [%+v]", perProcess, u, want)
	}
	// The parent's open store sees the child's keys and revocations at once.
	for i := range childCreates {
		k, err := s.KeyByHash(ctx, fmt.Sprintf("hash-child-%d", i))
		if err != nil {
			t.Errorf("the child's key %d is not found by the parent: %v", i, err)
			continue
		}
		if wantRevoked := i%2 == 0; k.Active() == wantRevoked {
			t.Errorf("the child's key %d has Active() %v, want %v", i, k.Active(), !wantRevoked)
		}
	}
	keys, err := s.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1+2*childCreates {
		t.Errorf("ListKeys returned %d keys, want %d", len(keys), 1+2*childCreates)
	}
}

// request returns the i-th request each process records.
func request(i int, at time.Time) store.Request {
	r := store.Request{Status: 200, InputBytes: int64(100 + i), OutputBytes: int64(3 * i), Pixels: int64(i * i), EngineMillis: int64(i % 13), At: at.Add(time.Duration(i) * time.Second)}
	if i%5 == 0 {
		r.Status = 400 + i%3
	}
	return r
}

// TestCrossProcessChild is the child process of TestCrossProcessWritesAreExact; run on
// its own it skips.
func TestCrossProcessChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("the child process of TestCrossProcessWritesAreExact")
	}
	id, err := strconv.ParseInt(os.Getenv(childKeyEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fmt.Println("ready")
	bufio.NewScanner(os.Stdin).Scan() // "go"
	at := time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	fail := func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() }
	for w := range 3 {
		wg.Go(func() {
			for i := w; i < perProcess; i += 3 {
				if err := s.RecordRequest(ctx, id, request(i, at)); err != nil {
					fail(err)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range childCreates {
			name := fmt.Sprintf("child-%d", i)
			if _, err := s.CreateKey(ctx, name, "hash-"+name, "tc_chil", at); err != nil {
				fail(err)
			}
			if i%2 == 0 {
				if _, err := s.RevokeKey(ctx, name, at); err != nil {
					fail(err)
				}
			}
		}
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
