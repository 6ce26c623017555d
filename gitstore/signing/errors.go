package signing

import (
	"errors"
	"fmt"
)

// The kinds of error this package returns, for its callers to act on (and
// the store to give its codes): test for them with errors.Is. The Err*
// causes of a failed verification (verify.go) come with ErrNotVerified.
// Any other error is a failure of the machine (the file system, the
// random source).
var (
	// ErrNoSigningKey: nothing configured can sign (no key, a key that
	// cannot be read, a format git does not know, a key of the wrong kind).
	ErrNoSigningKey = errors.New("no signing key")
	// ErrSigningFailed: a signer was found and failed to sign; a signing
	// program that ran and failed comes as a *ProgramError.
	ErrSigningFailed = errors.New("signing failed")
	// ErrNotVerified: a signature that is not a valid one by an allowed
	// signer, with one of the Err* causes of verify.go.
	ErrNotVerified = errors.New("signature not verified")
	// ErrKeyExists: a key would have been written over an existing file.
	ErrKeyExists = errors.New("key file exists")
)

// kindError is an error of one of the kinds above: its text is its
// message alone, worded for the person who can act on it.
type kindError struct {
	kind    error
	message string
	cause   error
}

func (e *kindError) Error() string        { return e.message }
func (e *kindError) Is(target error) bool { return target == e.kind }
func (e *kindError) Unwrap() error        { return e.cause }

func noKeyErrorf(format string, args ...any) error {
	return &kindError{kind: ErrNoSigningKey, message: fmt.Sprintf(format, args...)}
}

// signingFailedf is ErrSigningFailed because of cause, which the message
// names after what was being done.
func signingFailedf(cause error, format string, args ...any) error {
	return &kindError{kind: ErrSigningFailed, cause: cause, message: fmt.Sprintf(format, args...) + ": " + cause.Error()}
}

// ProgramError is a signing program (ssh-keygen, gpg) that ran and did
// not sign; errors.Is(err, ErrSigningFailed) holds for it. Output is what
// the program printed, which says why.
type ProgramError struct {
	Command string // the program and what it was asked, as the message names it
	Output  string
	Err     error // how it ended
}

func (e *ProgramError) Error() string {
	return fmt.Sprintf("%s failed (%v): %s", e.Command, e.Err, e.Output)
}
func (e *ProgramError) Is(target error) bool { return target == ErrSigningFailed }
func (e *ProgramError) Unwrap() error        { return e.Err }
