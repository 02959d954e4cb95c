package fault

import (
	"fmt"
	"net/http"
	"strings"
)

// Kind is one error code of the service: the HTTP status it is answered with, when it is
// answered and what the client should do about it.
type Kind struct {
	Code   string
	Status int
	// When says in a few words when the code is answered.
	When string
	// Do says what the client should do.
	Do string
}

// Kinds is the service's one table of error codes, in the order documents list them.
// The server's statuses, the OpenAPI document, /llms.txt, docs/errors.md and the
// README's error list are all made from it.
var Kinds = []Kind{
	{MissingImage, http.StatusBadRequest, "the request has no image file field, or is not multipart/form-data", "send the image in a multipart field named image"},
	{EmptyImage, http.StatusBadRequest, "the image file is empty", "send a non-empty image file"},
	{UnsupportedFormat, http.StatusBadRequest, "the file is not a PNG, JPEG, WebP, BMP or TIFF image (GIF, SVG, PDF, ...)", "convert the image to one of those formats"},
	{CorruptImage, http.StatusBadRequest, "the image data cannot be decoded", "re-export the image; the file is damaged"},
	{TruncatedImage, http.StatusBadRequest, "the data stops before the image does", "upload the whole file again"},
	{ImageTooLarge, http.StatusBadRequest, "the file is larger than the upload limit", "send a smaller file (the limit is in /llms.txt and the OpenAPI document)"},
	{TooManyPixels, http.StatusBadRequest, "width times height is over the pixel limit", "scale the image down"},
	{InvalidSettings, http.StatusBadRequest, "the settings are not a valid JSON object for the installed engines; details lists every problem", "correct each problem listed in details (GET /api/schema lists every parameter)"},
	{InvalidRequest, http.StatusBadRequest, "the request cannot be parsed (a broken multipart body, a bad date range)", "correct the request"},
	{InvalidAPIKey, http.StatusUnauthorized, "the X-API-Key header is empty, malformed, unknown or revoked", "send a valid key, or none for the public lane"},
	{MissingAPIKey, http.StatusUnauthorized, "the endpoint needs an X-API-Key header", "send your key in X-API-Key"},
	{NotFound, http.StatusNotFound, "no such endpoint", "check the path against the OpenAPI document"},
	{MethodNotAllowed, http.StatusMethodNotAllowed, "the endpoint does not take this method", "use the method the OpenAPI document lists"},
	{NotAcceptable, http.StatusNotAcceptable, "the Accept header allows none of the types the request can be answered with (JSON, or the file of the output format); details lists them", "send an Accept header with one of the listed types, or none for JSON"},
	{UploadTooSlow, http.StatusRequestTimeout, "the request body arrived slower than the service's minimum upload rate after its grace period, or not within the upload time limit (both in /llms.txt); the connection is closed", "send the request again over a faster connection, or send a smaller image"},
	{QueueFull, http.StatusTooManyRequests, "the lane's queue is full, or the upload memory budget is spent", "wait the Retry-After seconds, then retry"},
	{TooManyUploads, http.StatusTooManyRequests, "the client's address is already sending the most uploads the service receives at once from one address", "wait for one of your uploads to finish, then retry; send fewer at once"},
	{EngineCrashed, http.StatusInternalServerError, "the engine process crashed on the image; it has been restarted", "retry; if it crashes again, try other settings or another engine and report the image"},
	{OutputTooLarge, http.StatusInternalServerError, "the SVG is over the output limit", "use settings that give a simpler SVG (fewer colours, a larger tolerance) or a smaller image"},
	{EngineBadOutput, http.StatusInternalServerError, "the engine made an SVG the service refuses to serve (an element, attribute or reference outside the allow-list, or a wrong viewBox); the message names the engine and the first problem", "try another engine, and report the engine and the image to its author"},
	{Internal, http.StatusInternalServerError, "an unexpected failure in the service", "retry, and report it with the X-Request-Id if it persists"},
	{JobTimeout, http.StatusServiceUnavailable, "the job passed the job time limit and was stopped", "try a smaller image or simpler settings"},
	{EngineUnavailable, http.StatusServiceUnavailable, "the engine needed is not installed or cannot start, or crashed in a loop and is refused until its back-off passes", "wait the Retry-After seconds when given, else retry later, or choose another engine"},
	{StoreUnavailable, http.StatusServiceUnavailable, "the key and usage database cannot be reached; no trace ran", "retry shortly"},
}

// Lookup returns the table's entry for code.
func Lookup(code string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Code == code {
			return k, true
		}
	}
	return Kind{}, false
}

// Status returns the HTTP status code is answered with; a code missing from the table is
// a bug in the service and answers 500.
func Status(code string) int {
	if k, ok := Lookup(code); ok {
		return k.Status
	}
	return http.StatusInternalServerError
}

// Markdown returns the table as a Markdown table, for docs/errors.md and the README.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| code | status | when | what to do |\n|---|---|---|---|\n")
	for _, k := range Kinds {
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s |\n", k.Code, k.Status, k.When, k.Do)
	}
	return b.String()
}
