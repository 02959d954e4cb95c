// Package fault holds the host's error type: a code a program can branch on, a message a
// person can act on, and the details of every problem found. Domain packages return
// *Error values; package api alone maps their codes to HTTP statuses.
package fault

import (
	"errors"
	"fmt"

	"github.com/tracecraft/tracecraft/sdk"
)

// Error codes of the host. The image and settings codes are shared with the sdk, whose
// engines answer with them too.
const (
	MissingImage      = "missing_image"
	EmptyImage        = sdk.CodeEmptyImage
	UnsupportedFormat = sdk.CodeUnsupportedFormat
	CorruptImage      = sdk.CodeCorruptImage
	TruncatedImage    = sdk.CodeTruncatedImage
	ImageTooLarge     = "image_too_large"
	TooManyPixels     = sdk.CodeTooManyPixels
	InvalidSettings   = sdk.CodeInvalidSettings
	InvalidRequest    = "invalid_request"
	InvalidAPIKey     = "invalid_api_key"
	MissingAPIKey     = "missing_api_key"
	QueueFull         = "queue_full"
	JobTimeout        = "job_timeout"
	EngineCrashed     = "engine_crashed"
	EngineUnavailable = "engine_unavailable"
	StoreUnavailable  = "store_unavailable" // the key and usage database cannot be reached
	OutputTooLarge    = sdk.CodeOutputTooLarge
	EngineBadOutput   = sdk.CodeBadOutput // an engine's SVG failed svg.Check
	NotFound          = "not_found"
	MethodNotAllowed  = "method_not_allowed"
	Internal          = sdk.CodeInternal
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
	// Err is the underlying cause, kept for logs; it is never shown to clients.
	Err error
	// RetryAfter, when positive, is the number of seconds after which a retry may work,
	// sent as the Retry-After header.
	RetryAfter int
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

// Code returns the code of err: that of the first *Error or *sdk.Error in its chain, or
// Internal.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var s *sdk.Error
	if errors.As(err, &s) {
		return s.Code
	}
	return Internal
}

// As returns err as an *Error: itself if it is one, a copy of an *sdk.Error's code and
// message, or an Internal error whose message hides the cause.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var s *sdk.Error
	if errors.As(err, &s) {
		return &Error{Code: s.Code, Message: s.Message, Err: err}
	}
	return &Error{Code: Internal, Message: "the service failed unexpectedly; try again, and report it if it persists", Err: err}
}
