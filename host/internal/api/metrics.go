package api

import (
	"io"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/metrics"
)

// countedBody counts the bytes read from a request body. They are pooled, so counting
// costs no allocation per request.
type countedBody struct {
	io.ReadCloser
	n int64
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

var countedBodies = sync.Pool{New: func() any { return new(countedBody) }}

// countRequests counts each request in the metrics by route template (never the raw
// path, so the label stays bounded), method, status and lane, with the body bytes read
// and written.
//
// The body is counted only through requestBody, when a handler asks for it: the request's
// own Body stays as net/http made it, so a refusal answered without reading it (a bad key,
// a full lane, a Content-Length over the limit) reads none of it. With the Body replaced,
// net/http would read up to 256 KiB of it after the handler to keep the connection, and a
// client that sent Expect: 100-continue would be told to send it.
func (s *Server) countRequests(c *gin.Context) {
	body := countedBodies.Get().(*countedBody)
	body.ReadCloser, body.n = nil, 0
	c.Set(bodyCounter, body)
	c.Next()
	route := c.FullPath()
	if route == "" {
		route = metrics.Unmatched
	}
	lane := metrics.NoLane
	if v, ok := c.Get(logLane); ok {
		if name, ok := v.(string); ok {
			lane = name
		}
	}
	s.Metrics.ObserveRequest(route, c.Request.Method, c.Writer.Status(), lane, body.n, int64(max(0, c.Writer.Size())))
	// The handler has returned, so nothing reads through the counter any more.
	body.ReadCloser = nil
	countedBodies.Put(body)
}

// bodyCounter is the context key of the request's *countedBody.
const bodyCounter = "tracecraft.bodyCounter"

// requestBody returns the request body for a handler to read: through the metrics'
// counter when requests are counted, else as it is. Only a handler that reads the body
// calls it.
func requestBody(c *gin.Context) io.ReadCloser {
	if v, ok := c.Get(bodyCounter); ok {
		if b, ok := v.(*countedBody); ok {
			if b.ReadCloser == nil {
				b.ReadCloser = c.Request.Body
			}
			return b
		}
	}
	return c.Request.Body
}

// metrics handles GET /metrics: the Prometheus text format.
func (s *Server) metrics(c *gin.Context) {
	if s.Metrics == nil {
		s.fail(c, fault.New(fault.NotFound, "this server keeps no metrics"))
		return
	}
	s.Metrics.Handler().ServeHTTP(c.Writer, c.Request)
}
