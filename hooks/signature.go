package hooks

import (
	"bytes"
	"errors"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// Signature statuses, with the letter git's %G? prints for each.
const (
	SignatureGood         = "good"         // G: valid, by a principal in allowed_signers
	SignatureBad          = "bad"          // B: does not match the commit
	SignatureUnknownKey   = "unknown_key"  // U: valid, by a key allowed_signers does not list
	SignatureUnsigned     = "unsigned"     // N: no signature
	SignatureUnverifiable = "unverifiable" // E: cannot be checked here (OpenPGP/X.509, broken allowed_signers)
)

var signatureCodes = map[string]string{
	SignatureGood: "G", SignatureBad: "B", SignatureUnknownKey: "U", SignatureUnsigned: "N", SignatureUnverifiable: "E",
}

// Signature is what the records branch says about one commit's signature:
// git's %G?, %GS and %GF, checked in-process against .records/allowed_signers
// as of the commit's parent (the root commit against its own), exactly as
// verify judges it.
type Signature struct {
	Status    string `json:"status"`              // one of the Signature* constants
	Code      string `json:"code"`                // G, B, U, N or E
	Principal string `json:"principal,omitempty"` // the signer, when good
	Key       string `json:"key,omitempty"`       // SHA256 fingerprint of the signing key, when it parses
	Detail    string `json:"detail,omitempty"`    // why it is not good
	cause     error
}

// SignatureChecker checks the signatures of many commits, sharing the parsed
// allowed_signers between commits that see the same file.
type SignatureChecker struct {
	s     *gitstore.Store
	trust *trustCache
}

// NewSignatureChecker returns a checker for the commits of s.
func NewSignatureChecker(s *gitstore.Store) *SignatureChecker {
	return &SignatureChecker{s: s, trust: newTrustCache(s)}
}

// Check returns the signature status of one commit, under the trust verify
// judges it by (a merge: the newest trust either parent carries).
func (c *SignatureChecker) Check(commit plumbing.Hash) (Signature, error) {
	co, err := c.trust.w.Commit(commit)
	if err != nil {
		return Signature{}, err
	}
	tr, err := c.trust.judging(co, func() (plumbing.Hash, error) { return c.s.MergeBase(co.ParentHashes[0], co.ParentHashes[1]) })
	if err != nil {
		return Signature{}, err
	}
	msg, _ := gitstore.DecodeMessage(co.Message)
	return c.trust.signature(tr.For(kernel.Op(msg.Get(kernel.TrailerOp))), co, time.Time{})
}

// SignatureStatus is Check for a single commit: the status (good, bad,
// unknown_key, unsigned, unverifiable) and, when good, the signing principal.
func SignatureStatus(s *gitstore.Store, commit plumbing.Hash) (status, principal string, err error) {
	sig, err := NewSignatureChecker(s).Check(commit)
	return sig.Status, sig.Principal, err
}

// signature is the one place a commit's signature is judged, for verify and
// for log: against the signers of tr, the key valid at the instants
// kernel.SigningInstants names (the commit date; and receivedAt, the time
// of receipt, when the commit is being received rather than read as
// history).
func (c *trustCache) signature(tr *kernel.Trust, co *gitstore.Commit, receivedAt time.Time) (Signature, error) {
	raw, err := c.w.RawCommit(co.Hash)
	if err != nil {
		return Signature{}, err
	}
	payload, sig := signing.SplitSignature(raw)
	mk := func(status, detail string, cause error) Signature {
		return Signature{Status: status, Code: signatureCodes[status], Detail: detail, cause: cause}
	}
	if sig == nil {
		return mk(SignatureUnsigned, "commit is not signed", signing.ErrNoSignature), nil
	}
	if err := tr.Err(); err != nil {
		return mk(SignatureUnverifiable, err.Error(), err), nil
	}
	signers, err := c.sshSigners(tr)
	if err != nil {
		return mk(SignatureUnverifiable, err.Error(), err), nil
	}
	principal, fp, err := c.checked(co.Hash, payload, sig).Verify(signers, kernel.SigningInstants(co.Committer.When, receivedAt)...)
	err = gitstore.FromSigning(err)
	var out Signature
	switch {
	case err == nil:
		out = mk(SignatureGood, "", nil)
		out.Principal = principal
	case errors.Is(err, signing.ErrUnknownSigner):
		out = mk(SignatureUnknownKey, err.Error(), err)
	case errors.Is(err, signing.ErrUnsupportedFormat):
		out = mk(SignatureUnverifiable, err.Error(), err)
	default:
		out = mk(SignatureBad, err.Error(), err)
	}
	out.Key = fp
	return out, nil
}

// sigWindow is how many commits ahead of the judge verify checks
// signatures in the background.
const sigWindow = 256

// pendingCheck is a signature being checked in the background.
type pendingCheck struct {
	done    chan struct{}
	payload []byte
	sig     []byte
	checked *signing.Checked
}

// prefetch starts checking the signatures of commits, in parallel where
// the machine has cores, while the judge works through the commits before
// them: the cryptography does not depend on the trust a commit is judged
// under, so it can run ahead of the judgement, which stays in order.
func (c *trustCache) prefetch(commits []plumbing.Hash) error {
	var jobs []*pendingCheck
	for _, h := range commits {
		if _, ok := c.pending[h]; ok {
			continue
		}
		raw, err := c.w.RawCommit(h)
		if err != nil {
			return err
		}
		payload, sig := signing.SplitSignature(raw)
		if sig == nil {
			continue
		}
		p := &pendingCheck{done: make(chan struct{}), payload: payload, sig: sig}
		c.pending[h] = p
		jobs = append(jobs, p)
	}
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		go func() {
			for i := next.Add(1) - 1; i < int64(len(jobs)); i = next.Add(1) - 1 {
				jobs[i].checked = signing.CheckSSH(jobs[i].payload, jobs[i].sig)
				close(jobs[i].done)
			}
		}()
	}
	return nil
}

// checked is a commit's signature checked against its payload: the
// background check's when one was started, else checked now.
func (c *trustCache) checked(h plumbing.Hash, payload, sig []byte) *signing.Checked {
	if p, ok := c.pending[h]; ok {
		delete(c.pending, h)
		<-p.done
		if bytes.Equal(p.payload, payload) && bytes.Equal(p.sig, sig) {
			return p.checked
		}
	}
	return signing.CheckSSH(payload, sig)
}
