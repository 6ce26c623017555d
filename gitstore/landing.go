package gitstore

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// The write loop judges the commit it is about to land with the judgment
// verify holds every commit to (kernel.JudgeCommit), on the facts of that
// commit: its message, the records and files it writes read back from
// their bytes, the view it was decided on (its first parent) and the tree
// it leaves, the trust in force there and this store's signer. A refusal is
// reported with the code that tells the caller what to do (the policy's
// PERMISSION_DENIED, a payload's INVALID_RECORD, a merge's CONFLICT), and
// nothing is written; a commit an op writes against its own rules is a bug,
// INTERNAL.

// landing is a commit the write loop is about to write: decided on view,
// with the records it writes read back (back, in m.Writes' order), every
// file's bytes (files: records, payloads and store files) and, for a
// merge, the blobs it takes as stored (have) and its second parent.
type landing struct {
	view   *View
	m      *kernel.Mutation
	back   []*kernel.Record
	files  map[string][]byte
	have   map[string]plumbing.Hash
	merged plumbing.Hash
	// theirChanges are what merged changed since the merge base (nil:
	// not read yet).
	theirChanges []Change
	// generated are the ids this attempt generated: 128 random bits are
	// no one's alias, so they cost no alias lookup (generatedIDs).
	generated map[string]bool
	// replayed is the commit a replay decides again (zero otherwise).
	replayed plumbing.Hash
	// stream holds the files of a streamed op (stream.go), which are
	// neither in files nor in back.
	stream *streamedFiles
	// Set only when an existing commit is judged as a landing
	// (JudgeLanding): what it deletes, the modes of files that are not
	// plain, its date, identity lines and encoding, why its message does
	// not decode, and the judge's clock. The write loop writes plain
	// files, deletes none and dates its commits itself.
	deleted           map[string]bool
	modes             map[string]filemode.FileMode
	when              time.Time
	author, committer string
	encoding          string
	messageErr        error
	now               time.Time
}

// judgeLanding judges l before anything of it is written, resolving the
// caller's approval when the policy asks for one (its trailers are then
// added to l.m). It returns the authorization for the audit line, a
// refusal's too.
func (s *Store) judgeLanding(l *landing, approval kernel.Approval, env kernel.Env) (kernel.Authorization, error) {
	m := l.m
	_, email := s.Ident()
	auth := kernel.Authorization{Principal: email, Op: m.Op}
	trust, err := s.landingTrust(l)
	if err != nil {
		return kernel.Authorization{}, err
	}
	tr := trust.For(m.Op)
	principal, principalErr := s.PrincipalAt(tr)
	if principalErr != nil && !kernel.IsCode(principalErr, kernel.CodePermissionDenied) {
		return kernel.Authorization{}, principalErr
	}
	sig := kernel.SignatureFacts{Status: kernel.SignatureGood, Principal: principal}
	if principalErr != nil {
		sig = kernel.SignatureFacts{Status: kernel.SignatureUnknownKey}
	}
	f, err := s.landingFacts(l, trust, sig, env)
	if err != nil {
		return kernel.Authorization{}, err
	}
	verdict, err := kernel.JudgeCommit(f)
	if err != nil {
		return kernel.Authorization{}, err
	}
	// The trust a commit leaves is judged first: a commit may not leave
	// it broken, whoever writes it.
	for _, v := range verdict.Violations {
		if v.Rule == kernel.RuleTrust {
			return kernel.Authorization{}, kernel.Errorf(kernel.CodeInvalidRecord, "%s", v.Message)
		}
	}
	if refused := tr.Refusal(); refused != nil {
		auth.Decision = kernel.Decision{Rule: "trust", Reason: refused.Message}
		return auth, refused
	}
	if principalErr != nil {
		auth.Decision = kernel.Decision{Rule: "allowed_signers", Reason: "signing key not in " + AllowedSignersPath}
		return auth, principalErr
	}
	auth.Principal = principal
	if err := policyRefusal(verdict, &auth); err != nil {
		return auth, err
	}
	if err := executionRefusal(verdict, &auth); err != nil {
		return auth, err
	}
	if needs := verdict.NeedsApproval; needs != nil {
		if verdict, err = s.approve(l, verdict, tr, f, approval, env, &auth); err != nil {
			return auth, err
		}
	}
	auth.Op = m.Op
	if err := ruleRefusal(l, verdict); err != nil {
		return auth, err
	}
	return auth, nil
}

// landingTrust is the trust a commit lands under, as verify takes it: its
// parent's; a merge's, the newest either side carries (kernel.MergeTrust);
// a root commit's, its own.
func (s *Store) landingTrust(l *landing) (*kernel.Trust, error) {
	v := l.view
	if !v.Exists() {
		return v.TrustWith(l.m.Files)
	}
	ours, err := v.Trust()
	if err != nil || l.merged.IsZero() {
		return ours, err
	}
	tv, err := s.viewAt(l.merged)
	if err != nil {
		return nil, err
	}
	theirs, err := tv.Trust()
	if err != nil || ours.Equal(theirs) {
		return ours, err
	}
	base, err := s.MergeBase(v.tip, l.merged)
	if err != nil || base.IsZero() {
		return ours, err
	}
	bv, err := s.viewAt(base)
	if err != nil {
		return nil, err
	}
	then, err := bv.Trust()
	if err != nil {
		return nil, err
	}
	return kernel.MergeTrust(then, ours, theirs), nil
}

// landingFacts are the facts of l as verify will read them from the commit.
func (s *Store) landingFacts(l *landing, trust *kernel.Trust, sig kernel.SignatureFacts, env kernel.Env) (kernel.CommitFacts, error) {
	v, m := l.view, l.m
	var parents []plumbing.Hash
	if v.Exists() {
		parents = append(parents, v.tip)
		if !l.merged.IsZero() {
			parents = append(parents, l.merged)
		}
	}
	dates, err := s.parentDates(v, parents)
	if err != nil {
		return kernel.CommitFacts{}, err
	}
	name, email := s.Ident()
	when := kernel.CommitTime(env.Now, dates)
	author := Signature{Name: name, Email: email, When: when}.Line()
	committer, now := author, when
	if !l.when.IsZero() {
		when, author, committer, now = l.when, l.author, l.committer, l.now
	}
	// The writer dates its commit no earlier than its parents
	// (kernel.CommitTime), ahead of its own clock when that runs behind a
	// parent's: its clock is no judge of that date, the receiving one is.
	f := kernel.CommitFacts{Message: kernel.Message{Op: m.Op, Trailers: m.Trailers, Err: l.messageErr}, Author: author, Committer: committer,
		Committed: when, ParentDates: dates, Now: now, Encoding: l.encoding, Trust: trust, Signature: sig, Encode: EncodeRecord, NoWarnings: true}
	for _, p := range parents {
		f.Parents = append(f.Parents, p.String())
	}
	tr := trust.For(m.Op)
	f.VerifyApproval = func(statement []byte, signature string) (string, error) {
		signers, err := AllowedSigners(tr.Signers())
		if err != nil {
			return "", err
		}
		signedBy, _, err := signing.VerifyApproval(signers, statement, signature, kernel.SigningInstants(when, env.Now)...)
		return signedBy, err
	}
	if v.Exists() {
		f.Before = generatedIDs{v, l.generated}
	}
	f.TrustAfter = func() (*kernel.Trust, error) { return v.TrustWith(m.Files) }
	if l.stream != nil {
		f.After, f.Files = streamedView{v, l.stream.blobs}, l.stream.changes(s, v)
		return f, nil
	}
	after := &landingView{View: v, records: map[string]*kernel.Record{}, aliases: map[string]string{}, files: l.files, have: l.have}
	f.After = after
	if !l.merged.IsZero() {
		f.Merge, err = s.landingMerge(l, after)
		return f, err
	}
	files, err := s.landingFiles(l, after)
	if err != nil {
		return kernel.CommitFacts{}, err
	}
	f.Files = kernel.FileList(files)
	return f, nil
}

// parentDates are the committer dates of parents (the view's tip first).
func (s *Store) parentDates(v *View, parents []plumbing.Hash) ([]time.Time, error) {
	var dates []time.Time
	for _, p := range parents {
		if p == v.tip && !v.when.IsZero() {
			dates = append(dates, v.when)
			continue
		}
		pc, err := s.Commit(p)
		if err != nil {
			return nil, err
		}
		dates = append(dates, pc.Committer.When)
	}
	return dates, nil
}

// landingFiles are the files a single-parent commit changes, in path
// order, its records as read back and as the parent has them at the path.
func (s *Store) landingFiles(l *landing, after *landingView) ([]kernel.FileChange, error) {
	v := l.view
	written := make(map[string]*kernel.Record, len(l.back))
	for i, r := range l.m.Writes {
		written[RecordPath(r.Type, r.ID)] = l.back[i]
	}
	paths := make([]string, 0, len(l.files)+len(l.deleted))
	for p := range l.files {
		paths = append(paths, p)
	}
	for p := range l.deleted {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]kernel.FileChange, 0, len(paths))
	for _, p := range paths {
		old, err := v.FileHash(p)
		if err != nil {
			return nil, err
		}
		mode := filemode.Regular
		if m, ok := l.modes[p]; ok {
			mode = m
		}
		fc := kernel.FileChange{Path: p, Mode: mode.String(), Regular: mode == filemode.Regular, Added: old.IsZero()}
		if l.deleted[p] {
			fc.Deleted, fc.Regular = true, true
		}
		if kernel.IsPayloadPath(p) {
			fc.Data = l.files[p]
		}
		if typ, id, ok := ParseRecordPath(p); ok {
			fc.IsRecord, fc.Type, fc.ID = true, typ, id
			fc.New = written[p]
			if fc.New == nil && !fc.Deleted {
				fc.New, fc.NewErr = DecodeRecord(l.files[p])
			}
			if fc.New != nil {
				after.add(fc.New)
			}
			if !old.IsZero() {
				if fc.Old, err = s.readRecord(old); err != nil {
					fc.Old, fc.OldBroken = nil, true
				}
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

// IncomingFacts lists the commits each side of a merge (ours, theirs,
// their base) brings in that the other side lacks, with their signatures
// checked under the newest trust (kernel.IncomingCommit): the signature
// machinery of the hooks, which the store does not hold.
type IncomingFacts func(ours, theirs, base plumbing.Hash) ([]kernel.IncomingCommit, error)

// JudgeIncomingWith gives the write loop what lists a merge's incoming
// commits, so it judges a merge commit on the facts verify reads. Without
// it a merge is judged without them (the commits it brings in are
// verified on their own before sync and merge merge them).
func (s *Store) JudgeIncomingWith(f IncomingFacts) { s.incoming = f }

// landingMerge are the merge facts of a merge commit about to be written:
// every path whose merged content differs from either parent and that is
// not only ours' change, with the four versions, the records it changes on
// its first parent, and the commits it brings in (JudgeIncomingWith).
func (s *Store) landingMerge(l *landing, after *landingView) (*kernel.MergeFacts, error) {
	v := l.view
	out := &kernel.MergeFacts{MergeText: MergeText}
	base, err := s.MergeBase(v.tip, l.merged)
	if err != nil || base.IsZero() {
		return out, err
	}
	out.Base = base.String()
	if s.incoming != nil {
		if out.Incoming, err = s.incoming(v.tip, l.merged, base); err != nil {
			return nil, err
		}
	}
	// The paths the merge must be judged on are those theirs changed since
	// the base, and those the merge writes: a path only ours changed is
	// ours in the merge, a one-sided change that breaks no merge rule (the
	// commits that made it were judged on their own).
	type versions struct{ base, ours, theirs plumbing.Hash }
	known := map[string]*versions{}
	theirChanges := l.theirChanges
	if theirChanges == nil {
		if theirChanges, err = s.Changes(base, l.merged); err != nil {
			return nil, err
		}
	}
	for _, c := range theirChanges {
		ours, err := v.FileHash(c.Path)
		if err != nil {
			return nil, err
		}
		known[c.Path] = &versions{base: c.Old, ours: ours, theirs: c.New}
	}
	merged := map[string]plumbing.Hash{}
	for p, data := range l.files {
		merged[p] = plumbing.ComputeHash(plumbing.BlobObject, data)
	}
	for p, h := range l.have {
		merged[p] = h
	}
	for p := range l.deleted {
		merged[p] = plumbing.ZeroHash
	}
	for p, mode := range l.modes {
		out.Modes = append(out.Modes, kernel.FileChange{Path: p, Mode: mode.String()})
	}
	sort.Slice(out.Modes, func(i, j int) bool { return out.Modes[i].Path < out.Modes[j].Path })
	var bv *View // the base, for a path theirs did not change
	paths := make([]string, 0, len(known)+len(merged))
	for p := range known {
		paths = append(paths, p)
	}
	for p := range merged {
		if known[p] == nil {
			// Theirs did not change it since the base: base and theirs
			// agree there.
			h, err := v.FileHash(p)
			if err != nil {
				return nil, err
			}
			if bv == nil {
				if bv, err = s.viewAt(base); err != nil {
					return nil, err
				}
			}
			then, err := bv.FileHash(p)
			if err != nil {
				return nil, err
			}
			known[p] = &versions{base: then, ours: h, theirs: then}
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	// Each blob is decoded once, and only when asked for.
	decoded := map[plumbing.Hash]struct {
		r   *kernel.Record
		err error
	}{}
	read := func(h plumbing.Hash) (*kernel.Record, error) {
		if h.IsZero() {
			return nil, nil
		}
		if d, ok := decoded[h]; ok {
			return d.r, d.err
		}
		r, err := s.readRecord(h)
		decoded[h] = struct {
			r   *kernel.Record
			err error
		}{r, err}
		return r, err
	}
	record := func(h plumbing.Hash) *kernel.Record {
		r, _ := read(h)
		return r // a version that does not parse was reported on the commit that wrote it
	}
	name := func(h plumbing.Hash) string {
		if h.IsZero() {
			return ""
		}
		return h.String()
	}
	for _, p := range paths {
		vs := known[p]
		blobs := [4]plumbing.Hash{vs.base, vs.ours, vs.theirs, vs.ours} // base, ours, theirs, merged
		if h, ok := merged[p]; ok {
			blobs[3] = h
		}
		if blobs[3] == blobs[1] && blobs[3] == blobs[2] {
			continue // the same as both parents
		}
		mp := kernel.MergePath{Path: p, Base: name(blobs[0]), Ours: name(blobs[1]), Theirs: name(blobs[2]), Merged: name(blobs[3])}
		if typ, id, ok := ParseRecordPath(p); ok {
			mp.IsRecord, mp.ID = true, id
			mergedRecord := func() (*kernel.Record, error) {
				if data, written := l.files[p]; written {
					return DecodeRecord(data)
				}
				return read(blobs[3])
			}
			mp.Records = func() (kernel.MergeRecords, error) {
				rs := kernel.MergeRecords{Base: record(blobs[0]), Ours: record(blobs[1]), Theirs: record(blobs[2])}
				rs.Merged, rs.MergedErr = mergedRecord()
				return rs, nil
			}
			if blobs[3] != blobs[1] && !blobs[3].IsZero() {
				// What the merge changes on its first parent: its
				// handles are judged, and the tree it leaves holds it.
				if r, err := mergedRecord(); err == nil && r != nil {
					after.add(r)
					rc := kernel.RecordChange{Type: typ, ID: id, New: r}
					if !blobs[1].IsZero() {
						if rc.Old, err = read(blobs[1]); err != nil {
							rc.Old, rc.OldBroken = nil, true
						}
					}
					out.Changes = append(out.Changes, rc)
				}
			}
		} else {
			mp.Data = func() ([4][]byte, error) {
				var data [4][]byte
				for i, h := range blobs {
					if i == 3 && l.files[p] != nil {
						data[i] = l.files[p]
						continue
					}
					b, err := s.blobIfAny(h)
					if err != nil {
						return data, err
					}
					data[i] = b
				}
				return data, nil
			}
		}
		out.Paths = append(out.Paths, mp)
	}
	return out, nil
}

// landingView is the tree a commit about to be written leaves: the view it
// was decided on with the records and files it writes on top.
type landingView struct {
	*View
	records map[string]*kernel.Record // id -> record the commit writes
	aliases map[string]string         // alias -> the record the commit gives it
	files   map[string][]byte
	have    map[string]plumbing.Hash
}

func (a *landingView) add(r *kernel.Record) {
	a.records[r.ID] = r
	for _, al := range r.Aliases {
		if _, ok := a.aliases[al]; !ok {
			a.aliases[al] = r.ID
		}
	}
}

func (a *landingView) Record(id string) (*kernel.Record, error) {
	if r, ok := a.records[id]; ok {
		return r, nil
	}
	return a.View.Record(id)
}

func (a *landingView) Resolve(handle string) (string, error) {
	if _, ok := a.records[handle]; ok {
		return handle, nil
	}
	if id, ok := a.aliases[handle]; ok {
		return id, nil
	}
	return a.View.Resolve(handle)
}

func (a *landingView) AliasOwner(alias string) (string, error) {
	if id, ok := a.aliases[alias]; ok {
		return id, nil
	}
	return a.View.AliasOwner(alias)
}

func (a *landingView) Format() (int, error) {
	if data, ok := a.files[FormatPath]; ok {
		return kernel.ParseFormat(data)
	}
	return a.View.Format()
}

func (a *landingView) Bindings() (*kernel.Bindings, error) {
	if data, ok := a.files[BindingsPath]; ok {
		return kernel.ParseBindings(data)
	}
	return a.View.Bindings()
}

func (a *landingView) HasFile(path string) (bool, error) {
	if _, ok := a.files[path]; ok {
		return true, nil
	}
	if _, ok := a.have[path]; ok {
		return true, nil
	}
	return a.View.HasFile(path)
}

func (a *landingView) AllRecords() ([]*kernel.Record, error) {
	all, err := a.View.AllRecords()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, r := range all {
		if w, ok := a.records[r.ID]; ok {
			all[i], seen[r.ID] = w, true
		}
	}
	for id, r := range a.records {
		if !seen[id] {
			all = append(all, r)
		}
	}
	return all, nil
}

// policyRefusal is the first right the policy denied the signer, as the
// caller's PERMISSION_DENIED naming the rule; auth then says why.
func policyRefusal(verdict kernel.Judgment, auth *kernel.Authorization) error {
	for _, r := range verdict.Rights {
		auth.Op, auth.Record, auth.Decision = r.Op, r.Record, r.Decision
		if !r.Decision.Allowed {
			d := r.Decision
			return kernel.Errorf(kernel.CodePermissionDenied, "%s may not %s %s: %s (rule: %s)",
				auth.Principal, r.Op, describeRight(r.Right), d.Reason, d.Rule).
				WithExtra("rule", d.Rule).WithExtra("principal", auth.Principal)
		}
	}
	return nil
}

// executionRefusal is the execution rules' refusal: a denial like the
// policy's, audited.
func executionRefusal(verdict kernel.Judgment, auth *kernel.Authorization) error {
	var vs []kernel.Violation
	for _, v := range verdict.Violations {
		switch v.Rule {
		case kernel.RuleOwnership, kernel.RuleExecution, kernel.RuleExecLimit, kernel.RuleSandbox:
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	auth.Record, auth.Decision = vs[0].Record, kernel.Decision{Rule: vs[0].Rule, Reason: vs[0].Message}
	return kernel.ExecutionError(vs)
}

func describeRight(r kernel.Right) string {
	if r.Type == "" && r.Category == "" {
		return "on the store"
	}
	return r.Type + " in " + r.Category
}

// approve resolves the approval an op needs: the committer's own
// (--approve), or a token an approver signed (--approval), checked for the
// tip the op is decided on. Its trailers go into l.m, and the commit is
// judged again: the approver's profile must allow the op too.
func (s *Store) approve(l *landing, verdict kernel.Judgment, tr *kernel.Trust, f kernel.CommitFacts, a kernel.Approval, env kernel.Env, auth *kernel.Authorization) (kernel.Judgment, error) {
	m := l.m
	needs := verdict.NeedsApproval
	req := kernel.RequestFor(m, l.view.Tip().String())
	var approver, signature string
	switch {
	case a.Token != "":
		var err error
		if approver, signature, err = s.approvalVerifier(tr, env.Now)(a.Token, req); err != nil {
			if kernel.IsCode(err, kernel.CodePermissionDenied) {
				auth.Record, auth.Decision = firstID(req.Records), kernel.Decision{Rule: "approval", Reason: "the approval does not verify"}
			}
			return verdict, err
		}
	case a.Approve:
		approver = auth.Principal
	default:
		// The audit names the rule the error names: the approval level,
		// not the rule that allowed the op.
		rule := "require_approval: " + string(tr.Policy().RequireApproval)
		auth.Record, auth.Decision = firstID(req.Records), kernel.Decision{Rule: rule, Reason: "approval required for " + string(needs.Risk) + " ops", Risk: needs.Risk}
		command := req.Command()
		return verdict, kernel.Errorf(kernel.CodePermissionDenied, "%s is a %s-risk op and the policy requires approval: rerun with --approve if your profile allows you to approve it, or have an approver run `%s` and rerun with --approval TOKEN",
			m.Op, needs.Risk, command).
			WithExtra("rule", rule).WithExtra("approve_command", command).
			WithExtra("approval_request", map[string]any{"op": req.Op, "records": req.Records, "evidence": req.Evidence, "tip": req.Tip})
	}
	m.Trailers = setTrailer(m.Trailers, kernel.TrailerApprovedBy, approver)
	if signature != "" {
		m.Trailers = setTrailer(m.Trailers, kernel.TrailerApprovalSignature, signature)
	}
	f.Message.Trailers = m.Trailers
	again, err := kernel.JudgeCommit(f)
	if err != nil {
		return verdict, err
	}
	for _, r := range again.Approver {
		if !r.Decision.Allowed {
			// Every refusal is audited, an unfit approver's too.
			auth.Principal, auth.Op, auth.Record, auth.Decision = approver, r.Op, r.Record, r.Decision
			return again, kernel.Errorf(kernel.CodePermissionDenied, "approver %s may not approve %s: %s (rule: %s)", approver, r.Op, r.Decision.Reason, r.Decision.Rule).
				WithExtra("rule", r.Decision.Rule).WithExtra("principal", approver)
		}
	}
	for _, v := range again.Violations {
		if v.Rule == kernel.RuleApproval {
			return again, kernel.Errorf(kernel.CodePermissionDenied, "%s", v.Message).WithExtra("rule", "approval")
		}
	}
	auth.ApprovedBy, auth.ApprovalSignature = approver, signature
	return again, nil
}

func firstID(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

// ruleRefusal reports what else the judgment found: a payload the caller
// gave (INVALID_RECORD), a bindings file that binds what does not exist
// (INVALID_RECORD), what a merge would break (CONFLICT: two records with one
// handle, mostly), and anything else an op wrote against its own rules (a
// bug, INTERNAL).
func ruleRefusal(l *landing, verdict kernel.Judgment) error {
	var bugs, payloads, bindings, manifest []kernel.Violation
	for _, v := range verdict.Violations {
		switch {
		case v.Warning:
		case v.Rule == kernel.RulePayload:
			payloads = append(payloads, v)
		case v.Rule == kernel.RuleBindings && v.Path == BindingsPath:
			bindings = append(bindings, v)
		case v.Rule == kernel.RuleBindings:
			manifest = append(manifest, v)
		default:
			bugs = append(bugs, v)
		}
	}
	m := l.m
	var incoming []kernel.Violation
	for _, v := range bugs {
		if v.Rule == kernel.RulePolicy {
			incoming = append(incoming, v)
		}
	}
	switch {
	case len(incoming) > 0:
		// A merge bringing in what the newest trust no longer allows.
		return kernel.Errorf(kernel.CodePermissionDenied, "merging %s would bring in commits the newest trust on either side does not allow, so nothing was merged: %s",
			short(l.merged.String()), joinViolations(incoming, true)).WithExtra("rule", kernel.RulePolicy)
	case !l.merged.IsZero() && len(bugs) > 0:
		return mergeConflict(l, bugs)
	case !l.replayed.IsZero() && len(bugs) > 0:
		// What the commit did, decided again, breaks a rule on the new
		// parent: another writer got there first (an id, a proposal).
		return kernel.Errorf(kernel.CodeConflict, "%s does not apply on the remote's records as they are now: %s",
			m.Op, joinViolations(bugs, false)).WithExtra("rule", bugs[0].Rule)
	case len(bugs) > 0:
		return kernel.Errorf(kernel.CodeInternal, "%s would write a commit that breaks its own rules, so nothing was written (a bug: please report it): %s",
			m.Op, joinViolations(bugs, false))
	case len(payloads) > 0:
		return kernel.Errorf(kernel.CodeInvalidRecord, "%s", joinViolations(payloads, true)).WithExtra("rule", kernel.RulePayload)
	case len(bindings) > 0:
		return kernel.Errorf(kernel.CodeInvalidRecord, "%s", joinViolations(bindings, true)).WithExtra("rule", kernel.RuleBindings)
	case len(manifest) > 0:
		return kernel.Errorf(kernel.CodeInternal, "%s would record a binding manifest its parent does not support, so nothing was written (a bug: please report it): %s", m.Op, manifest[0].Message)
	}
	return nil
}

func joinViolations(vs []kernel.Violation, withFix bool) string {
	msgs := make([]string, len(vs))
	for i, x := range vs {
		msgs[i] = x.String()
		if withFix {
			msgs[i] += " (" + x.Fix + ")"
		}
	}
	return strings.Join(msgs, "; ")
}

// mergeConflict is a merge the judgment refuses: two honest writers who
// picked one id or alias meet here as a CONFLICT naming both records,
// before anything is written.
func mergeConflict(l *landing, vs []kernel.Violation) error {
	types := map[string]string{}
	for p := range l.files {
		if typ, id, ok := ParseRecordPath(p); ok {
			types[id] = typ
		}
	}
	for p := range l.have {
		if typ, id, ok := ParseRecordPath(p); ok {
			types[id] = typ
		}
	}
	msgs := make([]string, len(vs))
	fix := "merge with git records merge or sync, which write what verify accepts"
	for i, x := range vs {
		msgs[i] = x.Message
		if x.Record != "" {
			msgs[i] = fmt.Sprintf("%s %s: %s", types[x.Record], x.Record, x.Message)
		}
		if x.Rule == kernel.RuleHandle {
			fix = "an id or alias names one record: give one of them another id or alias on its own side (a record never published can be re-created there after moving its branch back to the other side's tip), then merge again"
		}
	}
	return kernel.Errorf(kernel.CodeConflict, "merging %s would write a commit verify refuses, so nothing was merged: %s; %s",
		short(l.merged.String()), strings.Join(msgs, "; "), fix).WithExtra("rule", vs[0].Rule)
}

// JudgeLanding judges an existing commit as the write loop judges a commit
// it is about to land: gathered as a landing on its first parent's view
// (its message, the files it changes as bytes, its second parent), with
// its signature as sig says and now as the judge's clock. Verify gathers
// the same commit's facts from git; both must reach one verdict, which a
// test holds them to over a corpus of valid and forged commits.
func (s *Store) JudgeLanding(commit plumbing.Hash, sig kernel.SignatureFacts, now time.Time) (kernel.Judgment, error) {
	c, err := s.Commit(commit)
	if err != nil {
		return kernel.Judgment{}, err
	}
	var parent plumbing.Hash
	if len(c.ParentHashes) > 0 {
		parent = c.ParentHashes[0]
	}
	v, err := s.viewAt(parent)
	if err != nil {
		return kernel.Judgment{}, err
	}
	msg, merr := DecodeMessage(c.Message)
	m := &kernel.Mutation{Op: kernel.Op(msg.Get(kernel.TrailerOp)), Trailers: msg.Trailers, Files: map[string][]byte{}}
	l := &landing{view: v, m: m, files: m.Files, deleted: map[string]bool{}, modes: map[string]filemode.FileMode{},
		when: c.Committer.When, author: c.AuthorLine, committer: c.CommitterLine, encoding: c.Encoding, messageErr: merr, now: now}
	if len(c.ParentHashes) > 1 {
		l.merged = c.ParentHashes[1]
	}
	changes, err := s.Changes(parent, commit)
	if err != nil {
		return kernel.Judgment{}, err
	}
	for _, ch := range changes {
		if ch.New.IsZero() {
			l.deleted[ch.Path] = true
			continue
		}
		if ch.Mode != filemode.Regular {
			l.modes[ch.Path] = ch.Mode
		}
		if m.Files[ch.Path], err = s.blob(ch.New); err != nil {
			return kernel.Judgment{}, err
		}
	}
	trust, err := s.landingTrust(l)
	if err != nil {
		return kernel.Judgment{}, err
	}
	f, err := s.landingFacts(l, trust, sig, kernel.Env{Now: now})
	if err != nil {
		return kernel.Judgment{}, err
	}
	return kernel.JudgeCommit(f)
}
