// Package storetest is the conformance suite of store.Store: every implementation runs
// Run against a fresh, empty database per test and must pass all of it.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/store"
)

// Run runs the suite. open must return a store on a fresh, empty database and arrange,
// with t.Cleanup, to close it and remove the database.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

// t0 is a time with microseconds, the precision both stores keep, in the middle of a
// UTC day.
var t0 = time.Date(2024, 3, 9, 12, 0, 0, 123456000, time.UTC)

var tests = []struct {
	name string
	run  func(t *testing.T, s store.Store)
}{
	{"Ping answers and Dialect names a known dialect", testPing},
	{"CreateKey returns the stored key, active and never used", testCreateKey},
	{"CreateKey refuses a name already taken, even by a revoked key", testCreateKeyNameTaken},
	{"CreateKey refuses an invalid name", testCreateKeyInvalidName},
	{"KeyByHash finds a key by its hash and nothing else", testKeyByHash},
	{"KeyByHash returns a revoked key with its revocation time", testKeyByHashRevoked},
	{"ListKeys returns every key ordered by name", testListKeys},
	{"ListKeys of an empty store is empty, not nil", testListKeysEmpty},
	{"RevokeKey keeps the first revocation time when repeated", testRevokeKeyTwice},
	{"RevokeKey of an unknown name returns ErrNotFound", testRevokeKeyUnknown},
	{"RecordRequest adds successes, cancellations, failures by status and sums to the day", testRecordRequest},
	{"RecordRequest moves LastUsedAt forward only", testLastUsed},
	{"RecordRequest of an unknown key returns ErrNotFound and records nothing", testRecordUnknownKey},
	{"RecordRequest refuses an invalid request and records nothing", testRecordInvalid},
	{"RecordRequest counts a revoked key's requests", testRecordRevoked},
	{"Usage counts each request on its UTC day", testUTCDays},
	{"Usage returns the days from..to inclusive and ascending", testUsageRange},
	{"Usage keeps each key's counts apart", testUsagePerKey},
	{"Usage of a key without requests is empty, not nil", testUsageEmpty},
	{"Usage of an unknown key returns ErrNotFound", testUsageUnknownKey},
	{"Usage refuses malformed days", testUsageMalformed},
	{"RecordRequest from 64 goroutines loses nothing", testConcurrentRecord},
	{"CreateKey from 16 goroutines with one name succeeds once", testConcurrentCreate},
	{"A cancelled context fails the call", testCancelled},
}

// create stores a key named name with a hash and prefix derived from it.
func create(t *testing.T, s store.Store, name string, at time.Time) store.Key {
	t.Helper()
	k, err := s.CreateKey(context.Background(), name, hashOf(name), prefixOf(name), at)
	if err != nil {
		t.Fatalf("CreateKey(%q) failed: %v", name, err)
	}
	return k
}

func hashOf(name string) string   { return "hash-of-" + name }
func prefixOf(name string) string { return ("tc_" + name + "xxxx")[:7] }

func record(t *testing.T, s store.Store, id int64, r store.Request) {
	t.Helper()
	if err := s.RecordRequest(context.Background(), id, r); err != nil {
		t.Fatalf("RecordRequest(%d, %+v) failed: %v", id, r, err)
	}
}

func usage(t *testing.T, s store.Store, id int64, from, to string) []store.Usage {
	t.Helper()
	u, err := s.Usage(context.Background(), id, from, to)
	if err != nil {
		t.Fatalf("Usage(%d, %s, %s) failed: %v", id, from, to, err)
	}
	return u
}

// keyDiff describes how got differs from want, times compared as instants and required
// to be in UTC; "" if they match.
func keyDiff(got, want store.Key) string {
	var d []string
	if got.ID != want.ID {
		d = append(d, fmt.Sprintf("ID %d, want %d", got.ID, want.ID))
	}
	if got.Name != want.Name {
		d = append(d, fmt.Sprintf("Name %q, want %q", got.Name, want.Name))
	}
	if got.Prefix != want.Prefix {
		d = append(d, fmt.Sprintf("Prefix %q, want %q", got.Prefix, want.Prefix))
	}
	for _, f := range []struct {
		name      string
		got, want time.Time
	}{{"CreatedAt", got.CreatedAt, want.CreatedAt}, {"LastUsedAt", got.LastUsedAt, want.LastUsedAt}, {"RevokedAt", got.RevokedAt, want.RevokedAt}} {
		if !f.got.Equal(f.want) || f.got.IsZero() != f.want.IsZero() {
			d = append(d, fmt.Sprintf("%s %v, want %v", f.name, f.got, f.want))
		} else if !f.got.IsZero() && f.got.Location() != time.UTC {
			d = append(d, fmt.Sprintf("%s %v is not in UTC", f.name, f.got))
		}
	}
	return strings.Join(d, "; ")
}

func testCreateKey(t *testing.T, s store.Store) {
	// A creation time in another zone must come back as the same instant in UTC.
	at := t0.In(time.FixedZone("UTC+5", 5*3600))
	k := create(t, s, "alice", at)
	if k.ID == 0 {
		t.Errorf("CreateKey returned ID 0, want a non-zero ID")
	}
	want := store.Key{ID: k.ID, Name: "alice", Prefix: prefixOf("alice"), CreatedAt: t0}
	if d := keyDiff(k, want); d != "" {
		t.Errorf("CreateKey returned %+v: %s", k, d)
	}
	if !k.Active() {
		t.Errorf("new key is not Active")
	}
	other := create(t, s, "bob", at)
	if other.ID == k.ID {
		t.Errorf("two keys share ID %d", k.ID)
	}
}

func testCreateKeyNameTaken(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, "alice", t0)
	if _, err := s.CreateKey(ctx, "alice", "another-hash", "tc_zzzz", t0); !errors.Is(err, store.ErrNameTaken) {
		t.Errorf("CreateKey of a taken name returned %v, want ErrNameTaken", err)
	}
	if _, err := s.RevokeKey(ctx, "alice", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateKey(ctx, "alice", "third-hash", "tc_yyyy", t0); !errors.Is(err, store.ErrNameTaken) {
		t.Errorf("CreateKey of a revoked key's name returned %v, want ErrNameTaken", err)
	}
	keys, err := s.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 {
		t.Errorf("ListKeys returned %d keys after refused creations, want 1: %+v", len(keys), keys)
	}
}

func testCreateKeyInvalidName(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, name := range []string{"", "has space", "slash/name", "ünïcode", "quote'", strings.Repeat("a", 65)} {
		_, err := s.CreateKey(ctx, name, hashOf(name), "tc_abcd", t0)
		if err == nil || errors.Is(err, store.ErrNameTaken) {
			t.Errorf("CreateKey(%q) returned %v, want a name validation error", name, err)
		}
	}
	create(t, s, strings.Repeat("a", 64), t0)
	create(t, s, "Az09._-", t0)
	keys, err := s.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 {
		t.Errorf("ListKeys returned %d keys, want the 2 valid ones: %+v", len(keys), keys)
	}
}

func testKeyByHash(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := create(t, s, "alice", t0)
	b := create(t, s, "bob", t0.Add(time.Second))
	for _, want := range []store.Key{a, b} {
		got, err := s.KeyByHash(ctx, hashOf(want.Name))
		if err != nil {
			t.Errorf("KeyByHash(%q) failed: %v", hashOf(want.Name), err)
			continue
		}
		if d := keyDiff(got, want); d != "" {
			t.Errorf("KeyByHash(%q) returned %+v: %s", hashOf(want.Name), got, d)
		}
	}
	for _, h := range []string{"", "unknown", hashOf("alice") + "x", strings.ToUpper(hashOf("alice"))} {
		if k, err := s.KeyByHash(ctx, h); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("KeyByHash(%q) returned %+v, %v; want ErrNotFound", h, k, err)
		}
	}
}

func testKeyByHashRevoked(t *testing.T, s store.Store) {
	ctx := context.Background()
	k := create(t, s, "alice", t0)
	revoked, err := s.RevokeKey(ctx, "alice", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := k
	want.RevokedAt = t0.Add(time.Hour)
	if d := keyDiff(revoked, want); d != "" {
		t.Errorf("RevokeKey returned %+v: %s", revoked, d)
	}
	got, err := s.KeyByHash(ctx, hashOf("alice"))
	if err != nil {
		t.Fatalf("KeyByHash of a revoked key failed: %v", err)
	}
	if d := keyDiff(got, want); d != "" {
		t.Errorf("KeyByHash of a revoked key returned %+v: %s", got, d)
	}
	if got.Active() {
		t.Errorf("revoked key is Active")
	}
}

func testListKeys(t *testing.T, s store.Store) {
	ctx := context.Background()
	names := []string{"b", "A", "a-1", "a.1", "a_1", "Z", "a", "aa", "0"}
	byName := map[string]store.Key{}
	for i, n := range names {
		byName[n] = create(t, s, n, t0.Add(time.Duration(i)*time.Minute))
	}
	if _, err := s.RevokeKey(ctx, "b", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	b := byName["b"]
	b.RevokedAt = t0.Add(time.Hour)
	byName["b"] = b

	keys, err := s.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string(nil), names...)
	sort.Strings(want)
	var got []string
	for _, k := range keys {
		got = append(got, k.Name)
		if d := keyDiff(k, byName[k.Name]); d != "" {
			t.Errorf("ListKeys returned %+v: %s", k, d)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ListKeys returned names %q, want %q (bytewise order)", got, want)
	}
}

func testListKeysEmpty(t *testing.T, s store.Store) {
	keys, err := s.ListKeys(context.Background())
	if err != nil || keys == nil || len(keys) != 0 {
		t.Errorf("ListKeys of an empty store returned %#v, %v; want an empty slice", keys, err)
	}
}

func testRevokeKeyTwice(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, "alice", t0)
	first, err := s.RevokeKey(ctx, "alice", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{t0.Add(time.Hour), t0} {
		again, err := s.RevokeKey(ctx, "alice", at)
		if err != nil {
			t.Errorf("revoking a revoked key at %v failed: %v; want no error", at, err)
			continue
		}
		if !again.RevokedAt.Equal(first.RevokedAt) {
			t.Errorf("revoking again at %v set RevokedAt %v, want the first %v", at, again.RevokedAt, first.RevokedAt)
		}
	}
	got, err := s.KeyByHash(ctx, hashOf("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if !got.RevokedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("stored RevokedAt is %v, want %v", got.RevokedAt, t0.Add(time.Minute))
	}
}

func testRevokeKeyUnknown(t *testing.T, s store.Store) {
	create(t, s, "alice", t0)
	for _, name := range []string{"bob", "Alice", "", "bad name"} {
		if k, err := s.RevokeKey(context.Background(), name, t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("RevokeKey(%q) returned %+v, %v; want ErrNotFound", name, k, err)
		}
	}
}

func testRecordRequest(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	reqs := []store.Request{
		{Status: 200, InputBytes: 1000, OutputBytes: 5000, Pixels: 640 * 480, EngineMillis: 120, At: t0},
		{Status: 200, InputBytes: 2000, OutputBytes: 7000, Pixels: 100, EngineMillis: 30, At: t0.Add(time.Minute)},
		{Status: 204, InputBytes: 1, At: t0.Add(2 * time.Minute)},
		{Status: 400, InputBytes: 300, At: t0.Add(3 * time.Minute)},
		{Status: 400, InputBytes: 200, At: t0.Add(4 * time.Minute)},
		{Status: 503, InputBytes: 50, Pixels: 10, EngineMillis: 60000, At: t0.Add(5 * time.Minute)},
		{Status: 301, At: t0.Add(6 * time.Minute)},
		{Status: store.StatusCancelled, InputBytes: 4000, Pixels: 2000, At: t0.Add(7 * time.Minute)},
		{Status: store.StatusCancelled, At: t0.Add(8 * time.Minute)},
	}
	for _, r := range reqs {
		record(t, s, k.ID, r)
	}
	want := []store.Usage{{
		Day: "2024-03-09", Requests: 9, Successes: 3, Cancelled: 2,
		Failures:   map[int]int64{400: 2, 503: 1, 301: 1},
		InputBytes: 7551, OutputBytes: 12000, Pixels: 640*480 + 2110, EngineMillis: 60150,
	}}
	if got := usage(t, s, k.ID, "2024-03-09", "2024-03-09"); !reflect.DeepEqual(got, want) {
		t.Errorf("Usage returned %+v, want %+v", got, want)
	}
}

func testLastUsed(t *testing.T, s store.Store) {
	ctx := context.Background()
	k := create(t, s, "alice", t0)
	steps := []struct {
		at, want time.Time
	}{
		{t0.Add(time.Hour), t0.Add(time.Hour)},
		{t0.Add(2 * time.Hour), t0.Add(2 * time.Hour)},
		{t0.Add(30 * time.Minute), t0.Add(2 * time.Hour)}, // a late report of an older request
		{t0.Add(48 * time.Hour), t0.Add(48 * time.Hour)},
	}
	for _, st := range steps {
		record(t, s, k.ID, store.Request{Status: 200, At: st.at})
		got, err := s.KeyByHash(ctx, hashOf("alice"))
		if err != nil {
			t.Fatal(err)
		}
		if !got.LastUsedAt.Equal(st.want) || got.LastUsedAt.Location() != time.UTC {
			t.Errorf("after a request at %v LastUsedAt is %v, want %v in UTC", st.at, got.LastUsedAt, st.want)
		}
	}
}

func testRecordUnknownKey(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	err := s.RecordRequest(context.Background(), k.ID+1000, store.Request{Status: 200, At: t0})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RecordRequest of an unknown key returned %v, want ErrNotFound", err)
	}
	if got := usage(t, s, k.ID, "2000-01-01", "2100-01-01"); len(got) != 0 {
		t.Errorf("an unknown key's request landed in another key's usage: %+v", got)
	}
}

func testRecordInvalid(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	for _, tc := range []struct {
		name string
		r    store.Request
	}{
		{"status 0", store.Request{Status: 0, At: t0}},
		{"status 99", store.Request{Status: 99, At: t0}},
		{"status 600", store.Request{Status: 600, At: t0}},
		{"no time", store.Request{Status: 200}},
		{"negative input bytes", store.Request{Status: 200, InputBytes: -1, At: t0}},
		{"negative engine time", store.Request{Status: 200, EngineMillis: -1, At: t0}},
		{"malformed day", store.Request{Day: "2024-3-9", Status: 200, At: t0}},
		{"impossible day", store.Request{Day: "2024-02-30", Status: 200, At: t0}},
	} {
		if err := s.RecordRequest(context.Background(), k.ID, tc.r); err == nil || errors.Is(err, store.ErrNotFound) {
			t.Errorf("RecordRequest with %s returned %v, want a validation error", tc.name, err)
		}
	}
	if got := usage(t, s, k.ID, "2000-01-01", "2100-01-01"); len(got) != 0 {
		t.Errorf("invalid requests were recorded: %+v", got)
	}
}

func testRecordRevoked(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	if _, err := s.RevokeKey(context.Background(), "alice", t0); err != nil {
		t.Fatal(err)
	}
	record(t, s, k.ID, store.Request{Status: 200, At: t0.Add(time.Second)})
	if got := usage(t, s, k.ID, "2024-03-09", "2024-03-09"); len(got) != 1 || got[0].Requests != 1 {
		t.Errorf("Usage of a revoked key after one request is %+v, want 1 request", got)
	}
}

func testUTCDays(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	plus5 := time.FixedZone("UTC+5", 5*3600)
	minus5 := time.FixedZone("UTC-5", -5*3600)
	for _, tc := range []struct {
		r       store.Request
		wantDay string
	}{
		{store.Request{At: time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC)}, "2024-03-09"},
		{store.Request{At: time.Date(2024, 3, 9, 23, 59, 59, 999999000, time.UTC)}, "2024-03-09"},
		{store.Request{At: time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)}, "2024-03-10"},
		// Local dates differ from UTC dates: the UTC one counts.
		{store.Request{At: time.Date(2024, 3, 10, 1, 30, 0, 0, plus5)}, "2024-03-09"},
		{store.Request{At: time.Date(2024, 3, 9, 22, 0, 0, 0, minus5)}, "2024-03-10"},
		// An explicit Day wins over At.
		{store.Request{Day: "2024-03-11", At: time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)}, "2024-03-11"},
	} {
		before := usage(t, s, k.ID, tc.wantDay, tc.wantDay)
		tc.r.Status = 200
		record(t, s, k.ID, tc.r)
		after := usage(t, s, k.ID, tc.wantDay, tc.wantDay)
		var n0, n1 int64
		if len(before) == 1 {
			n0 = before[0].Requests
		}
		if len(after) == 1 {
			n1 = after[0].Requests
		}
		if n1 != n0+1 {
			t.Errorf("a request at %v (Day %q) did not count on %s: requests went %d -> %d", tc.r.At, tc.r.Day, tc.wantDay, n0, n1)
		}
	}
	var days []string
	for _, u := range usage(t, s, k.ID, "2024-03-01", "2024-03-31") {
		days = append(days, fmt.Sprintf("%s:%d", u.Day, u.Requests))
	}
	if want := []string{"2024-03-09:3", "2024-03-10:2", "2024-03-11:1"}; !reflect.DeepEqual(days, want) {
		t.Errorf("usage by day is %q, want %q", days, want)
	}
}

func testUsageRange(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	// Days 2024-02-27 .. 2024-03-02 cross a month end of a leap year.
	start := time.Date(2024, 2, 27, 6, 0, 0, 0, time.UTC)
	for d := 0; d < 5; d++ {
		for i := 0; i <= d; i++ {
			record(t, s, k.ID, store.Request{Status: 200, InputBytes: int64(d), At: start.AddDate(0, 0, d)})
		}
	}
	for _, tc := range []struct {
		from, to string
		want     []string
	}{
		{"2024-02-28", "2024-03-01", []string{"2024-02-28:2", "2024-02-29:3", "2024-03-01:4"}},
		{"2024-01-01", "2024-12-31", []string{"2024-02-27:1", "2024-02-28:2", "2024-02-29:3", "2024-03-01:4", "2024-03-02:5"}},
		{"2024-03-02", "2024-03-02", []string{"2024-03-02:5"}},
		{"2024-03-03", "2024-03-09", nil},
		{"2024-03-01", "2024-02-28", nil},
	} {
		var got []string
		for _, u := range usage(t, s, k.ID, tc.from, tc.to) {
			got = append(got, fmt.Sprintf("%s:%d", u.Day, u.Requests))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Usage(%s..%s) returned %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

func testUsagePerKey(t *testing.T, s store.Store) {
	a := create(t, s, "alice", t0)
	b := create(t, s, "bob", t0)
	record(t, s, a.ID, store.Request{Status: 200, InputBytes: 10, At: t0})
	record(t, s, b.ID, store.Request{Status: 500, InputBytes: 20, At: t0})
	record(t, s, b.ID, store.Request{Status: 200, InputBytes: 30, At: t0})
	wantA := []store.Usage{{Day: "2024-03-09", Requests: 1, Successes: 1, Failures: map[int]int64{}, InputBytes: 10}}
	wantB := []store.Usage{{Day: "2024-03-09", Requests: 2, Successes: 1, Failures: map[int]int64{500: 1}, InputBytes: 50}}
	if got := usage(t, s, a.ID, "2024-03-09", "2024-03-09"); !reflect.DeepEqual(got, wantA) {
		t.Errorf("alice's usage is %+v, want %+v", got, wantA)
	}
	if got := usage(t, s, b.ID, "2024-03-09", "2024-03-09"); !reflect.DeepEqual(got, wantB) {
		t.Errorf("bob's usage is %+v, want %+v", got, wantB)
	}
}

func testUsageEmpty(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	if got := usage(t, s, k.ID, "2024-01-01", "2024-12-31"); got == nil || len(got) != 0 {
		t.Errorf("Usage of an unused key returned %#v, want an empty slice", got)
	}
}

func testUsageUnknownKey(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	if got, err := s.Usage(context.Background(), k.ID+1000, "2024-01-01", "2024-12-31"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Usage of an unknown key returned %+v, %v; want ErrNotFound", got, err)
	}
}

func testUsageMalformed(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	for _, r := range [][2]string{{"", "2024-01-01"}, {"2024-01-01", ""}, {"2024-1-01", "2024-01-02"}, {"2024-01-01", "tomorrow"}, {"2024-13-01", "2024-12-31"}} {
		if got, err := s.Usage(context.Background(), k.ID, r[0], r[1]); err == nil || errors.Is(err, store.ErrNotFound) {
			t.Errorf("Usage(%q, %q) returned %+v, %v; want a validation error", r[0], r[1], got, err)
		}
	}
}

func testConcurrentRecord(t *testing.T, s store.Store) {
	const goroutines, each = 64, 10
	k := create(t, s, "alice", t0)
	other := create(t, s, "bob", t0)
	ctx := context.Background()
	want := store.Usage{Day: "2024-03-09", Failures: map[int]int64{}}
	var reqs [goroutines][each]store.Request
	for g := range goroutines {
		for i := range each {
			r := store.Request{Status: 200, InputBytes: int64(1000*g + i), OutputBytes: int64(7 * i), Pixels: int64(g), EngineMillis: 3, At: t0.Add(time.Duration(g*each+i) * time.Millisecond)}
			switch (g + i) % 7 {
			case 0:
				r.Status = 429
			case 3:
				r.Status = 500
			}
			reqs[g][i] = r
			Count(&want, r)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				if err := s.RecordRequest(ctx, k.ID, reqs[g][i]); err != nil {
					errs <- err
				}
				// Another key's writes interleave, to catch rows mixed up between keys.
				if i == 0 {
					if err := s.RecordRequest(ctx, other.ID, store.Request{Status: 200, At: t0}); err != nil {
						errs <- err
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent RecordRequest failed: %v", err)
	}
	if got := usage(t, s, k.ID, "2024-03-09", "2024-03-09"); !reflect.DeepEqual(got, []store.Usage{want}) {
		t.Errorf("after %d concurrent requests Usage is %+v, want %+v", goroutines*each, got, want)
	}
	if got := usage(t, s, other.ID, "2024-03-09", "2024-03-09"); len(got) != 1 || got[0].Requests != goroutines {
		t.Errorf("the other key's usage is %+v, want %d requests", got, goroutines)
	}
	key, err := s.KeyByHash(ctx, hashOf("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if last := t0.Add((goroutines*each - 1) * time.Millisecond); !key.LastUsedAt.Equal(last) {
		t.Errorf("LastUsedAt is %v, want the latest request's %v", key.LastUsedAt, last)
	}
}

func testConcurrentCreate(t *testing.T, s store.Store) {
	const n = 16
	var wg sync.WaitGroup
	results := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := s.CreateKey(context.Background(), "shared", fmt.Sprintf("hash-%d", i), "tc_abcd", t0)
			results <- err
		})
	}
	wg.Wait()
	close(results)
	var ok, taken int
	for err := range results {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, store.ErrNameTaken):
			taken++
		default:
			t.Errorf("concurrent CreateKey failed: %v", err)
		}
	}
	if ok != 1 || taken != n-1 {
		t.Errorf("%d concurrent CreateKey calls with one name: %d succeeded and %d got ErrNameTaken, want 1 and %d", n, ok, taken, n-1)
	}
}

func testCancelled(t *testing.T, s store.Store) {
	k := create(t, s, "alice", t0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := []struct {
		name string
		call func() error
	}{
		{"CreateKey", func() error { _, err := s.CreateKey(ctx, "bob", "h", "tc_bobx", t0); return err }},
		{"KeyByHash", func() error { _, err := s.KeyByHash(ctx, hashOf("alice")); return err }},
		{"ListKeys", func() error { _, err := s.ListKeys(ctx); return err }},
		{"RevokeKey", func() error { _, err := s.RevokeKey(ctx, "alice", t0); return err }},
		{"RecordRequest", func() error { return s.RecordRequest(ctx, k.ID, store.Request{Status: 200, At: t0}) }},
		{"Usage", func() error { _, err := s.Usage(ctx, k.ID, "2024-03-09", "2024-03-09"); return err }},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context returned %v, want context.Canceled", c.name, err)
		}
	}
	// Nothing was written.
	got, err := s.KeyByHash(context.Background(), hashOf("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Active() || !got.LastUsedAt.IsZero() {
		t.Errorf("calls with a cancelled context changed the key: %+v", got)
	}
}

func testPing(t *testing.T, s store.Store) {
	if err := s.Ping(context.Background()); err != nil {
		t.Errorf("Ping of an open store failed: %v", err)
	}
	if d := s.Dialect(); d != store.SQLite && d != store.Postgres {
		t.Errorf("Dialect() = %q, want %q or %q", d, store.SQLite, store.Postgres)
	}
}

// Count adds request r to the usage u a store should report for r's day; u.Failures
// must not be nil.
func Count(u *store.Usage, r store.Request) {
	u.Requests++
	switch {
	case r.Success():
		u.Successes++
	case r.Cancelled():
		u.Cancelled++
	default:
		u.Failures[r.Status]++
	}
	u.InputBytes += r.InputBytes
	u.OutputBytes += r.OutputBytes
	u.Pixels += r.Pixels
	u.EngineMillis += r.EngineMillis
}

// ConcurrentOpens opens n stores at once with open, each on the same new database, and
// reports each that fails to open or to list keys: the first open of a database creates
// its schema, and the others must wait for it rather than fail.
func ConcurrentOpens(t *testing.T, n int, open func(context.Context) (store.Store, error)) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			s, err := open(context.Background())
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
