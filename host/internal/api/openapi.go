package api

import (
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
		Pages:      s.pages,
	}))
}

// Routes lists the method and path template of every route the handler serves.
func (s *Server) Routes() gin.RoutesInfo { return s.router().Routes() }
