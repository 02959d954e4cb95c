// Package fault holds the host's one error type, a code a program can branch on, a message
// a person can act on and the details of every problem found, and the one table of codes
// (Kinds) that gives each its HTTP status and its documentation. Domain packages return
// *Error values; package api writes them as HTTP answers with the table's status.
package fault

import (
	"errors"
	"fmt"

	"github.com/tracecraft/tracecraft/sdk"
)

// Error codes of the host, each with its row in Kinds. The sdk's codes (sdk.CodeX), which
// engines answer with, are among them with the same values; a test checks both.
const (
	MissingImage      = "missing_image"
	EmptyImage        = "empty_image"
	UnsupportedFormat = "unsupported_format"
	CorruptImage      = "corrupt_image"
	TruncatedImage    = "truncated_image"
	ImageTooLarge     = "image_too_large"
	TooManyPixels     = "too_many_pixels"
	InvalidSettings   = "invalid_settings"
	InvalidRequest    = "invalid_request"
	InvalidAPIKey     = "invalid_api_key"
	MissingAPIKey     = "missing_api_key"
	QueueFull         = "queue_full"
	TooManyUploads    = "too_many_uploads" // one address sends the most uploads at once
	UploadTooSlow     = "upload_too_slow"  // the body arrived slower than the minimum rate
	JobTimeout        = "job_timeout"
	EngineCrashed     = "engine_crashed"
	EngineUnavailable = "engine_unavailable"
	StoreUnavailable  = "store_unavailable" // the key and usage database cannot be reached
	OutputTooLarge    = "output_too_large"
	EngineBadOutput   = "engine_bad_output" // an engine's SVG failed svg.Check
	NotFound          = "not_found"
	MethodNotAllowed  = "method_not_allowed"
	NotAcceptable     = "not_acceptable" // the Accept header allows none of the answer's types
	Internal          = "internal"
)

// Detail is one problem of a request, named by the field it concerns.
type Detail struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Value   any    `json:"value,omitempty"`
	Code    string `json:"code,omitempty"`
}

// Error is a host error with a code, a message and, for invalid input, every problem
// found.
type Error struct {
	Code    string
	Message string
	Details []Detail
	// RetryAfter, when positive, is the number of seconds after which a retry has a fair
	// chance (a full queue, an engine backing off after a crash loop); the answer carries
	// it as Retry-After.
	RetryAfter int
	// Err is the underlying cause, kept for logs; it is never shown to clients.
	Err error
}

// Error returns the code and message.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an *Error with a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error with a formatted message and a cause kept for logs.
func Wrap(err error, code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// FromSDK returns an sdk coded error (an engine's answer across the plugin boundary, or
// the sdk's image decoder's) as an *Error with the same code and message, keeping the
// original as the cause, so that only *Error travels through the host; an error that
// already holds an *Error, and any other error, is returned as it is.
func FromSDK(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var s *sdk.Error
	if errors.As(err, &s) {
		return &Error{Code: s.Code, Message: s.Message, Err: err}
	}
	return err
}

// Code returns the code of the first *Error in err's chain, or Internal.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// As returns err as an *Error: itself if it is one, or an Internal error whose message
// hides the cause.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "the service failed unexpectedly; try again, and report it if it persists", Err: err}
}
