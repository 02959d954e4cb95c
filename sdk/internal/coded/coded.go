// Package coded holds the coded error type that package sdk exports as sdk.Error, in a
// package of its own so that sdk/raster can return it while sdk uses raster.
package coded

import (
	"errors"
	"fmt"
)

// The error codes, documented where package sdk exports them (sdk.CodeX). The host's
// error table (host/internal/fault) holds each with its HTTP status; a test there checks
// that it does.
const (
	CodeInvalidSettings   = "invalid_settings"
	CodeUnsupportedFormat = "unsupported_format"
	CodeCorruptImage      = "corrupt_image"
	CodeTruncatedImage    = "truncated_image"
	CodeEmptyImage        = "empty_image"
	CodeTooManyPixels     = "too_many_pixels"
	CodeOutputTooLarge    = "output_too_large"
	CodeInternal          = "internal"
)

// Error is the coded error that package sdk exports as sdk.Error.
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
