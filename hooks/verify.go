// Package hooks proves that record commits follow the rules: verify judges
// a range of commits, each against its parent, and the git hooks it
// installs run that judgement on laptops and servers.
package hooks

import (
	"errors"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// Rule names are stable: hooks, CI and people match on them. The kernel's
// judgment (kernel.JudgeCommit) names them.
const (
	RuleSignature   = kernel.RuleSignature   // signed by a principal in allowed_signers as of the parent
	RuleTrailers    = kernel.RuleTrailers    // well-formed trailers with the op's evidence
	RuleRecord      = kernel.RuleRecord      // every touched record parses and validates
	RuleLayout      = kernel.RuleLayout      // path matches id and type; no stray files
	RuleImmutable   = kernel.RuleImmutable   // id, type, created_at, provenance never change
	RuleMutationLog = kernel.RuleMutationLog // only appended to
	RuleNoDelete    = kernel.RuleNoDelete    // no record is deleted
	RuleLinks       = kernel.RuleLinks       // link targets exist (warning unless strict)
	RuleOpMatches   = kernel.RuleOpMatches   // the changes are what the op claims
	RuleHandle      = kernel.RuleHandle      // ids unique across types; an alias names one record
	RulePolicy      = kernel.RulePolicy      // the signer's profile allowed the op
	RuleApproval    = kernel.RuleApproval    // risky ops carry an approval the policy accepts
	RuleTrustRoot   = kernel.RuleTrustRoot   // the branch starts at the commit records.trustRoot pins
	RuleTime        = kernel.RuleTime        // dated no earlier than its parents, no later than the judge's clock
	RuleProposal    = kernel.RuleProposal    // apply and reject act only on a pending proposal
	RuleTrust       = kernel.RuleTrust       // after every commit, the trust files parse
)

// Finding is one broken rule in one commit.
type Finding struct {
	Commit   string `json:"commit"`
	Record   string `json:"record,omitempty"`
	Path     string `json:"path,omitempty"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Fix      string `json:"fix"`
	Severity string `json:"severity"` // error or warning
}

// Report is the outcome of verifying a range.
type Report struct {
	Commits    int       `json:"commits"`
	OK         bool      `json:"ok"`
	Violations []Finding `json:"violations"`
	Warnings   []Finding `json:"warnings"`
}

// Options tune verification.
type Options struct {
	Strict bool // dangling links are violations, not warnings
	// Now is the judge's clock (zero: the time Verify runs): no commit may
	// be dated after it by more than kernel.MaxClockSkew.
	Now time.Time
	// Receipt says the commits are being received now (server hooks,
	// pre-push), not judged as history: a signing key must then be valid
	// at Now as well as at the commit's date.
	Receipt bool
	// Progress, when set, hears each commit judged of all the range holds.
	Progress gitstore.Progress `json:"-"`
}

// Verify judges each commit in commits (parents first) against its first
// parent. Cost follows the commits and what they change, not the size of
// the store: each commit costs one tree diff, the touched records and a few
// tree lookups.
func Verify(s *gitstore.Store, commits []plumbing.Hash, opts Options) (*Report, error) {
	rep := &Report{Violations: []Finding{}, Warnings: []Finding{}}
	trust := newTrustCache(s)
	warned := map[[3]string]bool{}
	for i, h := range commits {
		// Signatures are checked a window ahead, in the background.
		if i%sigWindow == 0 {
			if err := trust.prefetch(commits[i:min(i+2*sigWindow, len(commits))]); err != nil {
				return nil, err
			}
		}
		fs, err := verifyCommit(s, trust, h, opts)
		if err != nil {
			return nil, err
		}
		rep.Commits++
		if opts.Progress != nil {
			opts.Progress(rep.Commits, len(commits))
		}
		for _, f := range fs {
			if f.Severity == "warning" {
				// A dangling link is one finding, not one per commit that
				// touches the record while it dangles.
				key := [3]string{f.Rule, f.Record, f.Message}
				if warned[key] {
					continue
				}
				warned[key] = true
				rep.Warnings = append(rep.Warnings, f)
			} else {
				rep.Violations = append(rep.Violations, f)
			}
		}
	}
	rep.OK = len(rep.Violations) == 0
	return rep, nil
}

// trustCache loads the kernel.Trust of commits, sharing one between
// commits that see the same store files (consecutive commits usually do),
// with its keys read once for the signature check.
type trustCache struct {
	s     *gitstore.Store
	w     *gitstore.Walk // reads the commits judged, sharing trees, records and handles
	cache map[plumbing.Hash]*kernel.Trust
	blobs map[[2]plumbing.Hash]*kernel.Trust
	keys  map[*kernel.Trust][]signing.AllowedSigner
	// pending are signatures being checked ahead of the judge (prefetch).
	pending map[plumbing.Hash]*pendingCheck
}

func newTrustCache(s *gitstore.Store) *trustCache {
	return &trustCache{s: s, w: s.Walk(), cache: map[plumbing.Hash]*kernel.Trust{}, blobs: map[[2]plumbing.Hash]*kernel.Trust{},
		keys: map[*kernel.Trust][]signing.AllowedSigner{}, pending: map[plumbing.Hash]*pendingCheck{}}
}

// at returns the trust of a commit's tree.
func (c *trustCache) at(commit plumbing.Hash) (*kernel.Trust, error) {
	if t, ok := c.cache[commit]; ok {
		return t, nil
	}
	v, err := c.w.ViewAt(commit)
	if err != nil {
		return nil, err
	}
	key := v.TrustFiles()
	if t, ok := c.blobs[key]; ok {
		c.cache[commit] = t
		return t, nil
	}
	t, err := v.Trust()
	if err != nil {
		return nil, err
	}
	c.cache[commit], c.blobs[key] = t, t
	return t, nil
}

// sshSigners are a trust's signers with their keys read for VerifySSH.
func (c *trustCache) sshSigners(t *kernel.Trust) ([]signing.AllowedSigner, error) {
	if k, ok := c.keys[t]; ok {
		return k, nil
	}
	k, err := gitstore.AllowedSigners(t.Signers())
	if err != nil {
		return nil, err
	}
	c.keys[t] = k
	return k, nil
}

// judging is the trust a commit is judged under: for a commit with one
// parent, the parent's; for a merge, the newest either parent carries
// (kernel.MergeTrust), whichever parent comes first; for the root commit
// (the trust root), its own. baseOf gives a merge's merge base, asked for
// only when the parents' trusts differ.
func (c *trustCache) judging(co *gitstore.Commit, baseOf func() (plumbing.Hash, error)) (*kernel.Trust, error) {
	if len(co.ParentHashes) == 0 {
		return c.at(co.Hash)
	}
	ours, err := c.at(co.ParentHashes[0])
	if err != nil || len(co.ParentHashes) == 1 {
		return ours, err
	}
	theirs, err := c.at(co.ParentHashes[1])
	if err != nil || ours.Equal(theirs) {
		return ours, err
	}
	base, err := baseOf()
	if err != nil || base.IsZero() {
		return ours, err // unrelated histories are refused by the judgment (kernel.JudgeCommit)
	}
	then, err := c.at(base)
	if err != nil {
		return nil, err
	}
	return kernel.MergeTrust(then, ours, theirs), nil
}

// findingsOf turns the kernel's verdict on one commit into findings.
func findingsOf(commit string, vs []kernel.Violation) []Finding {
	out := make([]Finding, 0, len(vs))
	for _, v := range vs {
		sev := "error"
		if v.Warning {
			sev = "warning"
		}
		out = append(out, Finding{Commit: commit, Record: v.Record, Path: v.Path, Rule: v.Rule, Message: v.Message, Fix: v.Fix, Severity: sev})
	}
	return out
}

// verifyCommit gathers the facts of one commit and asks the kernel's
// judgment about them (kernel.JudgeCommit).
func verifyCommit(s *gitstore.Store, tc *trustCache, h plumbing.Hash, opts Options) ([]Finding, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	var receivedAt time.Time
	if opts.Receipt {
		receivedAt = now
	}
	f, err := commitFacts(s, tc, h, now, receivedAt)
	if err != nil {
		return nil, err
	}
	f.StrictLinks = opts.Strict
	verdict, err := kernel.JudgeCommit(f)
	if err != nil {
		return nil, err
	}
	return findingsOf(h.String(), verdict.Violations), nil
}

// messageOf is a coded error's message without its code.
func messageOf(err error) string {
	var e *kernel.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
