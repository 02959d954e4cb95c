package sdk

import "github.com/tracecraft/tracecraft/sdk/internal/coded"

// Error codes an engine (or the sdk on its behalf) answers with. The host maps them to
// HTTP statuses: the image and settings codes are the client's to fix (400), the rest are
// the service's (500).
const (
	// CodeInvalidSettings: a parameter is unknown, of the wrong type or out of range.
	CodeInvalidSettings = coded.CodeInvalidSettings
	// CodeUnsupportedFormat: the bytes are not an image format the sdk decodes.
	CodeUnsupportedFormat = coded.CodeUnsupportedFormat
	// CodeCorruptImage: the image could not be decoded.
	CodeCorruptImage = coded.CodeCorruptImage
	// CodeTruncatedImage: the image data ends before the image does.
	CodeTruncatedImage = coded.CodeTruncatedImage
	// CodeEmptyImage: no bytes at all.
	CodeEmptyImage = coded.CodeEmptyImage
	// CodeTooManyPixels: width x height is over the host's pixel limit.
	CodeTooManyPixels = coded.CodeTooManyPixels
	// CodeOutputTooLarge: the SVG is larger than the protocol can carry.
	CodeOutputTooLarge = coded.CodeOutputTooLarge
	// CodeBadOutput: the SVG the engine made breaks the rules of svg.Check (an element,
	// attribute or reference that could harm a client, or a wrong viewBox); the sdk
	// answers with it instead of sending the SVG, and the host refuses such an SVG too.
	CodeBadOutput = coded.CodeBadOutput
	// CodeInternal: anything else; a bug in the engine.
	CodeInternal = coded.CodeInternal
)

// Error is an error with a machine-readable code and a message a person can act on.
// Return one from Engine.Trace to give the client a specific answer; any other error
// reaches the client as CodeInternal.
type Error = coded.Error

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error { return coded.Errorf(code, format, args...) }

// ErrorCode returns the code of the first *Error in err's chain, or CodeInternal.
func ErrorCode(err error) string { return coded.ErrorCode(err) }
