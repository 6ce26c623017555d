package kernel

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code. Codes are part of the public
// interface: the CLI prints them in {"error":{"code",...}} and maps them to exit
// codes, and adapters branch on them.
type Code string

const (
	// Contract codes (store contract §8.1).
	CodeMissingEvidence Code = "MISSING_EVIDENCE"
	CodeNotFound        Code = "NOT_FOUND"
	CodeAmbiguousID     Code = "AMBIGUOUS_ID"
	CodeSlugConflict    Code = "SLUG_CONFLICT"

	// Store codes.
	CodeInvalidRecord    Code = "INVALID_RECORD"    // a record or input that breaks the format
	CodeInvalidID        Code = "INVALID_ID"        // an id that cannot name a file in the layout
	CodeIDConflict       Code = "ID_CONFLICT"       // create with an id that already exists
	CodeConflict         Code = "CONFLICT"          // compare-and-swap lost too many times
	CodePermissionDenied Code = "PERMISSION_DENIED" // the policy forbids the op
	CodeNoSigningKey     Code = "NO_SIGNING_KEY"    // nothing to sign commits with
	CodeSigningFailed    Code = "SIGNING_FAILED"    // the signer ran and failed
	CodeNotAStore        Code = "NOT_A_STORE"       // no repository / no records branch
	CodeNotInitialized   Code = "NOT_INITIALIZED"   // a write to a ref that holds no records store (only init creates one)
	CodeUsage            Code = "USAGE"             // bad command-line use
	CodeInternal         Code = "INTERNAL"          // a bug or an I/O failure
	CodeVerifyFailed     Code = "VERIFY_FAILED"     // verification found violations
	CodeNotOwner         Code = "NOT_OWNER"         // a manage op by someone other than the execution record's owner
	CodeOpenRecords      Code = "OPEN_RECORDS"      // a sandbox retired while it owns open execution records
	CodeFormatTooNew     Code = "FORMAT_TOO_NEW"    // the store is in a newer format than this tool reads
	CodeFormatOutdated   Code = "FORMAT_OUTDATED"   // a write to a store in an older format: migrate it first
	CodeNotInstalled     Code = "NOT_INSTALLED"     // a program git-records runs (git-records-server) is not installed
	CodeUnsafePath       Code = "UNSAFE_PATH"       // an export path that would leave its target, or meets a file or link the export did not make

	// A signature only git can check (OpenPGP, X.509): callers decide
	// whether that fails verification or falls back to `git verify-commit`.
	CodeUnsupportedSignature Code = "UNSUPPORTED_SIGNATURE"
)

// Error is a user-facing error with a stable code. Extra carries structured
// detail that machine clients copy onto their error (e.g. "matches" for
// AMBIGUOUS_ID).
type Error struct {
	Code    Code
	Message string
	Extra   map[string]any
	Err     error // optional cause, for errors.Is/As
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds a coded error. The message should say what is wrong and what to do.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithExtra returns e with one more structured field.
func (e *Error) WithExtra(key string, value any) *Error {
	if e.Extra == nil {
		e.Extra = map[string]any{}
	}
	e.Extra[key] = value
	return e
}

// WithField names the input field the error is about, in the contract's
// terms (provenance.agent, evidence.rationale, expires_at, …), so each
// front-end can name its own way to set it (the CLI: --agent or
// GIT_RECORDS_AGENT). The message starts with the field.
func (e *Error) WithField(field string) *Error { return e.WithExtra("field", field) }

// AboutField is err naming field when it is a coded error that names
// none: the caller knows which input the refused value came from (a link
// target that does not exist, a revision that resolves to nothing).
// Anything else is returned as it is.
func AboutField(err error, field string) error {
	var e *Error
	if !errors.As(err, &e) || e.Extra["field"] != nil {
		return err
	}
	c := *e
	c.Extra = map[string]any{"field": field}
	for k, v := range e.Extra {
		c.Extra[k] = v
	}
	return &c
}

// MessageOf is the message of a coded error without its code, or err's text.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// FieldOf returns the input field a coded error names, or "".
func FieldOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		f, _ := e.Extra["field"].(string)
		return f
	}
	return ""
}

// Wrap attaches a cause to a coded error.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...) + ": " + err.Error(), Err: err}
}

// CodeOf returns the code of err, or CodeInternal when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// IsCode reports whether err carries code.
func IsCode(err error, code Code) bool { return err != nil && CodeOf(err) == code }
