package gitdir

import (
	"errors"
	"fmt"
)

// The errors about what gitdir was asked, rather than a failure of git,
// the file system or the repository's data: the store turns each into the
// error its own callers expect. Test for them with errors.Is; every other
// error gitdir returns is a failure.
var (
	// ErrNotARepository: there is no repository gitdir can work on where
	// it was pointed (none there or above it, or one it does not support).
	ErrNotARepository = errors.New("not a git repository")
	// ErrRefused: a ref name or config key git refuses, or a ref update
	// git forbids where it was asked for.
	ErrRefused = errors.New("refused")
)

// inputError is an error of one of the kinds above: its text is its
// message alone, worded for the person who can fix the input.
type inputError struct {
	kind    error
	message string
	cause   error
}

func (e *inputError) Error() string        { return e.message }
func (e *inputError) Is(target error) bool { return target == e.kind }
func (e *inputError) Unwrap() error        { return e.cause }

func refused(format string, args ...any) error {
	return &inputError{kind: ErrRefused, message: fmt.Sprintf(format, args...)}
}

// notAStore is the error for "no repository here", worded for the CLI
// user; cause is nil or what made it so.
func notAStore(cause error, format string, args ...any) error {
	return &inputError{kind: ErrNotARepository, cause: cause,
		message: fmt.Sprintf(format, args...) + "; run git-records inside a git repository or pass --store DIR"}
}
