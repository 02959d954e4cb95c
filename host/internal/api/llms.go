package api

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/background"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/output"
	"github.com/tracecraft/tracecraft/host/internal/vector"
	"github.com/tracecraft/tracecraft/sdk"
)

// llms handles GET /llms.txt: a plain-text summary of the service for programs and
// people, generated from what is installed now.
func (s *Server) llms(c *gin.Context) {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	all := s.Tracing.Engines.Engines()
	stable, experimental, named := engineLists(all)
	maxMB := imagecheck.Megabytes(s.Limits.MaxBytes, false)

	p("# Tracecraft")
	p("")
	p("> Bitmap-to-SVG tracing service. Upload a PNG, JPEG, WebP, BMP or TIFF image and get back an SVG traced by one of several engines. API version %s.", APIVersion)
	p("")
	p("## Endpoints")
	p("- POST /api/vectorize: multipart/form-data with a file field `image` (required, at most %s MB, at most %d megapixels) and a text field `settings` (optional JSON object). Answers 200 with JSON {svg, engine, originalSize, svgSize, preset, width, height, settings, timings, lane, engineVersion, travelLength, quality, candidates}. originalSize and svgSize are in bytes; travelLength (pen-up travel in pixels) only from engines that order strokes for a pen (centerline); quality only when output.quality is true (see Output); candidates only for preset best, and for auto when it compared two settings (see Presets). The JSON also has format, mediaType, fileName, fileSize and, for a format other than svg, file (the file in base64; svg stays in svg). Send an Accept header to get the bare file instead: image/svg+xml, application/pdf, application/postscript (EPS), image/vnd.dxf or application/dxf, image/png; q-values count and a tie goes to JSON. Without output.format that type chooses the format; with it, only that format's types are offered. An Accept nothing offered satisfies is 406 not_acceptable, details listing the types. A bare file comes with Content-Disposition: inline; filename=\"trace.<format>\".", maxMB, s.Limits.MaxPixels/1_000_000)
	p("- GET /api/schema: every engine's parameters (type, min, max, default, step, values, description), the engine lists and the presets, as JSON.")
	p("- GET /api/health: status (ok or degraded), API version, lanes (workers, busy, queued, capacity) and engines.")
	p("- GET /api/usage: your key's usage per day (send X-API-Key); query from and to as YYYY-MM-DD, default the last 30 days.")
	p("- GET /llms.txt: this summary.")
	p("- GET /api/openapi.json: the OpenAPI 3.1 document of every endpoint, request, response and error code, with each installed engine's parameters.")
	p("- GET /metrics: Prometheus metrics (requests by route, status and lane; job durations, process starts, crashes and timeouts by engine; queue depth and busy workers by lane; bytes in and out).")
	p("")
	p("## Settings")
	p("A JSON object with optional keys `preset`, `engine`, `output` (see Output), `background` and one object per engine holding its parameters, e.g. {\"preset\":\"logo\"} or {\"engine\":\"tracecraft\",\"tracecraft\":{\"maxColors\":8}}.")
	p("Precedence: the preset's parameters, then an explicit engine, then explicit parameters. `preset` and `engine` default to auto: the service measures the image and picks. An explicit engine without a preset runs with that engine's defaults.")
	p("Validation is strict: unknown keys, wrong JSON types (\"16\" is not 16), out-of-range numbers, non-integers where integers are required and unknown enum values (case-sensitive) are all 400 invalid_settings, with every problem listed in error.details. Parameters of an engine other than the one used are validated, then ignored.")
	p("- background: keep (default) or remove. remove makes the uniform colour connected to the image border transparent before any engine sees the image, so a logo on a white (or off-white, or gray) box gives no shape over the whole canvas: the colour most of the border shares is the background, and every pixel within %d of it (Euclidean distance of 8-bit sRGB values, enough for JPEG noise) that the border reaches through such pixels becomes transparent. Parts of that colour enclosed by the drawing (the inside of an O) stay. A border of many colours, or one mostly transparent already, is left as it is. Works with every engine, bundled or third-party.", background.Tolerance)
	p("")
	p("## Output")
	p("The settings key `output` is an object with optional keys `format`, `size` and `quality`, validated like the rest (unknown keys, wrong types and values are 400 invalid_settings).")
	p("- format: svg (default), pdf (PDF 1.4, vector), eps (EPSF-3.0, vector; no transparency, translucent colours are mixed with white), dxf (ASCII DXF R12 with $INSUNITS, one layer per colour named C-RRGGBB, every outline a POLYLINE, curves flattened within %g drawing units), png (anti-aliased, transparent background). Every format is converted from the engine's checked SVG, so every engine, bundled or third-party, has them all.", vector.FlattenTolerance)
	p("- size: {width, height, unit, dpi}: width and/or height (above 0, at most %d) in unit px (default), pt, mm, cm or in; with one side the other keeps the image's aspect; dpi (%d to %d, default %d) converts px to physical units and back. SVG: width and height with the unit on the root, the viewBox unchanged. PDF and EPS: the page size. DXF: coordinates in that unit and $INSUNITS (mm 4, cm 5, in 1; pt is written in inches; px is unitless, 0). PNG: that many pixels (a physical size at dpi), at most %d pixels in all, else 400 invalid_settings.", output.MaxSide, output.MinDPI, output.MaxDPI, output.DefaultDPI, output.MaxPNGPixels)
	p("- quality: true (default false) adds the trace's quality score: the SVG rendered at the image's size and compared with the image, both over white, as the project's bench scores tracers. JSON: quality {ssim, psnr} (ssim: mean SSIM on BT.601 luma, 11x11 Gaussian window of sigma 1.5, 4 decimals, 1 = identical, null under 11 pixels on a side; psnr: dB on RGB, 2 decimals, at most %d) and timings.qualityMs. A bare file: the header X-Tracecraft-Quality: ssim=0.9834; psnr=27.12. The score is of the trace at the image's size, whatever the format and size asked for.", fidelity.MaxPSNR)
	p("Example: {\"preset\":\"logo\",\"output\":{\"format\":\"pdf\",\"size\":{\"width\":50,\"unit\":\"mm\"}}}.")
	p("")
	p("## Presets")
	p("- auto (default): the service picks the preset from the image: flat images go to tracecraft, complex images to vtracer, monochrome images to potrace. When the image's measures leave the choice in doubt, auto also traces the runner-up, as best does, keeps the trace scoring higher and lists both under candidates.")
	for _, pr := range s.Tracing.Presets {
		p("- %s: %s. Engine %s%s.", pr.Name, pr.Description, pr.Engine, paramList(pr.Params))
		for _, v := range pr.Variants {
			p("  - variant %s, for %s: engine %s%s.", v.Name, v.When, v.Engine, paramList(v.Params))
		}
	}
	p("- best: %s. The answer's candidates lists each setting tried: {preset, variant, engine, svgSize, quality {ssim, psnr}} or {preset, engine, error}, the kept one first.", bestDescription)
	p("")
	p("## Engines")
	p("Stable: %s. Stable, traced only when a request names them (auto never picks them): %s. Experimental: %s.", strings.Join(stable, ", "), orNone(named), orNone(experimental))
	for _, e := range all {
		d := e.Desc
		p("")
		p("### %s (%s, version %s)", d.Name, d.Stability, d.Version)
		p("%s", d.Description)
		for _, prm := range d.Params {
			p("- %s: %s", prm.Name, paramSummary(prm))
		}
	}
	p("")
	p("## Authentication")
	p("Optional. Send an API key in the X-API-Key header to run on the dedicated keyed lane and have usage tracked; keys look like tc_ followed by 32 letters and digits and are issued by the operator (`tracecraft keys create --name NAME`). A present but invalid, revoked or empty key is 401 invalid_api_key. /api/schema, /api/health and /llms.txt need no key.")
	p("")
	p("## Limits")
	p("- image: at most %s MB and %d megapixels (checked from the header before decoding).", maxMB, s.Limits.MaxPixels/1_000_000)
	p("- queue: lane public %d workers, %d waiting; lane keyed %d workers, %d waiting, shared fairly between keys. A full queue answers 429 with Retry-After in seconds.",
		s.Tracing.Public.Stats().Workers, s.Tracing.Public.Stats().Capacity, s.Tracing.Keyed.Stats().Workers, s.Tracing.Keyed.Stats().Capacity)
	p("- job time: %s; a job that runs longer is stopped and answered 503 job_timeout.", s.Tracing.JobTimeout)
	p("- uploads: %s", s.uploadLimits())
	p("")
	p("## Errors")
	p("Every error is JSON: {\"error\":{\"code\":\"...\",\"message\":\"...\",\"details\":[{\"field\":\"...\",\"message\":\"...\",\"value\":...}]}}.")
	for _, k := range fault.Kinds {
		p("- %d %s: %s. %s.", k.Status, k.Code, k.When, capitalize(k.Do))
	}
	p("")
	p("## Example")
	p("curl -s -F image=@logo.png -F 'settings={\"preset\":\"logo\"}' http://HOST/api/vectorize | jq -r .svg > logo.svg")
	c.Data(200, "text/plain; charset=utf-8", []byte(b.String()))
}

// uploadLimits describes the bounds on receiving uploads, for /llms.txt.
func (s *Server) uploadLimits() string {
	var parts []string
	if pace := s.Tracing.Pace; pace.MinRate > 0 {
		parts = append(parts, fmt.Sprintf("after the first %s a body must arrive at %s per second on average, or it is answered 408 upload_too_slow and the connection closed", pace.Grace, bytesText(pace.MinRate)))
	}
	if s.Tracing.Pace.Limit > 0 {
		parts = append(parts, fmt.Sprintf("a request must arrive whole within %s", s.Tracing.Pace.Limit))
	}
	if n := s.Tracing.Senders.Max(); n > 0 {
		parts = append(parts, fmt.Sprintf("one address may send %d uploads at once; more are answered 429 too_many_uploads", n))
	}
	parts = append(parts, "upload memory is reserved as bytes arrive; when the host holds all it may, 429 queue_full")
	return strings.Join(parts, "; ") + "."
}

func paramSummary(p sdk.Param) string {
	var parts []string
	switch p.Type {
	case sdk.Number:
		kind := "number"
		if p.Integer {
			kind = "integer"
		}
		parts = append(parts, fmt.Sprintf("%s %s..%s", kind, num(p.Min), num(p.Max)))
		if p.Step > 0 {
			parts = append(parts, "step "+num(p.Step))
		}
	case sdk.Enum:
		parts = append(parts, "one of "+strings.Join(p.Values, "|"))
	case sdk.Boolean:
		parts = append(parts, "true|false")
	case sdk.String:
		kind := "string"
		if p.Format == sdk.FormatColor {
			kind = "CSS colour"
		}
		parts = append(parts, kind)
	case sdk.List:
		kind := "strings"
		if p.Format == sdk.FormatColor {
			kind = "CSS colours"
		}
		items := p.MaxItems
		if items == 0 {
			items = sdk.DefaultMaxItems
		}
		parts = append(parts, fmt.Sprintf("array of at most %d %s, none repeated, default none", items, kind))
	}
	if p.Default != nil {
		parts = append(parts, fmt.Sprintf("default %v", p.Default))
	}
	return strings.Join(parts, ", ") + ". " + p.Description
}

func paramList(params map[string]any) string {
	if len(params) == 0 {
		return " with its defaults"
	}
	keys := slices.Sorted(maps.Keys(params))
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%s=%v", k, params[k])
	}
	return " with " + strings.Join(keys, ", ")
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// capitalize returns s with its first letter in upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
