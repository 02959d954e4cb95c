package api

import (
	"context"
	"encoding/base64"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/host/internal/output"
	"github.com/tracecraft/tracecraft/host/internal/tracing"
)

// FileBase is the base of the file name the answers give in Content-Disposition and
// fileName ("trace.pdf").
const FileBase = "trace"

// fileName returns the file name of an answer in format f.
func fileName(f output.Format) string { return FileBase + "." + string(f) }

// fileFields are the JSON answer's fields that carry the file of a format other than
// plain SVG: its format, media type, name, size and bytes (base64).
type fileFields struct {
	Format    string `json:"format"`
	MediaType string `json:"mediaType"`
	FileName  string `json:"fileName"`
	FileSize  int    `json:"fileSize"`
	// File is the file in standard base64; absent for SVG, which is the svg field.
	File string `json:"file,omitempty"`
}

// plan negotiates the answer for a validated job: the Accept header against the output
// settings (406 when nothing fits), and a size the format cannot take (400).
func plan(r *http.Request, job tracing.Job) (output.Answer, error) {
	opts := job.Settings.Output
	ans, err := output.Negotiate(r.Header.Get("Accept"), opts)
	if err != nil {
		return ans, err
	}
	return ans, output.Check(ans.Format, opts.Size, job.Info.Width, job.Info.Height)
}

// writeBare writes the file itself as the answer, with the tracing headers.
func writeBare(c *gin.Context, t traced) {
	h := c.Writer.Header()
	h.Set("X-Tracecraft-Engine", t.Engine)
	h.Set("X-Tracecraft-Engine-Version", t.EngineVersion)
	h.Set("X-Tracecraft-Preset", t.Preset)
	h.Set("X-Tracecraft-Original-Size", strconv.Itoa(t.OriginalSize))
	if t.Quality != nil {
		h.Set(QualityHeader, t.Quality.Round().String())
	}
	h.Set("Content-Disposition", `inline; filename="`+fileName(t.Answer.Format)+`"`)
	c.Data(http.StatusOK, t.Answer.MediaType, t.File.Data)
}

// fileOf returns the JSON answer's file fields.
func fileOf(file output.File) fileFields {
	f := fileFields{Format: string(file.Format), MediaType: output.MediaTypes[file.Format][0],
		FileName: fileName(file.Format), FileSize: len(file.Data)}
	if file.Format != output.SVG {
		f.File = base64.StdEncoding.EncodeToString(file.Data)
	}
	return f
}

// QualityHeader carries the quality score with a bare answer, which has no JSON to hold
// it: "ssim=0.9834; psnr=27.12" (no ssim for an image smaller than its window).
const QualityHeader = "X-Tracecraft-Quality"

// qualityOf scores the trace against the uploaded image as the engine traced it (its
// background removed when the settings ask for that). The host decodes pixels for it
// only when a client asks for the score, and only an image the engine has already
// decoded and traced (so within the pixel limit, and not one that breaks a decoder).
func qualityOf(ctx context.Context, traced []byte, maxPixels int64, svg []byte) (*fidelity.Score, error) {
	s, err := fidelity.ScoreFile(ctx, traced, maxPixels, svg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fault.Wrap(err, fault.Internal, "the quality score could not be computed: %v", err)
	}
	return &s, nil
}
