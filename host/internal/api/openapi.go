package api

import (
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/openapi"
	"github.com/tracecraft/tracecraft/host/internal/web"
)

// webPaths are the URL paths of the web page, for the OpenAPI document; the page's
// asset names hold its content's hash, so they are fixed for a build.
var webPaths = sync.OnceValue(func() []string {
	page, err := web.New(web.Config{})
	if err != nil {
		return nil
	}
	return page.Paths()
})

// openAPI handles GET /api/openapi.json: the OpenAPI 3.1 document of the service as it
// runs now, with the parameters of every installed engine.
func (s *Server) openAPI(c *gin.Context) {
	writeJSON(c, 200, openapi.Document(openapi.Service{
		APIVersion: APIVersion,
		Catalog:    s.Tracing.Catalog(),
		MaxBytes:   s.Limits.MaxBytes,
		MaxPixels:  s.Limits.MaxPixels,
		StatusOf:   statusOf,
		Pages:      webPaths(),
	}))
}

// Routes lists the method and path template of every route the handler serves.
func (s *Server) Routes() gin.RoutesInfo { return s.router().Routes() }
