package gitstore

import (
	"errors"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// fromGitdir gives an error gitdir returns about its input the kernel
// code the store's callers act on: no repository is NOT_A_STORE, a name
// or update git refuses is USAGE. Any other error is a failure and is
// returned as it is (kernel.CodeOf reads it as INTERNAL).
func fromGitdir(err error) error {
	var code kernel.Code
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gitdir.ErrNotARepository):
		code = kernel.CodeNotAStore
	case errors.Is(err, gitdir.ErrRefused):
		code = kernel.CodeUsage
	default:
		return err
	}
	return &kernel.Error{Code: code, Message: err.Error(), Err: err}
}
