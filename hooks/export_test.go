package hooks

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// LandingSignature is commit h's signature as verify checks it, as the
// fact the write path's judgment reads (for the corpus test).
func LandingSignature(s *gitstore.Store, h plumbing.Hash) (kernel.SignatureFacts, error) {
	sig, err := NewSignatureChecker(s).Check(h)
	return signatureFacts(sig), err
}
