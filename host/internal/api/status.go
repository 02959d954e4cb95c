package api

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/lanes"
	"github.com/tracecraft/tracecraft/host/internal/store"
)

type healthBody struct {
	Status  string           `json:"status"`
	Version string           `json:"version"`
	Build   string           `json:"build,omitempty"`
	Lanes   []lanes.Stats    `json:"lanes"`
	Workers int              `json:"workers"`
	Engines []engines.Status `json:"engines"`
	// Goroutines is the host's goroutine count, for operators watching for leaks.
	Goroutines int `json:"goroutines"`
	// Store is the key and usage database.
	Store storeHealth `json:"store"`
}

// storeHealth reports the key and usage database.
type storeHealth struct {
	// Dialect is "sqlite" or "postgres".
	Dialect string `json:"dialect"`
	// Status is "ok", or "unreachable" when it did not answer a ping.
	Status string `json:"status"`
	// PingMs is how long the ping took.
	PingMs float64 `json:"pingMs"`
}

// storePingTimeout bounds the health check's ping of the store, so that a monitor gets
// its answer quickly when the database hangs.
const storePingTimeout = 2 * time.Second

// pingStore pings the store within storePingTimeout.
func (s *Server) pingStore(c *gin.Context) storeHealth {
	h := storeHealth{Dialect: s.Store.Dialect(), Status: "ok"}
	ctx, cancel := context.WithTimeout(c.Request.Context(), storePingTimeout)
	defer cancel()
	start := time.Now()
	err := s.Store.Ping(ctx)
	h.PingMs = ms(time.Since(start))
	if err != nil {
		// The cause names the database's host and user: it goes to the log, not to
		// the public answer.
		h.Status = "unreachable"
		if s.Logger != nil {
			s.Logger.Warn("the key and usage database does not answer", "dialect", h.Dialect, "error", err)
		}
	}
	return h
}

// health handles GET /api/health: "degraded" when an engine failed to load or none is
// installed, or when the key and usage database does not answer (keyed requests are
// then refused with 503; the public lane keeps working).
func (s *Server) health(c *gin.Context) {
	body := healthBody{Status: "ok", Version: APIVersion, Build: s.Build, Engines: s.Tracing.Engines.Statuses(),
		Goroutines: runtime.NumGoroutine(), Store: s.pingStore(c)}
	if body.Store.Status != "ok" {
		body.Status = "degraded"
	}
	for _, l := range []*lanes.Lane{s.Tracing.Public, s.Tracing.Keyed} {
		st := l.Stats()
		body.Lanes = append(body.Lanes, st)
		body.Workers += st.Workers
	}
	if len(body.Engines) == 0 {
		body.Status = "degraded"
		body.Engines = []engines.Status{}
	}
	for _, e := range body.Engines {
		if e.Status != "ready" {
			body.Status = "degraded"
		}
	}
	writeJSON(c, http.StatusOK, body)
}

type usageDay struct {
	Day          string           `json:"day"`
	Requests     int64            `json:"requests"`
	Successes    int64            `json:"successes"`
	Cancelled    int64            `json:"cancelled"`
	Failures     map[string]int64 `json:"failures"`
	InputBytes   int64            `json:"inputBytes"`
	OutputBytes  int64            `json:"outputBytes"`
	Pixels       int64            `json:"pixels"`
	EngineMillis int64            `json:"engineMs"`
}

type usageBody struct {
	Key struct {
		Name       string     `json:"name"`
		Prefix     string     `json:"prefix"`
		CreatedAt  time.Time  `json:"createdAt"`
		LastUsedAt *time.Time `json:"lastUsedAt"`
	} `json:"key"`
	From  string     `json:"from"`
	To    string     `json:"to"`
	Days  []usageDay `json:"days"`
	Total usageDay   `json:"total"`
}

// usage handles GET /api/usage: the calling key's own usage per day, from and to
// (YYYY-MM-DD, UTC, inclusive) defaulting to the last 30 days.
func (s *Server) usage(c *gin.Context) {
	values, sent := c.Request.Header["X-Api-Key"]
	if !sent {
		s.fail(c, fault.New(fault.MissingAPIKey, "send your API key in the X-API-Key header to read its usage"))
		return
	}
	key, err := s.Keys.Verify(c.Request.Context(), strings.TrimSpace(values[0]))
	if err != nil {
		s.fail(c, err)
		return
	}
	now := s.now().UTC()
	from, to := c.DefaultQuery("from", store.Day(now.AddDate(0, 0, -29))), c.DefaultQuery("to", store.Day(now))
	var details []fault.Detail
	for field, v := range map[string]string{"from": from, "to": to} {
		if store.ValidDay(v) != nil {
			details = append(details, fault.Detail{Field: field, Message: "must be a date as YYYY-MM-DD", Value: v})
		}
	}
	if len(details) == 0 && from > to {
		details = append(details, fault.Detail{Field: "from", Message: "must not be after to", Value: from})
	}
	if len(details) > 0 {
		sort.Slice(details, func(i, j int) bool { return details[i].Field < details[j].Field })
		s.fail(c, &fault.Error{Code: fault.InvalidRequest, Message: "the date range is invalid: " + details[0].Field + " " + details[0].Message, Details: details})
		return
	}
	days, err := s.Store.Usage(c.Request.Context(), key.ID, from, to)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		s.fail(c, err)
		return
	}
	var body usageBody
	body.Key.Name, body.Key.Prefix, body.Key.CreatedAt = key.Name, key.Prefix, key.CreatedAt
	if !key.LastUsedAt.IsZero() {
		t := key.LastUsedAt
		body.Key.LastUsedAt = &t
	}
	body.From, body.To = from, to
	body.Days = []usageDay{}
	body.Total = usageDay{Day: "total", Failures: map[string]int64{}}
	for _, d := range days {
		day := usageDay{Day: d.Day, Requests: d.Requests, Successes: d.Successes, Cancelled: d.Cancelled, Failures: map[string]int64{},
			InputBytes: d.InputBytes, OutputBytes: d.OutputBytes, Pixels: d.Pixels, EngineMillis: d.EngineMillis}
		for status, n := range d.Failures {
			day.Failures[strconv.Itoa(status)] = n
			body.Total.Failures[strconv.Itoa(status)] += n
		}
		body.Days = append(body.Days, day)
		body.Total.Requests += d.Requests
		body.Total.Successes += d.Successes
		body.Total.Cancelled += d.Cancelled
		body.Total.InputBytes += d.InputBytes
		body.Total.OutputBytes += d.OutputBytes
		body.Total.Pixels += d.Pixels
		body.Total.EngineMillis += d.EngineMillis
	}
	writeJSON(c, http.StatusOK, body)
}
