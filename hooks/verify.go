// Package hooks proves that record commits follow the rules: verify judges
// a range of commits, each against its parent, and the git hooks it
// installs run that judgement on laptops and servers.
package hooks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// Rule names are stable: hooks, CI and people match on them.
const (
	RuleSignature   = "signature"            // signed by a principal in allowed_signers as of the parent
	RuleTrailers    = kernel.RuleTrailers    // well-formed trailers with the op's evidence
	RuleRecord      = "record"               // every touched record parses and validates
	RuleLayout      = kernel.RuleLayout      // path matches id and type; no stray files
	RuleImmutable   = kernel.RuleImmutable   // id, type, created_at, provenance never change
	RuleMutationLog = kernel.RuleMutationLog // only appended to
	RuleNoDelete    = kernel.RuleNoDelete    // no record is deleted
	RuleLinks       = "links"                // link targets exist (warning unless strict)
	RuleOpMatches   = kernel.RuleOpMatches   // the changes are what the op claims
	RuleHandle      = kernel.RuleHandle      // ids unique across types; an alias names one record
	RulePolicy      = "policy"               // the signer's profile allowed the op
	RuleApproval    = "approval"             // risky ops carry an approval the policy accepts
	RuleTrustRoot   = "trust-root"           // the branch starts at the commit records.trustRoot pins
	RuleTime        = "time"                 // dated no earlier than its parents, no later than the judge's clock
	RuleProposal    = kernel.RuleProposal    // apply and reject act only on a pending proposal
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
	k, err := signing.FromKernel(t.Signers())
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
		return ours, err // unrelated histories are refused by checkMerge
	}
	then, err := c.at(base)
	if err != nil {
		return nil, err
	}
	return kernel.MergeTrust(then, ours, theirs), nil
}

// judge collects the findings about one commit (or, for pre-commit, about
// the staged changes: commit is nil and id is "staged").
type judge struct {
	tc      *trustCache
	s       *gitstore.Store
	w       *gitstore.Walk // what the judge reads commits, trees and records through
	commit  *gitstore.Commit
	id      string
	linksAt plumbing.Hash // commit whose records link targets must exist in
	// now is the judge's clock; receivedAt is now when the commits are
	// being received (Options.Receipt), zero for history.
	now, receivedAt time.Time
	findings        []Finding
	// What checkChanges read, for the execution rules that need the signer.
	records []kernel.RecordChange
	before  kernel.View
	paths   map[string]string
}

func (j *judge) add(rule, record, path, severity, fix, format string, args ...any) {
	j.findings = append(j.findings, Finding{Commit: j.id, Record: record, Path: path, Rule: rule,
		Message: fmt.Sprintf(format, args...), Fix: fix, Severity: severity})
}

func (j *judge) violation(rule, record, path, fix, format string, args ...any) {
	j.add(rule, record, path, "error", fix, format, args...)
}

func verifyCommit(s *gitstore.Store, tc *trustCache, h plumbing.Hash, opts Options) ([]Finding, error) {
	c, err := tc.w.Commit(h)
	if err != nil {
		return nil, err
	}
	j := &judge{s: s, w: tc.w, tc: tc, commit: c, id: h.String(), linksAt: h, now: opts.Now}
	if j.now.IsZero() {
		j.now = time.Now()
	}
	if opts.Receipt {
		j.receivedAt = j.now
	}
	if err := j.checkTime(); err != nil {
		return nil, err
	}
	if err := kernel.CheckCommitEncoding(c.Encoding); err != nil {
		j.violation(RuleTrailers, "", "", "commit with git records, or with git without i18n.commitEncoding", "%s", messageOf(err))
	}
	var parent plumbing.Hash
	if len(c.ParentHashes) > 0 {
		parent = c.ParentHashes[0]
	}
	// The root commit is the trust root: it is judged by its own signers,
	// and records.trustRoot, when set, says which root to accept.
	if parent.IsZero() {
		if pinned, ok := s.ConfigValue("records.trustRoot"); ok && pinned != "" && !strings.HasPrefix(h.String(), strings.ToLower(pinned)) {
			j.violation(RuleTrustRoot, "", "", "if this history is the one you trust, pin it: git config records.trustRoot "+h.String(),
				"root commit %s is not the pinned trust root %s", h.String()[:12], pinned)
		}
	}
	msg, merr := gitstore.DecodeMessage(c.Message)
	op := kernel.Op(msg.Get(kernel.TrailerOp))
	var base plumbing.Hash
	if len(c.ParentHashes) == 2 {
		if base, err = s.MergeBase(c.ParentHashes[0], c.ParentHashes[1]); err != nil {
			return nil, err
		}
	}
	tr, err := tc.judging(c, func() (plumbing.Hash, error) { return base, nil })
	if err != nil {
		return nil, err
	}
	tr = tr.For(op)
	principal, err := j.checkSignature(tr)
	if err != nil {
		return nil, err
	}
	if merr != nil {
		j.violation(RuleTrailers, "", "", "rewrite the commit with git records (its message must end in Record-Op/Record-Id/Record-Agent trailers)", "%v", merr)
	} else {
		j.checkTrailers(msg, op)
	}
	if len(c.ParentHashes) > 1 {
		if err := j.checkMerge(op, msg, base); err != nil {
			return nil, err
		}
		if principal != "" && op != "" {
			j.checkPolicy(tr, principal, op, msg, kernel.RequiredRights(op, nil, nil))
		}
		return j.findings, nil
	}
	if op == kernel.OpMerge {
		j.violation(RuleOpMatches, "", "", "merge record branches with git records sync / merge", "a merge commit has two parents, this one has %d", len(c.ParentHashes))
	}
	changes, err := j.w.Changes(parent, h)
	if err != nil {
		return nil, err
	}
	rights, err := j.checkChanges(changes, parent, op, msg, opts)
	if err != nil {
		return nil, err
	}
	if err := j.checkTrustFiles(changes); err != nil {
		return nil, err
	}
	if principal != "" && op != "" {
		j.checkPolicy(tr, principal, op, msg, rights)
		// Execution records: managed by their owner (the signer), within
		// the policy's limits, sandboxes retired only when nothing is open.
		for _, v := range kernel.CheckExecution(op, msg.Trailers, j.records, j.before, principal, tr.Policy().Execution) {
			j.violation(v.Rule, v.Record, j.paths[v.Record], v.Fix, "%s", v.Message)
		}
	}
	if err := j.checkBindings(changes, parent, h, op, msg); err != nil {
		return nil, err
	}
	return j.findings, nil
}

// checkTime holds the commit's date to kernel.CheckCommitTime: no earlier
// than its parents', no later than the judge's clock plus the skew.
func (j *judge) checkTime() error {
	var parents []time.Time
	for _, p := range j.commit.ParentHashes {
		pc, err := j.w.Commit(p)
		if err != nil {
			return err
		}
		parents = append(parents, pc.Committer.When)
	}
	if err := kernel.CheckCommitTime(j.commit.Committer.When, parents, j.now); err != nil {
		j.violation(RuleTime, "", "", "commit with your clock set right (git records writes dates no earlier than the parent); a key cannot sign into a validity window that has closed",
			"%s", messageOf(err))
	}
	// The date judged above is the one every reader must see: an author or
	// committer line git would read differently is refused.
	for _, id := range []struct{ header, line string }{{"author", j.commit.AuthorLine}, {"committer", j.commit.CommitterLine}} {
		if err := kernel.CheckIdent(id.header, id.line); err != nil {
			j.violation(RuleTime, "", "", "commit with git records or git commit, which write the identity and date as git fsck --strict expects",
				"%s", messageOf(err))
		}
	}
	return nil
}

// messageOf is a coded error's message without its code.
func messageOf(err error) string {
	var e *kernel.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// checkSignature returns the signing principal ("" when the signature fails).
func (j *judge) checkSignature(tr *kernel.Trust) (string, error) {
	sig, err := j.tc.signature(tr, j.commit, j.receivedAt)
	if err != nil {
		return "", err
	}
	const fix = "sign record commits with a key listed in .records/allowed_signers (git records init --generate-key, then have a maintainer add the key)"
	switch sig.Status {
	case SignatureGood:
		return sig.Principal, nil
	case SignatureUnsigned:
		j.violation(RuleSignature, "", "", fix, "commit is not signed")
	case SignatureUnknownKey:
		if errors.Is(sig.cause, signing.ErrKeyNotValid) {
			j.violation(RuleSignature, "", "", "a maintainer renews the key's window in .records/allowed_signers (valid-after/valid-before), or sign with a key that is valid now",
				"signed by %s", messageOf(sig.cause))
			break
		}
		j.violation(RuleSignature, "", "", fix, "signed by key %s, which is not in .records/allowed_signers as of the parent commit", sig.Key)
	case SignatureUnverifiable:
		if errors.Is(sig.cause, signing.ErrUnsupportedFormat) {
			j.violation(RuleSignature, "", "", "sign record commits with an SSH key (gpg.format=ssh)", "signature is not an SSH signature; git-records verifies SSH signatures")
		} else {
			j.violation(RuleSignature, "", gitstore.AllowedSignersPath, kernel.RepairHint, "%s", messageOf(sig.cause))
		}
	default:
		j.violation(RuleSignature, "", "", fix, "bad signature: %v", sig.cause)
	}
	return "", nil
}

func (j *judge) checkTrailers(msg gitstore.CommitMessage, op kernel.Op) {
	const fix = "write records with git records, which adds the evidence trailers"
	spec, known := kernel.OpSpecs()[op]
	if !known {
		j.violation(RuleTrailers, "", "", fix, "Record-Op %q is not a known op", op)
		return
	}
	// A key that carries one value appears once: git shows every copy
	// (%(trailers:key=Record-Op)), so a second one would let a commit say
	// one op to people and another to verify.
	for _, key := range singleTrailers {
		if n := len(msg.All(key)); n > 1 {
			j.violation(RuleTrailers, "", "", fix, "%s appears %d times: a record commit carries one", key, n)
		}
	}
	if msg.Get(kernel.TrailerAgent) == "" {
		j.violation(RuleTrailers, "", "", fix, "Record-Agent trailer is missing")
	}
	// Record-Format names the format of the branch the commit leaves, one
	// this tool reads: a newer tool judges history of every older format.
	if v, err := j.w.ViewAt(j.linksAt); err == nil {
		if f, err := v.Format(); err == nil {
			if msg := kernel.CheckCommitFormat(msg.Get(kernel.TrailerFormat), f); msg != "" {
				j.violation(RuleTrailers, "", "", fix, "%s", msg)
			}
		} else {
			j.violation(RuleTrailers, "", gitstore.FormatPath, "write the format version, a positive integer", "%v", err)
		}
	}
	for _, key := range spec.RequiredTrailers {
		if msg.Get(key) == "" {
			j.violation(RuleTrailers, "", "", fix, "%s commit lacks its evidence trailer %s", op, key)
		}
	}
	// A merge names the records it writes, which may be none (theirs only
	// changed store files): checkMerge holds it to exactly those.
	if op != kernel.OpInit && op != kernel.OpPolicy && op != kernel.OpMerge && op != kernel.OpBind && msg.Get(kernel.TrailerID) == "" {
		j.violation(RuleTrailers, "", "", fix, "Record-Id trailer is missing")
	}
}

// singleTrailers are the keys a record commit carries at most once (Record-Id,
// Evidence-Link and Evidence-Supersedes repeat, one per record or link).
var singleTrailers = []string{kernel.TrailerOp, kernel.TrailerAgent, kernel.TrailerFormat, kernel.TrailerSession,
	kernel.TrailerFields, kernel.TrailerProposer, kernel.TrailerProposal, kernel.TrailerNewBody, kernel.TrailerRationale,
	kernel.TrailerReason, kernel.TrailerTargetStatus, kernel.TrailerApprovedBy, kernel.TrailerApprovalSignature}

// touchedRecord is one record a commit changed, as verify saw it.
type touchedRecord struct {
	id, typ, category string
}

// checkChanges gathers what a single-parent commit changes from git and
// asks the kernel's postcondition about it. What only git knows stays
// here: file modes, store files, paths that are no record, files that do
// not parse, and links that dangle at the commit.
func (j *judge) checkChanges(changes []gitstore.Change, parent plumbing.Hash, op kernel.Op, msg gitstore.CommitMessage, opts Options) ([]kernel.Right, error) {
	var records []kernel.RecordChange
	var payloads []kernel.PayloadFile
	var links []linkCheck
	paths := map[string]string{} // record id -> path, for the findings
	for _, c := range changes {
		if !c.New.IsZero() && c.Mode != filemode.Regular {
			j.violation(RuleLayout, "", c.Path, "store files are plain files (mode 100644): no symlinks, executables or submodules", "%s has mode %s", c.Path, c.Mode)
			continue
		}
		switch c.Path {
		case gitstore.FormatPath:
			if op != kernel.OpInit && op != kernel.OpMigrate {
				j.violation(RuleOpMatches, "", c.Path, "only init and migrate write the format file", "%s commit changes %s", op, c.Path)
			}
			continue
		case gitstore.BindingsPath:
			continue // checkBindings
		case gitstore.AllowedSignersPath, gitstore.PolicyPath, gitstore.AttributesPath:
			if op != kernel.OpInit && op != kernel.OpPolicy {
				j.violation(RuleOpMatches, "", c.Path, "change who may sign or act in a policy commit (git records policy / signers)", "%s commit changes %s", op, c.Path)
			} else if op == kernel.OpInit && !parent.IsZero() && c.Path == gitstore.PolicyPath {
				j.violation(RuleOpMatches, "", c.Path, "change the policy in a policy commit", "init commit changes %s on an existing branch", c.Path)
			}
			if c.New.IsZero() {
				j.violation(RuleNoDelete, "", c.Path, "restore the file", "%s is deleted", c.Path)
			}
			continue
		}
		if kernel.IsPayloadPath(c.Path) {
			pf := kernel.PayloadFile{Path: c.Path, Deleted: c.New.IsZero()}
			if !pf.Deleted {
				data, err := j.s.Blob(c.New)
				if err != nil {
					return nil, err
				}
				pf.Data = data
			}
			payloads = append(payloads, pf)
			continue
		}
		typ, id, ok := gitstore.ParseRecordPath(c.Path)
		if !ok {
			j.violation(RuleLayout, "", c.Path, "records live at records/<type>/<xx>/<id>.md with xx = sha256(id)[:2]; nothing else belongs on the branch", "%s is not a record path", c.Path)
			continue
		}
		paths[id] = c.Path
		rc := kernel.RecordChange{Type: typ, ID: id}
		if !c.Old.IsZero() {
			if old, err := j.w.RecordFromBlob(c.Old); err == nil {
				rc.Old = old
			} else {
				rc.OldBroken = true
			}
		}
		if !c.New.IsZero() {
			r, err := j.w.RecordFromBlob(c.New)
			if err != nil {
				j.violation(RuleRecord, id, c.Path, "fix the file so it parses (git records show prints a valid one)", "%v", err)
				continue
			}
			rc.New = r
			paths[r.ID] = c.Path
			links = append(links, linkCheck{at: len(j.findings), r: r, path: c.Path})
		}
		records = append(records, rc)
	}
	var before kernel.View // the parent, for the handles a new record or alias claims
	if !parent.IsZero() {
		v, err := j.w.ViewAt(parent)
		if err != nil {
			return nil, err
		}
		before = v
	}
	for _, v := range kernel.CheckCommit(op, msg.Trailers, records, before) {
		j.violation(v.Rule, v.Record, paths[v.Record], v.Fix, "%s", v.Message)
	}
	if op == kernel.OpMigrate {
		if err := j.checkMigration(records, parent, msg); err != nil {
			return nil, err
		}
	}
	payloadViolations, err := kernel.CheckPayloads(payloads, records, func(path string) (bool, error) {
		if j.linksAt.IsZero() {
			return true, nil // staged files (pre-commit): the push is judged whole
		}
		v, err := j.w.ViewAt(j.linksAt)
		if err != nil {
			return false, err
		}
		h, err := v.FileHash(path)
		return !h.IsZero(), err
	})
	if err != nil {
		return nil, err
	}
	for _, v := range payloadViolations {
		j.violation(v.Rule, v.Record, paths[v.Record], v.Fix, "%s", v.Message)
	}
	j.records, j.before, j.paths = records, before, paths
	rights := kernel.RequiredRights(op, records, before)
	// Links are judged at this commit, after everything asked of the
	// parent, so the walk's handle state moves forward once per commit.
	if err := j.checkLinksAt(links, opts); err != nil {
		return nil, err
	}
	return rights, nil
}

// linkCheck is a record whose links are judged at the commit; at is where
// its findings go among the commit's, so the report reads as if each
// record's links were judged where the record was read.
type linkCheck struct {
	at   int
	r    *kernel.Record
	path string
}

// checkLinksAt judges the links of the records a commit wrote and puts
// each record's findings at its place.
func (j *judge) checkLinksAt(links []linkCheck, opts Options) error {
	if len(links) == 0 {
		return nil
	}
	first := links[0].at
	rest := append([]Finding(nil), j.findings[first:]...)
	j.findings = j.findings[:first]
	var view *gitstore.View // of this commit, for link targets; loaded when needed
	done := 0
	for _, l := range links {
		j.findings = append(j.findings, rest[done:l.at-first]...)
		done = l.at - first
		if err := j.checkLinks(&view, l.r, l.path, opts); err != nil {
			return err
		}
	}
	j.findings = append(j.findings, rest[done:]...)
	return nil
}

func (j *judge) checkLinks(view **gitstore.View, r *kernel.Record, path string, opts Options) error {
	// The body's wikilinks are links too (show and get list them), so a
	// [[target]] that names no record dangles like a frontmatter link.
	r = gitstore.WithBodyLinks(r)
	if len(r.Links) == 0 || j.linksAt.IsZero() {
		return nil
	}
	if *view == nil {
		v, err := j.w.ViewAt(j.linksAt)
		if err != nil {
			return err
		}
		*view = v
	}
	for _, l := range r.Links {
		// Existence only: reading each target would make one record's
		// check cost the size of every record it links to. A wikilink may
		// name its target by alias or id prefix; only a handle that resolves
		// to nothing (or to several) dangles. The index is consulted only
		// for a handle that is not an id, so clean commits never build it.
		id, err := (*view).Resolve(l.TargetID)
		if err != nil && kernel.CodeOf(err) == kernel.CodeInternal {
			return err
		}
		if err != nil || id == "" {
			sev := "warning"
			if opts.Strict {
				sev = "error"
			}
			j.add(RuleLinks, r.ID, path, sev, "create the target record or remove the link", "%s link from %s to %s points at no record", l.Kind, r.ID, l.TargetID)
		}
	}
	return nil
}

// checkPolicy asks the policy about every right the kernel says the
// commit needs (kernel.RequiredRights), and proves its approval.
func (j *judge) checkPolicy(tr *kernel.Trust, principal string, op kernel.Op, msg gitstore.CommitMessage, rights []kernel.Right) {
	var needs *kernel.Decision
	for _, r := range rights {
		t := touchedRecord{id: r.Record, typ: r.Type, category: r.Category}
		d := tr.Decide(principal, r.Op, r.Type, r.Category)
		if !d.Allowed {
			j.violation(RulePolicy, r.Record, "", "ask a maintainer, or have .records/policy.yaml changed in a policy commit", "%s may not %s %s: %s (rule: %s)", principal, r.Op, describeScope(t), d.Reason, d.Rule)
			continue
		}
		if d.NeedsApproval && needs == nil {
			needs = &d
		}
	}
	approver := msg.Get(kernel.TrailerApprovedBy)
	if needs == nil && approver == "" {
		return
	}
	const fix = "rerun the op with --approve if your profile allows it, or with --approval TOKEN from `git records approve` run by the approver"
	if approver == "" {
		j.violation(RuleApproval, "", "", fix, "%s is a %s op and the policy requires approval, but the commit has no Approved-By", op, needs.Risk)
		return
	}
	// An Approved-By is always proven, needed or not: a name is never
	// an approval.
	signature := msg.Get(kernel.TrailerApprovalSignature)
	var signedBy, why string
	if signature != "" {
		var parent string
		if len(j.commit.ParentHashes) > 0 {
			parent = j.commit.ParentHashes[0].String()
		}
		req := kernel.ApprovalRequest{Op: op, Records: msg.All(kernel.TrailerID), Evidence: kernel.EvidenceDigest(msg.Trailers), Tip: parent}
		signers, err := j.tc.sshSigners(tr)
		if err == nil {
			signedBy, _, err = signing.VerifyApproval(signers, req.Statement(), signature, kernel.SigningInstants(j.commit.Committer.When, j.receivedAt)...)
		}
		if err != nil {
			why = messageOf(err)
		}
	}
	if err := kernel.ProveApproval(approver, principal, signature != "", signedBy, why); err != nil {
		j.violation(RuleApproval, "", "", fix, "%s", messageOf(err))
		return
	}
	for _, r := range rights {
		if a := tr.Decide(approver, r.Op, r.Type, r.Category); !a.Allowed {
			j.violation(RuleApproval, r.Record, "", "approval must come from a principal whose profile allows the op", "approver %s may not approve %s: %s", approver, r.Op, a.Reason)
		}
	}
}

func describeScope(t touchedRecord) string {
	if t.id == "" {
		return "the store"
	}
	return fmt.Sprintf("%s %s in %s", t.typ, t.id, t.category)
}

// checkMigration replays a migrate commit: from the format its parent is
// in, the released migrations must turn each record it changes, as the
// parent had it, into exactly what the commit holds, change every record
// they change, and set the format they reach.
func (j *judge) checkMigration(records []kernel.RecordChange, parent plumbing.Hash, msg gitstore.CommitMessage) error {
	const fix = "run git records migrate: a migration is the released one, replayed"
	pv, err := j.w.ViewAt(parent)
	if err != nil {
		return err
	}
	from, err := pv.Format()
	if err != nil {
		return err
	}
	cv, err := j.w.ViewAt(j.linksAt)
	if err != nil {
		return err
	}
	to, err := cv.Format()
	if err != nil {
		return err
	}
	var steps []kernel.Migration
	reach := from
	for _, m := range kernel.Migrations {
		if m.From == reach {
			steps = append(steps, m)
			reach = m.To
		}
	}
	if len(steps) == 0 || to != reach {
		j.violation(RuleOpMatches, "", gitstore.FormatPath, fix, "migrate commit takes format %d to %d; the released migrations take it to %d", from, to, reach)
		return nil
	}
	all, err := pv.AllRecords()
	if err != nil {
		return err
	}
	written := map[string]*kernel.Record{}
	for _, rc := range records {
		if rc.New != nil {
			written[rc.ID] = rc.New
		}
	}
	at := kernel.Timestamp{}
	for _, r := range written {
		if n := len(r.MutationLog); n > 0 {
			at = r.MutationLog[n-1].At
			break
		}
	}
	want := kernel.MigrateRecords(all, steps, msg.Get(kernel.TrailerAgent), at)
	for _, w := range want {
		got := written[w.ID]
		if got == nil {
			j.violation(RuleOpMatches, w.ID, "", fix, "migrate commit leaves record %s unmigrated", w.ID)
			continue
		}
		delete(written, w.ID)
		a, _ := gitstore.EncodeRecord(w)
		b, _ := gitstore.EncodeRecord(got)
		if string(a) != string(b) {
			j.violation(RuleOpMatches, w.ID, "", fix, "migrate commit writes record %s otherwise than the migration does", w.ID)
		}
	}
	for id := range written {
		j.violation(RuleOpMatches, id, "", fix, "migrate commit changes record %s, which the migration leaves alone", id)
	}
	return nil
}
