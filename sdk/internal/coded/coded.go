// Package coded holds the coded error type that package sdk exports as sdk.Error, in a
// package of its own so that sdk/raster can return it while sdk uses raster.
package coded

import (
	"errors"
	"fmt"
)

// Error codes an engine (or the sdk on its behalf) answers with. The host maps them to
// HTTP statuses: the image and settings codes are the client's to fix (400), the rest are
// the service's (500).
const (
	// CodeInvalidSettings: a parameter is unknown, of the wrong type or out of range.
	CodeInvalidSettings = "invalid_settings"
	// CodeUnsupportedFormat: the bytes are not an image format the sdk decodes.
	CodeUnsupportedFormat = "unsupported_format"
	// CodeCorruptImage: the image could not be decoded.
	CodeCorruptImage = "corrupt_image"
	// CodeTruncatedImage: the image data ends before the image does.
	CodeTruncatedImage = "truncated_image"
	// CodeEmptyImage: no bytes at all.
	CodeEmptyImage = "empty_image"
	// CodeTooManyPixels: width x height is over the host's pixel limit.
	CodeTooManyPixels = "too_many_pixels"
	// CodeOutputTooLarge: the SVG is larger than the protocol can carry.
	CodeOutputTooLarge = "output_too_large"
	// CodeBadOutput: the SVG the engine made breaks the rules of svg.Check.
	CodeBadOutput = "engine_bad_output"
	// CodeInternal: anything else; a bug in the engine.
	CodeInternal = "internal"
)

// Error is an error with a machine-readable code and a message a person can act on.
// Return one from Engine.Trace to give the client a specific answer; any other error
// reaches the client as CodeInternal.
type Error struct {
	Code    string
	Message string
}

// Error returns the message prefixed with the code.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, or CodeInternal.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}
