package api

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/output"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/host/internal/store"
	"github.com/tracecraft/tracecraft/host/internal/tracing"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// vectorizeResponse is the success body: the spec's four fields first, then additions.
type vectorizeResponse struct {
	// SVG is left empty: writeWithSVG streams the SVG in its place.
	SVG          string         `json:"svg"`
	Engine       string         `json:"engine"`
	OriginalSize int            `json:"originalSize"`
	SVGSize      int            `json:"svgSize"`
	Preset       string         `json:"preset,omitempty"`
	Width        int            `json:"width"`
	Height       int            `json:"height"`
	Settings     map[string]any `json:"settings"`
	Timings      timings        `json:"timings"`
	Lane         string         `json:"lane"`
	// EngineVersion is the version of the engine plugin that traced the image.
	EngineVersion string `json:"engineVersion"`
	// TravelLength is the pen-up travel between strokes in pixels, for engines that
	// order strokes for a pen (centerline): read from the SVG root's
	// data-travel-length attribute, absent otherwise.
	TravelLength *float64 `json:"travelLength,omitempty"`
	// Quality is the trace's fidelity to the image, when output.quality asks for it.
	Quality *fidelity.Score `json:"quality,omitempty"`
	// Candidates are the settings preset best, or auto in doubt, traced and scored, the
	// kept one first; absent otherwise.
	Candidates []candidate `json:"candidates,omitempty"`
	// fileFields carry the file of the output format (format, mediaType, fileName,
	// fileSize, file).
	fileFields
}

// travelAttr is the attribute of the SVG root in which a stroke engine states its
// pen-up travel.
const travelAttr = ` ` + svg.TravelLength + `="`

// travelLength returns the pen-up travel the SVG's root tag states, if it does.
func travelLength(svg []byte) *float64 {
	end := bytes.IndexByte(svg, '>')
	if end < 0 {
		return nil
	}
	root := svg[:end]
	i := bytes.Index(root, []byte(travelAttr))
	if i < 0 {
		return nil
	}
	v := root[i+len(travelAttr):]
	j := bytes.IndexByte(v, '"')
	if j < 0 {
		return nil
	}
	f, err := strconv.ParseFloat(string(v[:j]), 64)
	if err != nil || f < 0 {
		return nil
	}
	return &f
}

// candidate is one setting preset best (or auto in doubt) traced: its score and size, or
// why it has none.
type candidate struct {
	Preset  string          `json:"preset"`
	Variant string          `json:"variant,omitempty"`
	Engine  string          `json:"engine"`
	SVGSize int             `json:"svgSize,omitempty"`
	Quality *fidelity.Score `json:"quality,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// candidatesOf turns what preset best (or auto in doubt) tried into the answer's
// candidates.
func candidatesOf(tried []tracing.Tried) []candidate {
	var out []candidate
	for _, t := range tried {
		c := candidate{Preset: t.Preset, Variant: t.Variant, Engine: t.Engine, SVGSize: t.Bytes}
		if t.Quality != nil {
			r := t.Quality.Round()
			c.Quality = &r
		}
		if t.Err != nil {
			c.Error = t.Err.Error()
		}
		out = append(out, c)
	}
	return out
}

type timings struct {
	QueueMs   float64 `json:"queueMs"`
	AnalyzeMs float64 `json:"analyzeMs"`
	DecodeMs  float64 `json:"decodeMs"`
	TraceMs   float64 `json:"traceMs"`
	TotalMs   float64 `json:"totalMs"`
	// QualityMs is the time the quality score took, when output.quality asked for one.
	QualityMs *float64 `json:"qualityMs,omitempty"`
}

// SVGContentSecurityPolicy is sent with every answer of POST /api/vectorize: opened
// in a browser, the document may load nothing and run no script (sandbox also gives it
// a unique origin); only its own inline styles apply.
const SVGContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// vectorize handles POST /api/vectorize: authenticate, refuse at once when the lane is
// full, read the upload with hard caps, validate everything, then let tracing queue,
// trace and count the request, and answer.
func (s *Server) vectorize(c *gin.Context) {
	start := time.Now()
	ctx := c.Request.Context()
	// An SVG, bare or in JSON, is an engine's output: should one get past the output
	// check, a browser that opens it must neither sniff it into HTML nor run its scripts.
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", SVGContentSecurityPolicy)
	caller := tracing.Caller{Addr: clientAddr(c.Request)}
	if values, sent := c.Request.Header["X-Api-Key"]; sent {
		key, err := s.Keys.Verify(ctx, strings.TrimSpace(values[0]))
		if err != nil {
			unread(c.Writer, s.Tracing.Pace)
			s.fail(c, err)
			return
		}
		caller.KeyID, caller.KeyName = key.ID, key.Name
		c.Set(logKey, key.Name)
	}
	req := s.Tracing.Begin(caller)
	c.Set(logLane, req.Lane())

	// A refusal is counted in the key's usage before the answer goes out, so a client
	// that reads its usage right after an answer sees it counted.
	fail := func(err error) {
		s.fail(c, err)
		req.Record(ctx, c.Writer.Status(), 0, 0)
	}

	if err := req.Admit(c.Request.ContentLength); err != nil {
		unread(c.Writer, s.Tracing.Pace)
		fail(err)
		return
	}
	// release gives the upload's file and budget back: before the answer goes out, so
	// that the client's next request finds them free, or, on the other ways out, when
	// the handler returns. The file goes back only once the job is over: Trace returns
	// only after a started job's function has, and that function returns only once the
	// engine process is done with the file or killed.
	var up upload
	release := func() {
		s.ImageFiles.put(up.held)
		up.held = nil
		req.Close()
	}
	defer release()

	// The budget is reserved as the body arrives, and the body must keep the pace.
	body := newReceiver(c.Writer, c.Request, requestBody(c), req.Hold, s.Tracing.Pace)
	up, err := readUpload(c.Writer, c.Request, body, s.Limits.MaxBytes, s.ImageFiles)
	body.Close()
	if fault.Code(err) == fault.UploadTooSlow {
		// The rest of the body is not waited for (the read deadline has passed, so
		// net/http discards none of it either).
		c.Header("Connection", "close")
	}
	if err != nil {
		fail(err)
		return
	}
	req.Received(len(up.image))
	job, err := s.validate(up)
	if err != nil {
		fail(err)
		return
	}
	ans, err := plan(c.Request, job)
	if err != nil {
		fail(err)
		return
	}

	var file output.File
	var score *fidelity.Score
	var scoring time.Duration
	res, err := req.Trace(ctx, job, func(jobCtx context.Context, res tracing.Result) error {
		// The conversion and the score are part of the job: in its worker, under its time
		// limit.
		var err error
		file, err = output.Convert(jobCtx, res.SVG, ans.Format, job.Settings.Output.Size, res.Width, res.Height)
		if err != nil || !job.Settings.Output.Quality {
			return err
		}
		if res.Quality != nil {
			// Preset best scored the trace to choose it.
			score = res.Quality
			return nil
		}
		started := time.Now()
		score, err = qualityOf(jobCtx, res.Traced, s.Limits.MaxPixels, res.SVG)
		scoring = time.Since(started)
		return err
	})
	c.Set(logQueue, ms(req.Queued()))
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			// The client went away: its job left the queue or was stopped in the engine.
			// Nobody reads the answer, but the log and usage (as cancelled) keep it.
			c.Status(store.StatusCancelled)
			req.Record(ctx, store.StatusCancelled, 0, 0)
			return
		}
		fail(err)
		return
	}
	c.Set(logEngine, res.Engine)
	c.Set(logTrace, ms(res.Trace))
	total := time.Since(start)
	if err := req.Record(ctx, http.StatusOK, len(file.Data), res.Decode+res.Trace); err != nil {
		s.fail(c, err)
		return
	}
	release()
	s.answer(c, traced{Result: res, Answer: ans, File: file, Quality: score, Scoring: scoring,
		OriginalSize: len(up.image), Lane: req.Lane(), Queued: req.Queued(), Total: total})
}

// clientAddr is the address by which uploads are bounded per client: the IP of the
// connection's far end. Forwarding headers (X-Forwarded-For) are not read, since any
// client can send them; behind a proxy every request comes from the proxy's address.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// traced is a traced request, as the answer tells it.
type traced struct {
	tracing.Result
	// Answer is the form the client asked for; File the output in its format.
	Answer output.Answer
	File   output.File
	// Quality is the trace's score when output.quality asked for it; Scoring is the time
	// it took.
	Quality *fidelity.Score
	Scoring time.Duration
	// OriginalSize is the uploaded image's size in bytes.
	OriginalSize int
	// Lane names the lane the job ran in.
	Lane string
	// Queued is the job's wait in the lane; Total the request's time up to the answer.
	Queued, Total time.Duration
}

// answer writes a traced request's answer in the form the client asked for: the bare
// file, or JSON with the SVG (and the file of another format) and what made it.
func (s *Server) answer(c *gin.Context, t traced) {
	if t.Answer.Bare {
		writeBare(c, t)
		return
	}
	s.answerJSON(c, t)
}

// answerJSON writes the JSON answer, streaming the SVG into it.
func (s *Server) answerJSON(c *gin.Context, t traced) {
	resolved := map[string]any{"engine": t.Engine, t.Engine: t.Params}
	if t.Preset != "" {
		resolved["preset"] = t.Preset
	}
	answer := vectorizeResponse{
		Engine: t.Engine, OriginalSize: t.OriginalSize, SVGSize: len(t.File.SVG),
		Preset: t.Preset, Width: t.Width, Height: t.Height, Settings: resolved, Lane: t.Lane, EngineVersion: t.EngineVersion,
		TravelLength: travelLength(t.SVG), Candidates: candidatesOf(t.Tried),
		Timings:    timings{QueueMs: ms(t.Queued), AnalyzeMs: ms(t.Analyze), DecodeMs: ms(t.Decode), TraceMs: ms(t.Trace), TotalMs: ms(t.Total)},
		fileFields: fileOf(t.File),
	}
	if t.Quality != nil {
		r := t.Quality.Round()
		answer.Quality = &r
		q := ms(t.Scoring)
		answer.Timings.QualityMs = &q
	}
	// The SVG is streamed into the answer, not copied into a string and a buffer.
	h := c.Writer.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	var size int64
	err := writeWithSVG(c.Writer, answer, t.File.SVG, func(n int64) {
		size = n
		h.Set("Content-Length", strconv.FormatInt(n, 10))
		c.Writer.WriteHeader(http.StatusOK)
	})
	if err != nil && s.Logger != nil {
		s.Logger.Warn("answer not fully written", "error", err)
	}
	if err == nil && sentAsIs(c.Request, size) {
		// The answer is whole: it goes out now, not after the request's log line and
		// metrics, which net/http would wait for.
		c.Writer.Flush()
	}
}

// sentAsIs reports whether an answer of size bytes to r goes out uncompressed: the
// client accepts no encoding, or the answer is below compressMinSize. Flushing a
// compressed answer early would only end its stream in two pieces.
func sentAsIs(r *http.Request, size int64) bool {
	return size < compressMinSize || r.Header.Get("Accept-Encoding") == ""
}

// validate checks the image header and the settings and returns every problem found in
// one error: the image's code if the image is bad, invalid_settings otherwise.
func (s *Server) validate(up upload) (tracing.Job, error) {
	var details []fault.Detail
	var first *fault.Error
	note := func(err error, field string) {
		fe := fault.As(err)
		if first == nil {
			first = fe
		}
		if len(fe.Details) > 0 {
			details = append(details, fe.Details...)
			return
		}
		details = append(details, fault.Detail{Field: field, Message: fe.Message, Code: fe.Code})
	}
	var info imagecheck.Info
	var err error
	if !up.hasImage {
		note(fault.New(fault.MissingImage, "the request has no image field; send the image as a file field named image"), "image")
	} else if info, err = imagecheck.Check(up.image, s.Limits); err != nil {
		note(err, "image")
	}
	cat := s.Tracing.Catalog()
	set, err := settings.Parse(up.settings, cat)
	if err != nil {
		note(err, "settings")
	}
	job := tracing.Job{Image: up.image, File: up.file, Info: info, Settings: set, Catalog: cat}
	if first == nil {
		return job, nil
	}
	msg := first.Message
	if len(details) > max(1, len(first.Details)) {
		msg += " (" + strconv.Itoa(len(details)) + " problems, listed in details)"
	}
	return job, &fault.Error{Code: first.Code, Message: msg, Details: details}
}
