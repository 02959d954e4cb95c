// Package api is the HTTP face of the service: Gin handlers that turn requests into
// calls of the domain packages and their results or errors into JSON. It is the only
// place where error codes become HTTP statuses.
package api

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/host/internal/auth"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/metrics"
	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/tracing"
)

// APIVersion is the version of the HTTP API, sent in every response's
// X-Tracecraft-Version header and reported by /api/health.
const APIVersion = "1"

// Server holds what the handlers need.
type Server struct {
	// Tracing takes a request through its steps: lane, upload budget, engine, usage.
	Tracing *tracing.Service
	// Keys verifies API keys; Store holds their usage, for /api/usage.
	Keys  *auth.Keys
	Store store.Store
	// Limits bound uploads; zero fields mean imagecheck's defaults.
	Limits imagecheck.Limits
	// ImageFiles holds the files uploaded images are read into; nil reads them into
	// memory, to be copied to the engine process.
	ImageFiles *ImageFiles
	// Build is the host's build version, for /api/health.
	Build string
	// Logger receives one line per request.
	Logger hclog.Logger
	// Metrics counts requests and serves /metrics; nil keeps no metrics.
	Metrics *metrics.Metrics
	// Now returns the time, for /api/usage's default dates; nil means time.Now.
	Now func() time.Time
	// CORSOrigins are the origins whose pages may call the API from a browser ("*" for
	// any); none answers no CORS preflight.
	CORSOrigins []string

	// pages are the URL paths of the web page, set when the handler is built.
	pages []string
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Handler returns the service's HTTP handler: the router, its answers compressed for
// clients that accept it.
func (s *Server) Handler() http.Handler { return compress(s.router()) }

// router builds the Gin engine that Handler returns and Routes lists.
func (s *Server) router() *gin.Engine {
	s.Limits = s.Limits.WithDefaults()
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.ContextWithFallback = true
	if s.Metrics != nil {
		r.Use(s.countRequests)
	}
	r.Use(s.logRequests, s.recoverPanics)
	if len(s.CORSOrigins) > 0 {
		r.Use(corsMiddleware(s.CORSOrigins))
	}
	r.POST("/api/vectorize", s.vectorize)
	r.GET("/api/schema", s.schema)
	r.GET("/api/health", s.health)
	r.GET("/api/usage", s.usage)
	r.GET("/llms.txt", s.llms)
	r.GET("/api/openapi.json", s.openAPI)
	r.GET("/metrics", s.metrics)
	s.routePage(r)
	r.NoRoute(func(c *gin.Context) {
		s.fail(c, fault.New(fault.NotFound, "there is no %s; the endpoints are listed at /llms.txt", c.Request.URL.Path))
	})
	r.NoMethod(func(c *gin.Context) {
		s.fail(c, fault.New(fault.MethodNotAllowed, "%s does not accept %s; see /llms.txt", c.Request.URL.Path, c.Request.Method))
	})
	return r
}

type errorBody struct {
	Error errorFields `json:"error"`
}

type errorFields struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details []fault.Detail `json:"details,omitempty"`
}

// fail writes err as the JSON error body with its status. Internal causes are logged,
// never shown.
func (s *Server) fail(c *gin.Context, err error) {
	fe := fault.As(err)
	if fe.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(fe.RetryAfter))
	}
	status := fault.Status(fe.Code)
	c.Set(logError, fe.Code)
	if fe.Err != nil && status >= 500 {
		c.Set(logCause, fe.Err.Error())
	}
	writeJSON(c, status, errorBody{Error: errorFields{Code: fe.Code, Message: fe.Message, Details: fe.Details}})
}

// writeJSON writes v without escaping <, > and & (an SVG in a JSON string stays
// readable and a third smaller).
func writeJSON(c *gin.Context, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		b.Reset()
		b.WriteString(`{"error":{"code":"internal","message":"the response could not be encoded"}}` + "\n")
	}
	c.Data(status, "application/json; charset=utf-8", b.Bytes())
}

// Context keys under which handlers leave facts for the request log line.
const (
	logLane    = "log.lane"
	logEngine  = "log.engine"
	logQueue   = "log.queue_ms"
	logTrace   = "log.trace_ms"
	logError   = "log.error"
	logCause   = "log.cause"
	logKey     = "log.key"
	logRequest = "log.request_id"
)

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// logRequests gives each request an id (the client's X-Request-Id if well-formed), sets
// the version header, and writes one structured line per request.
func (s *Server) logRequests(c *gin.Context) {
	start := time.Now()
	id := c.GetHeader("X-Request-Id")
	if !requestIDPattern.MatchString(id) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	c.Set(logRequest, id)
	c.Header("X-Request-Id", id)
	c.Header("X-Tracecraft-Version", APIVersion)
	c.Next()
	if s.Logger == nil {
		return
	}
	args := []any{"id", id, "method", c.Request.Method, "path", c.Request.URL.Path, "status", c.Writer.Status(),
		"ms", float64(time.Since(start).Microseconds()) / 1000, "bytes_out", c.Writer.Size()}
	for _, k := range []string{logLane, logKey, logEngine, logQueue, logTrace, logError, logCause} {
		if v, ok := c.Get(k); ok {
			args = append(args, k[len("log."):], v)
		}
	}
	s.Logger.Info("request", args...)
}

// recoverPanics answers a handler panic with a 500 and logs it; the host keeps serving.
func (s *Server) recoverPanics(c *gin.Context) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			if s.Logger != nil {
				s.Logger.Error("handler panic", "panic", p, "path", c.Request.URL.Path)
			}
			s.fail(c, fmt.Errorf("handler panic: %v", p))
			c.Abort()
		}
	}()
	c.Next()
}

// ms converts a duration to milliseconds with microsecond precision.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
