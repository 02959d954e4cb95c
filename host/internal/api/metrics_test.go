package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/metrics"
)

// BenchmarkCountRequests measures what counting a request adds to it, against the same
// request without the metrics middleware.
func BenchmarkCountRequests(b *testing.B) {
	gin.SetMode(gin.ReleaseMode)
	for _, counted := range []bool{false, true} {
		name := "without"
		if counted {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			s := &Server{Metrics: metrics.New("bench")}
			r := gin.New()
			if counted {
				r.Use(s.countRequests)
			}
			r.POST("/api/vectorize", func(c *gin.Context) {
				c.Set(logLane, "public")
				buf := make([]byte, 64)
				for {
					if _, err := requestBody(c).Read(buf); err != nil {
						break
					}
				}
				c.Status(http.StatusNoContent)
			})
			w := httptest.NewRecorder()
			payload := strings.Repeat("x", 1000)
			body := &readCloser{strings.NewReader(payload)}
			req := httptest.NewRequest(http.MethodPost, "/api/vectorize", nil)
			b.ReportAllocs()
			for b.Loop() {
				body.Reset(payload)
				req.Body = body
				r.ServeHTTP(w, req)
			}
		})
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }
