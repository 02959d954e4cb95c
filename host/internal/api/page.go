package api

import (
	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/web"
)

// routePage serves the web page at / and its assets (package web), and keeps their paths
// for the OpenAPI document. Paths it does not list, /api/... among them, stay with
// NoRoute's JSON 404.
func (s *Server) routePage(r *gin.Engine) {
	page, err := web.New(web.Config{MaxBytes: s.Limits.MaxBytes, MaxPixels: s.Limits.MaxPixels})
	if err != nil {
		// Only broken embedded files fail New, and web's tests catch that: a host
		// without its page still serves the API.
		if s.Logger != nil {
			s.Logger.Error("web page unavailable", "error", err)
		}
		return
	}
	h := gin.WrapH(page)
	s.pages = page.Paths()
	for _, p := range s.pages {
		r.GET(p, h)
		r.HEAD(p, h)
	}
}
