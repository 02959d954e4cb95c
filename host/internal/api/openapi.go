package api

import (
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/openapi"
)

// openAPI handles GET /api/openapi.json: the OpenAPI 3.1 document of the service as it
// runs now, with the parameters of every installed engine.
func (s *Server) openAPI(c *gin.Context) {
	writeJSON(c, 200, openapi.Document(openapi.Service{
		APIVersion: APIVersion,
		Catalog:    s.Tracing.Catalog(),
		MaxBytes:   s.Limits.MaxBytes,
		MaxPixels:  s.Limits.MaxPixels,
		Pages:      documentedPages(s.pages),
	}))
}

// Routes lists the method and path template of every route the handler serves.
func (s *Server) Routes() gin.RoutesInfo { return s.router().Routes() }

// documentedPages are the page paths the OpenAPI document lists: the page, not its
// assets (IsAsset), whose names change with every build.
func documentedPages(pages []string) []string {
	var out []string
	for _, p := range pages {
		if !IsAsset(p) {
			out = append(out, p)
		}
	}
	return out
}

// IsAsset reports whether path is one of the web page's assets, served under a name
// holding its content's hash.
func IsAsset(path string) bool { return strings.HasPrefix(path, "/assets/") }
