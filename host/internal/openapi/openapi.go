// Package openapi builds the service's OpenAPI 3.1 document: every route, request and
// response body and error code. The settings of each engine are described from the same
// descriptors the plugins give and /api/schema shows, so an engine installed while the
// service runs appears in the next document.
package openapi

import (
	"fmt"
	"mime"
	"path"
	"slices"
	"strings"

	"github.com/tracecraft/tracecraft/host/internal/background"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/fidelity"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/sdk"
)

// Version is the OpenAPI version of the document.
const Version = "3.1.0"

// Service is what the document describes beyond its fixed routes.
type Service struct {
	// APIVersion is the version of the HTTP API.
	APIVersion string
	// Catalog holds the installed engines and the presets.
	Catalog settings.Catalog
	// MaxBytes and MaxPixels bound an uploaded image.
	MaxBytes, MaxPixels int64
	// Pages are the URL paths of the web page, answered to GET and HEAD. Its assets,
	// whose names change with their content, are left out: a client generator would
	// make methods of them whose names change every build.
	Pages []string
}

// obj is a JSON object of the document.
type obj = map[string]any

// ref points at a component.
func ref(kind, name string) obj { return obj{"$ref": "#/components/" + kind + "/" + name} }

// ParamsSchema is the component name of the schema of an engine's parameters.
func ParamsSchema(engine string) string { return "EngineParams." + engine }

// vectorizeCodes are the error codes POST /api/vectorize answers with.
var vectorizeCodes = []string{
	fault.MissingImage, fault.EmptyImage, fault.UnsupportedFormat, fault.CorruptImage, fault.TruncatedImage,
	fault.ImageTooLarge, fault.TooManyPixels, fault.InvalidSettings, fault.InvalidRequest, fault.InvalidAPIKey,
	fault.QueueFull, fault.TooManyUploads, fault.UploadTooSlow, fault.JobTimeout, fault.EngineUnavailable, fault.StoreUnavailable, fault.EngineCrashed,
	fault.OutputTooLarge, fault.EngineBadOutput, fault.Internal, fault.NotAcceptable,
}

// Document returns the OpenAPI document of the service as it is now, ready to be
// encoded as JSON.
func Document(s Service) obj {
	paths := obj{
		"/api/vectorize": obj{"post": s.vectorizeOp()},
		"/api/schema": obj{"get": s.op("getSchema", "Every engine's parameters, the engine lists and the presets",
			"The parameter descriptors of every installed engine, stable engines first (auto in its place), "+
				"then experimental ones, then stable ones traced only when named, and the presets.",
			jsonContent(ref("schemas", "Schema")), nil)},
		"/api/health": obj{"get": s.op("getHealth", "Service status, lanes and engines",
			"ok, or degraded when an engine failed to load or none is installed; the lanes' workers and queues; "+
				"each engine's processes.",
			jsonContent(ref("schemas", "Health")), nil)},
		"/api/usage": obj{"get": s.usageOp()},
		"/llms.txt": obj{"get": s.op("getLlmsTxt", "A plain-text summary of the service for programs and people",
			"", obj{"text/plain": obj{"schema": obj{"type": "string"}}}, nil)},
		"/api/openapi.json": obj{"get": s.op("getOpenAPI", "This document",
			"The OpenAPI document of the service as it runs now, with the parameters of every installed engine.",
			jsonContent(obj{"type": "object", "required": []string{"openapi", "info", "paths"}}), nil)},
		"/metrics": obj{"get": s.op("getMetrics", "Metrics in the Prometheus text format",
			"Requests by route, status and lane; job durations, process starts, crashes and timeouts by engine; "+
				"queue depth and busy workers by lane; body bytes in and out.",
			obj{"text/plain": obj{"schema": obj{"type": "string"}}}, nil)},
	}
	for _, p := range s.Pages {
		paths[p] = pageItem(p)
	}
	return obj{
		"openapi": Version,
		"info": obj{
			"title":   "Tracecraft",
			"version": s.APIVersion,
			"summary": "Bitmap-to-SVG tracing service",
			"description": "Upload a PNG, JPEG, WebP, BMP or TIFF image and get back an SVG traced by one of several engines. " +
				"Every error is a JSON body {\"error\":{\"code\",\"message\",\"details\"}}; a path that does not exist is " +
				"404 not_found and a method a path does not accept is 405 method_not_allowed, with the same body. " +
				"Every response carries X-Request-Id and X-Tracecraft-Version.",
		},
		"paths": paths,
		"components": obj{
			"schemas":         s.schemas(),
			"headers":         headers(),
			"securitySchemes": obj{"apiKey": obj{"type": "apiKey", "in": "header", "name": "X-API-Key", "description": "An API key: tc_ followed by 32 letters and digits, issued by the operator."}},
		},
	}
}

// pageItem describes a path of the web page: a file answered to GET and HEAD, with
// ETag revalidation.
func pageItem(p string) obj {
	ctype := "text/html"
	if ext := path.Ext(p); ext == ".js" {
		ctype = "text/javascript"
	} else if t := mime.TypeByExtension(ext); t != "" {
		ctype, _, _ = strings.Cut(t, ";")
	} else if ext != "" {
		ctype = "application/octet-stream"
	}
	what := "An asset of the web page (its name holds its content's hash, so it is cached for a year)"
	if p == "/" {
		what = "The web page: trace an image by hand through this API. Its scripts, styles and icon are served " +
			"under /assets/ with names holding their content's hash, which change every build; they are not listed here"
	}
	op := func(method string) obj {
		return obj{
			"operationId": method + "Page" + strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(p),
			"summary":     what,
			"tags":        []string{"web page"},
			"responses": obj{
				"200": obj{"description": what + ".", "headers": commonHeaders(), "content": obj{ctype: obj{"schema": obj{"type": "string"}}}},
				"304": obj{"description": "Not modified: If-None-Match holds the current ETag.", "headers": commonHeaders()},
			},
		}
	}
	return obj{"get": op("get"), "head": op("head")}
}

func jsonContent(schema obj) obj { return obj{"application/json": obj{"schema": schema}} }

// commonHeaders are the headers of every response.
func commonHeaders() obj {
	return obj{"X-Request-Id": ref("headers", "RequestId"), "X-Tracecraft-Version": ref("headers", "Version")}
}

func headers() obj {
	str := obj{"type": "string"}
	return obj{
		"RequestId":  obj{"description": "The request's id: the client's X-Request-Id if it is 1 to 64 of A-Z a-z 0-9 . _ -, else a new one.", "schema": str},
		"Version":    obj{"description": "The API version.", "schema": str},
		"RetryAfter": obj{"description": "Seconds to wait before retrying, 1 to 3600.", "required": true, "schema": obj{"type": "integer", "minimum": 1, "maximum": 3600}},
		"Backoff": obj{"description": "With engine_unavailable for an engine refused after a crash loop: seconds until it is tried again.",
			"schema": obj{"type": "integer", "minimum": 1}},
		"Engine": obj{"description": "With a bare file (Accept: image/svg+xml, ...): the engine that traced the image.", "schema": str},
		"EngineVersion": obj{"description": "With a bare file (Accept: image/svg+xml, ...): the version of the engine plugin.",
			"schema": str},
		"Preset":       obj{"description": "With a bare file (Accept: image/svg+xml, ...): the preset applied, if any.", "schema": str},
		"OriginalSize": obj{"description": "With a bare file (Accept: image/svg+xml, ...): the uploaded file's size in bytes.", "schema": obj{"type": "integer", "minimum": 0}},
		"Quality": obj{"description": "With a bare file, when output.quality is true: the trace's score, \"ssim=0.9834; psnr=27.12\" " +
			"(ssim absent for an image under 11 pixels on a side). See Quality.", "schema": str},
		"NoSniff": obj{"description": "nosniff: a browser must not read the answer as anything but its Content-Type.", "schema": str},
		"SVGPolicy": obj{"description": "A policy under which the SVG, opened in a browser, loads nothing and runs no script: " +
			"default-src 'none'; style-src 'unsafe-inline'; sandbox.", "schema": str},
		"ContentDisposition": obj{"description": "With a bare file: inline; filename=\"trace.<format>\".", "schema": str},
	}
}

// op describes a GET operation that answers 200 with content, or an error.
func (s Service) op(id, summary, description string, content obj, extraCodes []string) obj {
	o := obj{"operationId": id, "summary": summary}
	if description != "" {
		o["description"] = description
	}
	responses := errorResponses(append(slices.Clone(extraCodes), fault.Internal))
	responses["200"] = obj{"description": summary + ".", "headers": commonHeaders(), "content": content}
	o["responses"] = responses
	return o
}

// errorResponses describes the error answers carrying codes, one response per status
// with the codes it can hold.
func errorResponses(codes []string) obj {
	byStatus := map[int][]string{}
	for _, c := range codes {
		st := fault.Status(c)
		byStatus[st] = append(byStatus[st], c)
	}
	out := obj{}
	for st, cs := range byStatus {
		var lines []string
		for _, c := range cs {
			if k, ok := fault.Lookup(c); ok {
				c += ": " + k.When + "; " + k.Do
			}
			lines = append(lines, "- "+c)
		}
		h := commonHeaders()
		if slices.Contains(cs, fault.QueueFull) || slices.Contains(cs, fault.TooManyUploads) {
			h["Retry-After"] = ref("headers", "RetryAfter")
		} else if slices.Contains(cs, fault.EngineUnavailable) {
			h["Retry-After"] = ref("headers", "Backoff")
		}
		out[fmt.Sprint(st)] = obj{
			"description": "Error codes:\n" + strings.Join(lines, "\n"),
			"headers":     h,
			"content":     jsonContent(errorBody(cs)),
		}
	}
	return out
}

// errorBody is the schema of an error body whose code is one of codes (nil: any): the Error
// component spelled out rather than extended with allOf, which client generators turn
// into a type that keeps only the code.
func errorBody(codes []string) obj {
	code := obj{"type": "string", "description": "A code a program can branch on."}
	if codes != nil {
		code["enum"] = codes
	}
	return obj{
		"type":     "object",
		"required": []string{"error"},
		"properties": obj{"error": obj{
			"type":     "object",
			"required": []string{"code", "message"},
			"properties": obj{
				"code":    code,
				"message": obj{"type": "string", "description": "What went wrong and what to do, for a person."},
				"details": obj{"type": "array", "items": ref("schemas", "ErrorDetail"), "description": "Every problem found."},
			},
		}},
	}
}

func (s Service) vectorizeOp() obj {
	mb := float64(s.MaxBytes) / (1 << 20)
	mp := float64(s.MaxPixels) / 1e6
	responses := errorResponses(vectorizeCodes)
	h := commonHeaders()
	for name, c := range map[string]string{"X-Tracecraft-Engine": "Engine", "X-Tracecraft-Engine-Version": "EngineVersion",
		"X-Tracecraft-Preset": "Preset", "X-Tracecraft-Original-Size": "OriginalSize", "X-Tracecraft-Quality": "Quality",
		"X-Content-Type-Options": "NoSniff", "Content-Security-Policy": "SVGPolicy", "Content-Disposition": "ContentDisposition"} {
		h[name] = ref("headers", c)
	}
	responses["200"] = obj{
		"description": "The traced image: as JSON, or the bare file when Accept prefers its media type to application/json " +
			"(q-values count; a tie goes to JSON).",
		"headers": h,
		"content": outputContent(),
	}
	return obj{
		"operationId": "vectorize",
		"summary":     "Trace a bitmap image into an SVG",
		"description": "Without a key the job runs on the public lane; with a valid X-API-Key on the keyed lane, and counts " +
			"in the key's usage. A full queue is answered 429 before the body is read, and so are more uploads at once from one " +
			"address than the service receives (too_many_uploads); a body that arrives slower than the minimum upload rate " +
			"(see /llms.txt) is answered 408 upload_too_slow and its connection closed. The answer is JSON unless Accept prefers " +
			"a bare file: image/svg+xml, application/pdf, application/postscript (EPS), image/vnd.dxf or application/dxf, " +
			"image/png. Without output.format in the settings, that type also chooses the format; with it, only that " +
			"format's types are offered. An Accept that allows nothing offered is 406 not_acceptable.",
		"security": []any{obj{}, obj{"apiKey": []string{}}},
		"requestBody": obj{
			"required": true,
			"content": obj{"multipart/form-data": obj{
				"schema": obj{
					"type":     "object",
					"required": []string{"image"},
					"properties": obj{
						"image": obj{"type": "string", "contentMediaType": "application/octet-stream",
							"description": fmt.Sprintf("The image file: PNG, JPEG, WebP, BMP or TIFF, at most %d bytes (%g MiB) and %g megapixels. "+
								"The format is read from the bytes, never from the file name or Content-Type.", s.MaxBytes, mb, mp)},
						"settings": ref("schemas", "Settings"),
					},
				},
				"encoding": obj{"settings": obj{"contentType": "application/json"}},
			}},
		},
		"responses": responses,
	}
}

func (s Service) usageOp() obj {
	date := func(name, what string) obj {
		return obj{"name": name, "in": "query", "required": false, "description": what + " (YYYY-MM-DD, UTC, inclusive).",
			"schema": obj{"type": "string", "format": "date"}}
	}
	o := s.op("getUsage", "The calling key's usage per day",
		"Requests, successes, cancellations (the client went away before the answer), failures by status, bytes in and out, pixels and engine milliseconds, per day and in total. "+
			"from and to default to the last 30 days.",
		jsonContent(ref("schemas", "Usage")),
		[]string{fault.InvalidRequest, fault.MissingAPIKey, fault.InvalidAPIKey, fault.StoreUnavailable})
	o["parameters"] = []any{date("from", "First day"), date("to", "Last day")}
	o["security"] = []any{obj{"apiKey": []string{}}}
	return o
}

// paramSchema is the JSON Schema of one engine parameter's value.
func paramSchema(p sdk.Param) obj {
	o := obj{"description": p.Description}
	if p.Default != nil {
		o["default"] = p.Default
	}
	switch p.Type {
	case sdk.Number:
		o["type"] = "number"
		if p.Integer {
			o["type"] = "integer"
		}
		o["minimum"], o["maximum"] = p.Min, p.Max
		if p.Step > 0 {
			// A hint for user interfaces, not a constraint: values between steps are accepted.
			o["x-step"] = p.Step
		}
	case sdk.Enum:
		o["type"] = "string"
		o["enum"] = p.Values
	case sdk.Boolean:
		o["type"] = "boolean"
	case sdk.String:
		o["type"] = "string"
		max := p.MaxLength
		if max == 0 {
			max = sdk.DefaultMaxLength
		}
		// JSON Schema counts characters; the service counts bytes, which is stricter.
		o["maxLength"] = max
		o["x-maxBytes"] = max
		if p.Format != "" {
			o["format"] = p.Format
		}
	case sdk.List:
		max, items := p.MaxLength, p.MaxItems
		if max == 0 {
			max = sdk.DefaultMaxLength
		}
		if items == 0 {
			items = sdk.DefaultMaxItems
		}
		item := obj{"type": "string", "maxLength": max, "x-maxBytes": max}
		if p.Format != "" {
			item["format"] = p.Format
		}
		o["type"], o["items"], o["maxItems"], o["uniqueItems"] = "array", item, items, true
	}
	return o
}

// engineSchema is the JSON Schema of an engine's parameter object.
func engineSchema(d sdk.Descriptor) obj {
	props := obj{}
	for _, p := range d.Params {
		props[p.Name] = paramSchema(p)
	}
	return obj{
		"type": "object",
		"description": fmt.Sprintf("%s (%s, version %s). Parameters left out keep their defaults.",
			strings.TrimSuffix(d.Description, "."), d.Stability, d.Version),
		"properties":           props,
		"additionalProperties": false,
	}
}

// schemas returns the document's component schemas.
func (s Service) schemas() obj {
	out := obj{}
	s.settingsSchemas(out)
	errorSchemas(out)
	outputSchemas(out)
	resultSchemas(out)
	healthSchemas(out)
	usageSchemas(out)
	return out
}

// settingsSchemas adds the schemas of the settings and of /api/schema: each engine's
// parameters, the presets and the parameter descriptors.
func (s Service) settingsSchemas(out obj) {
	cat := s.Catalog
	engineNames := []string{settings.Auto}
	settingsProps := obj{}
	schemaProps := obj{}
	for _, d := range cat.Engines {
		engineNames = append(engineNames, d.Name)
		out[ParamsSchema(d.Name)] = engineSchema(d)
		settingsProps[d.Name] = ref("schemas", ParamsSchema(d.Name))
		params := obj{}
		for _, p := range d.Params {
			params[p.Name] = ref("schemas", "ParamDescriptor")
		}
		schemaProps[d.Name] = obj{"type": "object", "description": "The parameters of " + d.Name + ".", "properties": params,
			"additionalProperties": false}
	}
	presetNames := []string{settings.Auto}
	for _, p := range cat.Presets {
		presetNames = append(presetNames, p.Name)
	}
	presetNames = append(presetNames, settings.Best)
	settingsProps["output"] = ref("schemas", "Output")
	settingsProps["background"] = obj{"type": "string", "enum": settings.BackgroundValues, "default": settings.BackgroundKeep,
		"description": fmt.Sprintf("remove makes the uniform colour connected to the image border (within %d, Euclidean distance of 8-bit sRGB) "+
			"transparent before tracing, with every engine; parts of that colour the drawing encloses stay.", background.Tolerance)}
	settingsProps["preset"] = obj{"type": "string", "enum": presetNames, "default": settings.Auto,
		"description": "A named engine and parameter set; auto measures the image and picks one; best traces the image with the two likeliest and keeps the trace whose quality score is higher."}
	settingsProps["engine"] = obj{"type": "string", "enum": engineNames, "default": settings.Auto,
		"description": "The engine to run; alone (without a preset) it runs at its defaults."}
	out["Settings"] = obj{
		"type": "object",
		"description": "Precedence: the preset's parameters, then an explicit engine, then explicit parameters. " +
			"Parameters of an engine other than the one used are validated, then ignored. At most 64 KiB.",
		"properties":           settingsProps,
		"additionalProperties": false,
	}

	schemaProps["engines"] = obj{"type": "array", "items": obj{"type": "string"}, "description": "Stable engines, auto after tracecraft."}
	schemaProps["experimentalEngines"] = obj{"type": "array", "items": obj{"type": "string"},
		"description": "Engines whose output may change between versions, by name."}
	schemaProps["namedEngines"] = obj{"type": "array", "items": obj{"type": "string"},
		"description": "Stable engines traced only when a request names them (auto never picks them), by name: " +
			"the bundled centerline."}
	schemaProps["presets"] = obj{"type": "object", "additionalProperties": ref("schemas", "Preset")}
	out["Schema"] = obj{
		"type":     "object",
		"required": []string{"engines", "experimentalEngines", "namedEngines", "presets"},
		"description": "engines, experimentalEngines, namedEngines, then one object per engine mapping each parameter to its " +
			"descriptor, then presets.",
		"properties": schemaProps,
		// An engine installed after this document was built is described the same way.
		"additionalProperties": obj{"type": "object", "additionalProperties": ref("schemas", "ParamDescriptor")},
	}
	out["ParamDescriptor"] = obj{
		"type":     "object",
		"required": []string{"type", "description"},
		"properties": obj{
			"type":        obj{"type": "string", "enum": []string{string(sdk.Number), string(sdk.Enum), string(sdk.Boolean), string(sdk.String), string(sdk.List)}},
			"min":         obj{"type": "number"},
			"max":         obj{"type": "number"},
			"default":     obj{"oneOf": []any{obj{"type": "number"}, obj{"type": "string"}, obj{"type": "boolean"}}},
			"step":        obj{"type": "number", "description": "A hint for user interfaces; values between steps are accepted."},
			"values":      obj{"type": "array", "items": obj{"type": "string"}},
			"description": obj{"type": "string"},
			"integer":     obj{"type": "boolean"},
			"format":      obj{"type": "string"},
			"maxLength":   obj{"type": "integer", "description": "In bytes; of each item for a list."},
			"maxItems":    obj{"type": "integer", "description": "The most items a list may have."},
		},
	}
	out["Preset"] = obj{
		"type":                 "object",
		"required":             []string{"description"},
		"properties":           obj{"engine": obj{"type": "string"}, "description": obj{"type": "string"}},
		"additionalProperties": obj{"type": "object", "description": "The parameters the preset sets, under its engine's name."},
	}
}

// errorSchemas adds the error body's schemas.
func errorSchemas(out obj) {
	out["Error"] = errorBody(nil) // any code
	out["ErrorDetail"] = obj{
		"type":     "object",
		"required": []string{"field", "message"},
		"properties": obj{
			"field":   obj{"type": "string", "description": "The field concerned, e.g. image or tracecraft.maxColors."},
			"message": obj{"type": "string"},
			"value":   obj{"description": "The offending value as given."},
			"code":    obj{"type": "string"},
		},
	}
}

// resultSchemas adds the schemas of the tracing answer.
func resultSchemas(out obj) {
	ms, count, str := obj{"type": "number", "minimum": 0}, obj{"type": "integer", "minimum": 0}, obj{"type": "string"}
	out["Timings"] = obj{
		"type":     "object",
		"required": []string{"queueMs", "analyzeMs", "decodeMs", "traceMs", "totalMs"},
		"properties": obj{"queueMs": ms, "analyzeMs": ms, "decodeMs": ms, "traceMs": ms, "totalMs": ms,
			"qualityMs": obj{"type": "number", "minimum": 0, "description": "When output.quality is true: the time the quality score took."}},
	}
	out["Quality"] = obj{
		"type":     "object",
		"required": []string{"ssim", "psnr"},
		"description": "The trace's fidelity to the image, scored as the project's bench scores it: the SVG rendered at the " +
			"image's size, both over white; SSIM (Wang et al. 2004: 11x11 Gaussian window, sigma 1.5, K1 0.01, K2 0.03) on " +
			"BT.601 luma and PSNR on RGB.",
		"properties": obj{
			"ssim": obj{"type": []string{"number", "null"}, "minimum": -1, "maximum": 1,
				"description": "Mean SSIM, 4 decimals; 1 is identical. null for an image under 11 pixels on a side."},
			"psnr": obj{"type": "number", "minimum": 0, "maximum": fidelity.MaxPSNR,
				"description": "PSNR in dB, 2 decimals; identical images give the cap, 100."},
		},
	}
	out["VectorizeResult"] = obj{
		"type":     "object",
		"required": []string{"svg", "engine", "originalSize", "svgSize", "width", "height", "settings", "timings", "lane", "engineVersion"},
		"properties": obj{
			"svg":          str,
			"engine":       obj{"type": "string", "description": "The engine that traced the image."},
			"originalSize": obj{"type": "integer", "minimum": 0, "description": "The uploaded file's size in bytes."},
			"svgSize":      obj{"type": "integer", "minimum": 0, "description": "The SVG's size in bytes."},
			"preset":       obj{"type": "string", "description": "The preset applied; for auto, the one chosen."},
			"width":        count,
			"height":       count,
			"settings": obj{"type": "object", "required": []string{"engine"},
				"description":          "Every parameter the engine used, defaults included, under the engine's name.",
				"properties":           obj{"engine": str, "preset": str},
				"additionalProperties": obj{"type": "object"}},
			"timings":       ref("schemas", "Timings"),
			"lane":          obj{"type": "string", "enum": []string{"public", "keyed"}},
			"engineVersion": str,
			"quality":       ref("schemas", "Quality"),
			"candidates": obj{"type": "array", "description": "Preset best only: the settings traced and scored, the kept one first.",
				"items": obj{"type": "object", "required": []string{"preset", "engine"}, "properties": obj{
					"preset": str, "variant": str, "engine": str,
					"svgSize": obj{"type": "integer", "minimum": 0},
					"quality": ref("schemas", "Quality"),
					"error":   obj{"type": "string", "description": "Why the setting has no score: the engine's error, or the time budget running out."},
				}}},
			"travelLength": obj{"type": "number", "minimum": 0,
				"description": "Engines that order strokes for a pen (centerline): the pen-up travel between strokes, in pixels."},
		},
	}
	for k, v := range resultFileProps() {
		out["VectorizeResult"].(obj)["properties"].(obj)[k] = v
	}
}

// healthSchemas adds the schemas of /api/health.
func healthSchemas(out obj) {
	count, str := obj{"type": "integer", "minimum": 0}, obj{"type": "string"}
	out["LaneStats"] = obj{
		"type":     "object",
		"required": []string{"name", "workers", "busy", "queued", "capacity"},
		"properties": obj{"name": str, "workers": count, "busy": count, "queued": count, "capacity": count,
			"avgJobMs": obj{"type": "integer", "minimum": 0, "description": "Forecast of a job's time with every worker busy, from recent job times."}},
	}
	out["EngineStatus"] = obj{
		"type":     "object",
		"required": []string{"name", "status"},
		"properties": obj{"name": str, "version": str, "stability": str,
			"sdkVersion": obj{"type": "string", "description": "the sdk release the engine was built with."},
			"protocol":   obj{"type": "integer", "description": "the protocol version the host speaks with the engine: the newest, or the one before for an engine built with the previous sdk release."},
			"status":     obj{"type": "string", "description": "ready, or failed when its file could not be loaded."},
			"error":      str,
			"processes":  count, "busy": count},
	}
	out["Health"] = obj{
		"type":     "object",
		"required": []string{"status", "version", "lanes", "engines"},
		"properties": obj{
			"status":  obj{"type": "string", "description": "ok, or degraded."},
			"version": str,
			"build":   str,
			"lanes":   obj{"type": "array", "items": ref("schemas", "LaneStats")},
			"engines": obj{"type": "array", "items": ref("schemas", "EngineStatus")},
		},
	}
}

// usageSchemas adds the schemas of a key's usage report.
func usageSchemas(out obj) {
	count, str := obj{"type": "integer", "minimum": 0}, obj{"type": "string"}
	day := obj{
		"type":     "object",
		"required": []string{"day", "requests", "successes", "cancelled", "failures", "inputBytes", "outputBytes", "pixels", "engineMs"},
		"properties": obj{
			"day": obj{"type": "string", "description": "YYYY-MM-DD, or total."}, "requests": count, "successes": count,
			"cancelled":  obj{"type": "integer", "minimum": 0, "description": "Requests whose client went away (closed the connection or aborted) before the answer: the job left the queue or was stopped in the engine. Neither successes nor failures."},
			"failures":   obj{"type": "object", "description": "Failed requests by HTTP status.", "additionalProperties": count},
			"inputBytes": count, "outputBytes": count, "pixels": count, "engineMs": count,
		},
	}
	out["UsageDay"] = day
	out["Usage"] = obj{
		"type":     "object",
		"required": []string{"key", "from", "to", "days", "total"},
		"properties": obj{
			"key": obj{"type": "object", "required": []string{"name", "prefix", "createdAt"}, "properties": obj{
				"name": str, "prefix": str,
				"createdAt":  obj{"type": "string", "format": "date-time"},
				"lastUsedAt": obj{"type": []string{"string", "null"}, "format": "date-time"},
			}},
			"from":  obj{"type": "string", "format": "date"},
			"to":    obj{"type": "string", "format": "date"},
			"days":  obj{"type": "array", "items": ref("schemas", "UsageDay")},
			"total": ref("schemas", "UsageDay"),
		},
	}
}
