package kernel

import (
	"fmt"
	"iter"
	"sort"
	"strings"
	"time"
)

// Rule names of the judgment of a commit beyond the record rules
// (check.go): stable, verify, the hooks, CI and people match on them.
const (
	RuleSignature = "signature"  // signed by a principal the trust in force allows
	RuleRecord    = "record"     // every touched record parses and validates
	RuleLinks     = "links"      // link targets exist (a warning unless strict)
	RulePolicy    = "policy"     // the signer's profile allowed the op
	RuleApproval  = "approval"   // risky ops carry an approval the policy accepts
	RuleTrustRoot = "trust-root" // the branch starts at the commit records.trustRoot pins
	RuleTime      = "time"       // dated no earlier than its parents, no later than the judge's clock
	RuleTrust     = "trust"      // after every commit, the trust files parse
)

// AttributesPath routes record files to the records merge driver; like the
// trust files, only init and policy commits change it.
const AttributesPath = ".gitattributes"

// CommitFacts are what the judgment of one commit reads. A judge gathers
// them from git (the commit, what its tree changes, views of its parents
// and of itself) and from the branch the commit lands on (the trust in
// force there, who signed); JudgeCommit decides. The write path gathers
// them for the commit it is about to land; verify, the hooks, sync and
// merge for commits others wrote.
type CommitFacts struct {
	// Staged: the changes of a hand edit about to be committed
	// (pre-commit), with no message or signature yet: only what the
	// changes themselves break is judged.
	Staged bool

	Hash      string   // the commit ("" while it is being written)
	Parents   []string // its parents, first parent first
	Message   Message
	Encoding  string // the commit's encoding header ("" when absent)
	Author    string // the author line as stored ("" to skip its check)
	Committer string // the committer line as stored ("" to skip its check)
	Committed time.Time
	// ParentDates are the committer dates of Parents, in their order.
	ParentDates []time.Time
	Now         time.Time // the judge's clock
	// PinnedRoot is records.trustRoot (a root commit must be it; "" pins none).
	PinnedRoot string

	// Trust is the trust in force where the commit lands (signers and
	// policy of its parent; of a merge, MergeTrust of both sides), before
	// Trust.For picks the one its op is judged under.
	Trust     *Trust
	Signature SignatureFacts
	// VerifyApproval checks an Approval-Signature over an approval
	// statement against the signers of the trust in force at the commit's
	// instants: the principal it proves, or why not.
	VerifyApproval func(statement []byte, signature string) (signedBy string, err error)

	// Files are what the commit changes relative to its first parent, in
	// path order (a merge: see Merge): a sequence the judgment reads one
	// file at a time, keeping of each only what rules across files read
	// (the handles it claims, the rights it needs, a payload's name), so a
	// commit of a hundred thousand records is judged holding one. The
	// links of its records are judged in a second reading, after
	// everything asked of the parent, when links are judged at all. A
	// file that cannot be read ends the sequence with the error.
	Files iter.Seq2[FileChange, error]
	// Before is the first parent's view (nil for a root commit and for
	// staged changes); After the commit's own.
	Before View
	After  CommitView
	// TrustAfter is the trust the commit's tree leaves, asked for only when
	// it changes a trust file.
	TrustAfter func() (*Trust, error)
	// BodyLinks are the links a record's body holds (its wikilinks), which
	// must resolve like its frontmatter links.
	BodyLinks func(body string) []Link
	// Encode is the record codec, for the replay of a migration.
	Encode func(*Record) ([]byte, error)
	// StrictLinks: a dangling link is a violation, not a warning.
	// NoWarnings: skip the rules that only warn (a writer, which reports
	// violations only, need not resolve every link it writes).
	StrictLinks, NoWarnings bool

	// Merge holds what a commit with two or more parents merges.
	Merge *MergeFacts
}

// Message is a commit message as the judge decoded it: its op and
// trailers, or why it does not decode (Err).
type Message struct {
	Op       Op
	Trailers []Trailer
	Err      error
}

// SignatureStatus is what the check of a commit's signature found.
type SignatureStatus string

const (
	SignatureGood         SignatureStatus = "good"          // by a principal the trust lists
	SignatureUnsigned     SignatureStatus = "unsigned"      // no signature
	SignatureUnknownKey   SignatureStatus = "unknown_key"   // valid, by a key the trust does not list
	SignatureKeyNotValid  SignatureStatus = "key_not_valid" // a listed key outside its validity window
	SignatureUnsupported  SignatureStatus = "unsupported"   // not an SSH signature
	SignatureUnverifiable SignatureStatus = "unverifiable"  // cannot be checked (broken allowed_signers)
	SignatureBad          SignatureStatus = "bad"           // does not match the commit
)

// SignatureFacts are the outcome of checking a commit's signature against
// the signers of the trust in force.
type SignatureFacts struct {
	Status    SignatureStatus
	Principal string // when good
	Key       string // the key's fingerprint, when it parses
	Detail    string // why it is not good
}

// FileChange is one file a commit changes. A record file carries its
// versions, decoded: Old (nil when absent, or OldBroken when it does not
// parse) and New (nil when deleted, or NewErr when it does not parse).
type FileChange struct {
	Path    string
	Mode    string // the new file's mode as git shows it
	Regular bool   // the new file is a plain file (mode 100644)
	Added   bool   // absent before
	Deleted bool   // absent after
	// Data is a payload file's content (payloads are judged by it).
	Data []byte

	IsRecord  bool   // the path is a record path
	Type, ID  string // of a record path
	Old, New  *Record
	OldBroken bool
	NewErr    error
}

// CommitView is a view of a tree as the judgment reads it: records and
// handles (View) and the store files.
type CommitView interface {
	View
	// Format is the tree's format version.
	Format() (int, error)
	// Bindings are the tree's extension bindings (nil when it has none).
	Bindings() (*Bindings, error)
	// HasFile reports whether the tree holds a file at path.
	HasFile(path string) (bool, error)
	// AllRecords are every record of the tree (for the replay of a
	// migration, which rewrites them all).
	AllRecords() ([]*Record, error)
}

// MergeFacts are what a merge commit merges: its merge base, every path
// whose content differs from either parent, what it changes on top of its
// first parent, and the commits each side brings in that the other lacks,
// each with its signature checked under the newest trust.
type MergeFacts struct {
	Base  string // the merge base ("" for unrelated histories)
	Paths []MergePath
	// Modes are the paths the merge leaves as something other than a plain
	// file, with their mode, in the order found.
	Modes []FileChange
	// Changes are the record files the merge changes on top of its first
	// parent (Before), parsed; deleted and unparsable ones are Paths'.
	Changes  []RecordChange
	Incoming []IncomingCommit
	// MergeText merges lines of text from their base (ok false on overlap).
	MergeText TextMerger
}

// MergePath is one path in a merge: the blob each of the merge, its
// parents and their base have there ("" where absent).
type MergePath struct {
	Path                       string
	Merged, Ours, Theirs, Base string
	IsRecord                   bool
	ID                         string
	// Records reads a record path's four versions, asked for only when
	// the merge is no side's change taken as it is.
	Records func() (MergeRecords, error)
	// Data reads the four versions of a store file (base, ours, theirs,
	// merged; nil where absent), for the line merge of allowed signers.
	Data func() ([4][]byte, error)
}

// MergeRecords are the versions of one record in a merge: nil where absent
// or (base and sides) unparsable; MergedErr says why the merge's does not
// parse.
type MergeRecords struct {
	Base, Ours, Theirs, Merged *Record
	MergedErr                  error
}

// IncomingCommit is a commit one side of a merge brings in that the other
// side lacks, with its signature checked under Trust: the newest trust
// either side carries, merged with the commit's own (MergeTrust), for its
// op (Trust.For).
type IncomingCommit struct {
	Hash      string
	Op        Op
	Merge     bool // a merge brings nothing of its own: its sides are listed too
	Trust     *Trust
	Signature SignatureFacts
	// Scopes are the records it writes (none for a store-level op).
	Scopes []Right
}

// JudgeCommit is the one judgment of a commit: every rule, in one fixed
// order, on the facts of the commit and the tree it leaves. It returns the
// violations (Warning set on those that only warn), or an error when a fact
// could not be read.
//
// The order:
//
//  1. the commit's shape: its date against its parents' and the judge's
//     clock, its author and committer lines, its encoding, and a root
//     commit against the pinned trust root;
//  2. its signature, under the trust in force for its op;
//  3. its message: a known op, each single trailer once, the agent, the
//     Record-Format of the tree it leaves, the op's evidence, Record-Id;
//  4. a merge: two parents, Evidence-Merged-From, a shared history, every
//     commit either side brings in allowed under the newest trust, every
//     path a side's or their merge (records by CheckMergedRecord, allowed
//     signers by their line merge), then what it changes on its first
//     parent (Record-Id, and ids and aliases unique on its tree); then the
//     merge right, and nothing more;
//  5. otherwise, what it changes on its first parent, read one file at a
//     time (CommitFacts.Files): file modes and store files (format, trust
//     files and .gitattributes by their ops), paths that are no record,
//     records that do not parse; the record rules (CheckCommit: layout,
//     Record-Id, immutable fields, the log, the op's changes, handles
//     unique on its tree); a migration's replay; payloads; links resolving
//     at the commit; a trust change that leaves the trust parsing;
//  6. the policy: every right RequiredRights names, and the approval;
//  7. execution records (CheckExecution);
//  8. extension bindings: the bindings file by bind commits only and
//     binding what exists, and the binding manifest against the parent's.
//
// Staged changes (pre-commit) are judged by step 5 alone.
func JudgeCommit(f CommitFacts) (Judgment, error) {
	j := &judgment{f: f, paths: map[string]string{}}
	if err := j.run(); err != nil {
		return Judgment{}, err
	}
	j.verdict.Violations = j.vs
	return j.verdict, nil
}

// Judgment is the outcome of JudgeCommit: the rules the commit breaks, and
// what the policy decided on the way, which a writer reports (its audit
// line names the decision that settled an op, and a refusal the rule).
type Judgment struct {
	Violations []Violation
	// Rights are the rights the policy was asked about for the signer, each
	// with its decision, in the order asked: each scope (op, type,
	// category) once, with the first record that needs it.
	Rights []DecidedRight
	// NeedsApproval is the first decision that requires approval (nil when
	// none does).
	NeedsApproval *Decision
	// Approver is the approver's decision on each right (each scope once),
	// when the commit carries an approval.
	Approver []DecidedRight
}

// DecidedRight is one right and the policy's decision on it.
type DecidedRight struct {
	Right
	Decision Decision
}

type judgment struct {
	f       CommitFacts
	vs      []Violation
	verdict Judgment
	paths   map[string]string // record id -> path, for the violations of a merge
	// principal is who signed ("" when the signature is not good).
	principal string
	// records are the changes the rules after the record rules read whole
	// (kept): the execution records, a manifest's creations.
	records []RecordChange
	// trustPath is the trust file the commit changes ("" when none);
	// bindings the change to the bindings file (nil when none).
	trustPath string
	bindings  *FileChange
}

func (j *judgment) add(rule, record, path, fix, format string, args ...any) {
	j.vs = append(j.vs, Violation{Rule: rule, Record: record, Path: path, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// addAll appends the violations of a record rule, each at its record's path.
func (j *judgment) addAll(vs []Violation) {
	for _, v := range vs {
		if v.Path == "" {
			v.Path = j.paths[v.Record]
		}
		j.vs = append(j.vs, v)
	}
}

func (j *judgment) run() error {
	f := &j.f
	if f.Staged {
		_, err := j.checkChanges("")
		return err
	}
	op := f.Message.Op
	j.checkShape()
	tr := f.Trust.For(op)
	j.checkSignature(tr)
	if f.Message.Err != nil {
		j.add(RuleTrailers, "", "", "rewrite the commit with git records (its message must end in Record-Op/Record-Id/Record-Agent trailers)", "%v", f.Message.Err)
	} else if err := j.checkTrailers(op); err != nil {
		return err
	}
	if len(f.Parents) > 1 {
		if err := j.checkMerge(op); err != nil {
			return err
		}
		if j.principal != "" && op != "" {
			rights := newNeededRights(op, nil)
			rights.done()
			j.checkPolicy(tr, op, rights)
		}
		return nil
	}
	if op == OpMerge {
		j.add(RuleOpMatches, "", "", "merge record branches with git records sync / merge", "a merge commit has two parents, this one has %d", len(f.Parents))
	}
	rights, err := j.checkChanges(op)
	if err != nil {
		return err
	}
	rights.done()
	if err := j.checkTrustChange(); err != nil {
		return err
	}
	if j.principal != "" && op != "" {
		j.checkPolicy(tr, op, rights)
		// Execution records: managed by their owner (the signer), within
		// the policy's limits, sandboxes retired only when nothing is open.
		j.addAll(CheckExecution(op, f.Message.Trailers, j.records, f.Before, j.principal, tr.Policy().Execution))
	}
	return j.checkBindings(op)
}

// checkShape holds the commit's date to CheckCommitTime and its identity
// lines to CheckIdent (the date judged must be the one every reader sees),
// its encoding to CheckCommitEncoding, and a root commit to the pinned
// trust root.
func (j *judgment) checkShape() {
	f := &j.f
	if err := CheckCommitTime(f.Committed, f.ParentDates, f.Now); err != nil {
		j.add(RuleTime, "", "", "commit with your clock set right (git records writes dates no earlier than the parent); a key cannot sign into a validity window that has closed",
			"%s", messageOf(err))
	}
	for _, id := range []struct{ header, line string }{{"author", f.Author}, {"committer", f.Committer}} {
		if id.line == "" {
			continue
		}
		if err := CheckIdent(id.header, id.line); err != nil {
			j.add(RuleTime, "", "", "commit with git records or git commit, which write the identity and date as git fsck --strict expects",
				"%s", messageOf(err))
		}
	}
	if err := CheckCommitEncoding(f.Encoding); err != nil {
		j.add(RuleTrailers, "", "", "commit with git records, or with git without i18n.commitEncoding", "%s", messageOf(err))
	}
	if len(f.Parents) == 0 && f.PinnedRoot != "" && f.Hash != "" && !strings.HasPrefix(f.Hash, strings.ToLower(f.PinnedRoot)) {
		j.add(RuleTrustRoot, "", "", "if this history is the one you trust, pin it: git config records.trustRoot "+f.Hash,
			"root commit %s is not the pinned trust root %s", shortHash(f.Hash), f.PinnedRoot)
	}
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// checkSignature sets the signing principal when the signature is good.
func (j *judgment) checkSignature(tr *Trust) {
	const fix = "sign record commits with a key listed in .records/allowed_signers (git records init --generate-key, then have a maintainer add the key)"
	s := j.f.Signature
	switch s.Status {
	case SignatureGood:
		j.principal = s.Principal
	case SignatureUnsigned:
		j.add(RuleSignature, "", "", fix, "commit is not signed")
	case SignatureKeyNotValid:
		j.add(RuleSignature, "", "", "a maintainer renews the key's window in .records/allowed_signers (valid-after/valid-before), or sign with a key that is valid now",
			"signed by %s", s.Detail)
	case SignatureUnknownKey:
		j.add(RuleSignature, "", "", fix, "signed by key %s, which is not in .records/allowed_signers as of the parent commit", s.Key)
	case SignatureUnsupported:
		j.add(RuleSignature, "", "", "sign record commits with an SSH key (gpg.format=ssh)", "signature is not an SSH signature; git-records verifies SSH signatures")
	case SignatureUnverifiable:
		j.add(RuleSignature, "", AllowedSignersPath, RepairHint, "%s", s.Detail)
	default:
		j.add(RuleSignature, "", "", fix, "bad signature: %s", s.Detail)
	}
}

// SingleTrailers are the keys a record commit carries at most once
// (Record-Id, Evidence-Link and Evidence-Supersedes repeat, one per record
// or link): git shows every copy (%(trailers:key=Record-Op)), so a second
// one would let a commit say one op to people and another to verify.
var SingleTrailers = []string{TrailerOp, TrailerAgent, TrailerFormat, TrailerSession,
	TrailerFields, TrailerProposer, TrailerProposal, TrailerNewBody, TrailerRationale,
	TrailerReason, TrailerTargetStatus, TrailerApprovedBy, TrailerApprovalSignature}

func (j *judgment) checkTrailers(op Op) error {
	const fix = "write records with git records, which adds the evidence trailers"
	ts := j.f.Message.Trailers
	spec, known := OpSpecs()[op]
	if !known {
		j.add(RuleTrailers, "", "", fix, "Record-Op %q is not a known op", op)
		return nil
	}
	for _, key := range SingleTrailers {
		if n := len(TrailerValues(ts, key)); n > 1 {
			j.add(RuleTrailers, "", "", fix, "%s appears %d times: a record commit carries one", key, n)
		}
	}
	if TrailerValue(ts, TrailerAgent) == "" {
		j.add(RuleTrailers, "", "", fix, "Record-Agent trailer is missing")
	}
	// Record-Format names the format of the branch the commit leaves, one
	// this tool reads: a newer tool judges history of every older format.
	if j.f.After != nil {
		if format, err := j.f.After.Format(); err == nil {
			if msg := CheckCommitFormat(TrailerValue(ts, TrailerFormat), format); msg != "" {
				j.add(RuleTrailers, "", "", fix, "%s", msg)
			}
		} else if CodeOf(err) == CodeInternal {
			return err
		} else {
			j.add(RuleTrailers, "", FormatPath, "write the format version, a positive integer", "%v", err)
		}
	}
	for _, key := range spec.RequiredTrailers {
		if TrailerValue(ts, key) == "" {
			j.add(RuleTrailers, "", "", fix, "%s commit lacks its evidence trailer %s", op, key)
		}
	}
	// A merge names the records it writes, which may be none (theirs only
	// changed store files): the record rules hold it to exactly those.
	if op != OpInit && op != OpPolicy && op != OpMerge && op != OpBind && TrailerValue(ts, TrailerID) == "" {
		j.add(RuleTrailers, "", "", fix, "Record-Id trailer is missing")
	}
	return nil
}

// FileList is files as the sequence CommitFacts.Files reads.
func FileList(files []FileChange) iter.Seq2[FileChange, error] {
	return func(yield func(FileChange, error) bool) {
		for _, c := range files {
			if !yield(c, nil) {
				return
			}
		}
	}
}

// fileKind is what the judgment of a commit's changes makes of one file.
type fileKind int

const (
	fileSkipped fileKind = iota // judged by its mode or path alone
	fileStore                   // a store file (format, trust, bindings, attributes)
	filePayload
	fileRecord // a record file whose new version, if any, parses
)

// kindOf sorts c, adding the violations its mode and path break to vs;
// the links' reading sorts every file again, and must find the same.
func (j *judgment) kindOf(c *FileChange, op Op, vs *violations) fileKind {
	f := &j.f
	root := len(f.Parents) == 0
	add := func(rule, path, fix, format string, args ...any) {
		*vs = append(*vs, Violation{Rule: rule, Path: path, Message: fmt.Sprintf(format, args...), Fix: fix})
	}
	if !c.Deleted && !c.Regular {
		add(RuleLayout, c.Path, "store files are plain files (mode 100644): no symlinks, executables or submodules", "%s has mode %s", c.Path, c.Mode)
		return fileSkipped
	}
	switch c.Path {
	case FormatPath:
		if op != OpInit && op != OpMigrate {
			add(RuleOpMatches, c.Path, "only init and migrate write the format file", "%s commit changes %s", op, c.Path)
		}
		return fileStore
	case BindingsPath:
		return fileStore // checkBindings
	case AllowedSignersPath, PolicyPath, AttributesPath:
		if op != OpInit && op != OpPolicy {
			add(RuleOpMatches, c.Path, "change who may sign or act in a policy commit (git records policy / signers)", "%s commit changes %s", op, c.Path)
		} else if op == OpInit && !root && !f.Staged && c.Path == PolicyPath {
			add(RuleOpMatches, c.Path, "change the policy in a policy commit", "init commit changes %s on an existing branch", c.Path)
		}
		if c.Deleted {
			add(RuleNoDelete, c.Path, "restore the file", "%s is deleted", c.Path)
		}
		return fileStore
	}
	if IsPayloadPath(c.Path) {
		return filePayload
	}
	if !c.IsRecord {
		add(RuleLayout, c.Path, "records live at records/<type>/<xx>/<id>.md with xx = sha256(id)[:2]; nothing else belongs on the branch", "%s is not a record path", c.Path)
		return fileSkipped
	}
	if !c.Deleted && c.NewErr != nil {
		*vs = append(*vs, Violation{Rule: RuleRecord, Record: c.ID, Path: c.Path, Message: fmt.Sprint(c.NewErr), Fix: "fix the file so it parses (git records show prints a valid one)"})
		return fileSkipped
	}
	return fileRecord
}

// checkChanges judges what a single-parent commit changes on its first
// parent, one file at a time, and returns the rights the changes need.
// The violations come in the order of the rules: each file's mode, path
// and parse as the file is read (and its links at that place), then the
// record rules, a migration's replay and the payloads.
func (j *judgment) checkChanges(op Op) (*neededRights, error) {
	f := &j.f
	records := newCommitCheck(op, f.Message.Trailers, f.Before)
	payloads := newPayloadCheck(func(path string) (bool, error) {
		if f.After == nil {
			return true, nil // staged files (pre-commit): the push is judged whole
		}
		return f.After.HasFile(path)
	})
	rights := newNeededRights(op, f.Before)
	var files violations
	// at: for each record whose links are judged, where among the
	// commit's violations its findings go.
	var at []int
	keep := j.keeps(op)
	var migrated []RecordChange
	if f.Files != nil {
		for c, err := range f.Files {
			if err != nil {
				return nil, err
			}
			switch c.Path {
			case AllowedSignersPath, PolicyPath:
				j.trustPath = c.Path
			case BindingsPath:
				j.bindings = &FileChange{Path: c.Path, Deleted: c.Deleted}
			}
			switch j.kindOf(&c, op, &files) {
			case filePayload:
				payloads.addFile(PayloadFile{Path: c.Path, Data: c.Data, Deleted: c.Deleted})
				continue
			case fileRecord:
			default:
				continue
			}
			rc := RecordChange{Type: c.Type, ID: c.ID, Old: c.Old, New: c.New, OldBroken: c.OldBroken}
			if c.New != nil {
				at = append(at, len(j.vs)+len(files))
			}
			records.add(rc, c.Path)
			if err := payloads.addRecord(rc); err != nil {
				return nil, err
			}
			rights.add(rc)
			if op == OpMigrate {
				migrated = append(migrated, rc)
			}
			if keep(rc) {
				j.records = append(j.records, rc)
				j.paths[c.ID] = c.Path
				if c.New != nil {
					j.paths[c.New.ID] = c.Path
				}
			}
		}
	}
	j.vs = append(j.vs, files...)
	j.vs = append(j.vs, records.finish()...)
	if op == OpMigrate {
		if err := j.checkMigration(migrated); err != nil {
			return nil, err
		}
	}
	j.vs = append(j.vs, payloads.finish()...)
	// Links are judged at this commit, after everything asked of the
	// parent, so a judge reading history moves forward once per commit.
	if err := j.checkLinksAt(op, at); err != nil {
		return nil, err
	}
	return rights, nil
}

// keeps says which changes the rules after the record rules read whole:
// execution records and sandboxes (CheckExecution), every record a
// manage op changes (which may change execution records only), and the
// records a commit under a binding manifest creates (CheckManifest).
func (j *judgment) keeps(op Op) func(RecordChange) bool {
	manage := contains(opNames(ManageOps), string(op))
	manifest := TrailerValue(j.f.Message.Trailers, TrailerBinding) != ""
	execution := func(r *Record) bool { return r != nil && (IsExecutionType(r.Type) || r.Type == TypeSandbox) }
	return func(c RecordChange) bool {
		return manage || execution(c.Old) || execution(c.New) || manifest && c.Added()
	}
}

// checkLinksAt reads the commit's files again and judges the links of the
// records it writes, putting each record's findings at its place (at, in
// the order of the records whose links are judged).
func (j *judgment) checkLinksAt(op Op, at []int) error {
	f := &j.f
	if len(at) == 0 || f.After == nil || (f.NoWarnings && !f.StrictLinks) {
		return nil
	}
	first := at[0]
	rest := append([]Violation(nil), j.vs[first:]...)
	j.vs = j.vs[:first]
	done, k := 0, 0
	var ignored violations
	for c, err := range f.Files {
		if err != nil {
			return err
		}
		if j.kindOf(&c, op, &ignored) != fileRecord || c.New == nil {
			continue
		}
		if k == len(at) {
			return Errorf(CodeInternal, "the commit's files changed between two readings")
		}
		j.vs = append(j.vs, rest[done:at[k]-first]...)
		done = at[k] - first
		k++
		if err := j.checkLinks(c.New, c.Path); err != nil {
			return err
		}
	}
	j.vs = append(j.vs, rest[done:]...)
	return nil
}

func (j *judgment) checkLinks(r *Record, path string) error {
	f := &j.f
	// The body's wikilinks are links too (show and get list them), so a
	// [[target]] that names no record dangles like a frontmatter link.
	all := r.Links
	if f.BodyLinks != nil {
		if extra := f.BodyLinks(r.Body); len(extra) > 0 {
			all = UnionLinks(append([]Link(nil), r.Links...), extra)
		}
	}
	for _, l := range all {
		// Existence only: reading each target would make one record's
		// check cost the size of every record it links to. A wikilink may
		// name its target by alias or id prefix; only a handle that
		// resolves to nothing (or to several) dangles.
		id, err := f.After.Resolve(l.TargetID)
		if err != nil && CodeOf(err) == CodeInternal {
			return err
		}
		if err != nil || id == "" {
			j.vs = append(j.vs, Violation{Rule: RuleLinks, Record: r.ID, Path: path, Warning: !f.StrictLinks,
				Message: fmt.Sprintf("%s link from %s to %s points at no record", l.Kind, r.ID, l.TargetID), Fix: "create the target record or remove the link"})
		}
	}
	return nil
}

// checkTrustChange holds a commit that writes the trust files to
// CheckTrustChange: a policy or init commit leaving a file that does not
// parse would make the store refuse every later commit, its repair too.
func (j *judgment) checkTrustChange() error {
	path := j.trustPath
	if path == "" || j.f.TrustAfter == nil {
		return nil
	}
	after, err := j.f.TrustAfter()
	if err != nil {
		return err
	}
	if err := CheckTrustChange(after); err != nil {
		j.add(RuleTrust, "", path, "fix the file so it parses (git records policy set checks a policy before committing it)", "%s", messageOf(err))
	}
	return nil
}

// checkPolicy asks the policy about every right the commit needs, and
// proves its approval: an Approved-By is always proven, needed or not, for
// a name is never an approval. Each scope is decided once; a denial is
// reported on every record that needs the scope.
func (j *judgment) checkPolicy(tr *Trust, op Op, rights *neededRights) {
	principal := j.principal
	ts := j.f.Message.Trailers
	decisions := make([]Decision, len(rights.scopes))
	for i, r := range rights.scopes {
		decisions[i] = tr.Decide(principal, r.Op, r.Type, r.Category)
		j.verdict.Rights = append(j.verdict.Rights, DecidedRight{r, decisions[i]})
	}
	var needs *Decision
	for _, a := range rights.asks {
		r, d := rights.scopes[a.scope], decisions[a.scope]
		r.Record = a.record
		if !d.Allowed {
			j.add(RulePolicy, r.Record, "", "ask a maintainer, or have .records/policy.yaml changed in a policy commit", "%s may not %s %s: %s (rule: %s)", principal, r.Op, describeScope(r), d.Reason, d.Rule)
			continue
		}
		if d.NeedsApproval && needs == nil {
			needs = &d
			j.verdict.NeedsApproval = needs
		}
	}
	approver := TrailerValue(ts, TrailerApprovedBy)
	if needs == nil && approver == "" {
		return
	}
	const fix = "rerun the op with --approve if your profile allows it, or with --approval TOKEN from `git records approve` run by the approver"
	if approver == "" {
		j.add(RuleApproval, "", "", fix, "%s is a %s op and the policy requires approval, but the commit has no Approved-By", op, needs.Risk)
		return
	}
	signature := TrailerValue(ts, TrailerApprovalSignature)
	var signedBy, why string
	if signature != "" {
		var tip string
		if len(j.f.Parents) > 0 {
			tip = j.f.Parents[0]
		}
		req := ApprovalRequest{Op: op, Records: TrailerValues(ts, TrailerID), Evidence: EvidenceDigest(ts), Tip: tip}
		var err error
		if j.f.VerifyApproval == nil {
			err = Errorf(CodeInternal, "this judge cannot check approval signatures")
		} else {
			signedBy, err = j.f.VerifyApproval(req.Statement(), signature)
		}
		if err != nil {
			signedBy, why = "", messageOf(err)
		}
	}
	if err := ProveApproval(approver, principal, signature != "", signedBy, why); err != nil {
		j.add(RuleApproval, "", "", fix, "%s", messageOf(err))
		return
	}
	approved := make([]Decision, len(rights.scopes))
	for i, r := range rights.scopes {
		approved[i] = tr.Decide(approver, r.Op, r.Type, r.Category)
		j.verdict.Approver = append(j.verdict.Approver, DecidedRight{r, approved[i]})
	}
	for _, a := range rights.asks {
		r, d := rights.scopes[a.scope], approved[a.scope]
		r.Record = a.record
		if !d.Allowed {
			j.add(RuleApproval, r.Record, "", "approval must come from a principal whose profile allows the op", "approver %s may not approve %s: %s", approver, r.Op, d.Reason)
		}
	}
}

func describeScope(r Right) string {
	if r.Record == "" {
		return "the store"
	}
	return fmt.Sprintf("%s %s in %s", r.Type, r.Record, r.Category)
}

// checkBindings judges what a commit does with extension bindings: only a
// bind commit writes the bindings file, never deletes it, and leaves a file
// that binds only compatible implementations (as of the commit); and a
// commit's binding manifest is what its parent supports.
func (j *judgment) checkBindings(op Op) error {
	f := &j.f
	if c := j.bindings; c != nil {
		const fix = "change the bindings with git records bindings set, a bind commit"
		if op != OpBind {
			j.add(RuleOpMatches, "", c.Path, fix, "%s commit changes %s", op, c.Path)
		}
		if c.Deleted {
			j.add(RuleNoDelete, "", c.Path, "restore the file", "%s is deleted", c.Path)
		} else if b, err := f.After.Bindings(); err != nil {
			if CodeOf(err) == CodeInternal {
				return err
			}
			j.add(RuleBindings, "", c.Path, fix, "%s", messageOf(err))
		} else {
			for _, x := range CheckBindings(b, f.After) {
				x.Path = c.Path
				j.vs = append(j.vs, x)
			}
		}
	}
	manifest := TrailerValue(f.Message.Trailers, TrailerBinding)
	if manifest == "" {
		return nil
	}
	parent, ok := f.Before.(CommitView)
	if len(f.Parents) == 0 || !ok {
		j.add(RuleBindings, "", "", "a root commit is written under no bindings", "root commit carries a binding manifest")
		return nil
	}
	b, err := parent.Bindings()
	if err != nil {
		if CodeOf(err) == CodeInternal {
			return err
		}
		j.add(RuleBindings, "", BindingsPath, "fix the bindings file in a bind commit", "%s", messageOf(err))
		return nil
	}
	j.addAll(CheckManifest(op, f.Message.Trailers, j.records, b, parent))
	return nil
}

// checkMigration replays a migrate commit: from the format its parent is
// in, the released migrations must turn each record it changes, as the
// parent had it, into exactly what the commit holds, change every record
// they change, and set the format they reach.
func (j *judgment) checkMigration(records []RecordChange) error {
	const fix = "run git records migrate: a migration is the released one, replayed"
	f := &j.f
	parent, ok := f.Before.(CommitView)
	if !ok || f.After == nil || f.Encode == nil {
		j.add(RuleOpMatches, "", FormatPath, fix, "a migration is replayed on its parent, and this commit has none")
		return nil
	}
	from, err := parent.Format()
	if err != nil {
		return err
	}
	to, err := f.After.Format()
	if err != nil {
		return err
	}
	var steps []Migration
	reach := from
	for _, m := range Migrations {
		if m.From == reach {
			steps = append(steps, m)
			reach = m.To
		}
	}
	if len(steps) == 0 || to != reach {
		j.add(RuleOpMatches, "", FormatPath, fix, "migrate commit takes format %d to %d; the released migrations take it to %d", from, to, reach)
		return nil
	}
	all, err := parent.AllRecords()
	if err != nil {
		return err
	}
	written := map[string]*Record{}
	for _, rc := range records {
		if rc.New != nil {
			written[rc.ID] = rc.New
		}
	}
	at := Timestamp{}
	for _, r := range written {
		if n := len(r.MutationLog); n > 0 {
			at = r.MutationLog[n-1].At
			break
		}
	}
	want := MigrateRecords(all, steps, TrailerValue(f.Message.Trailers, TrailerAgent), at)
	for _, w := range want {
		got := written[w.ID]
		if got == nil {
			j.add(RuleOpMatches, w.ID, "", fix, "migrate commit leaves record %s unmigrated", w.ID)
			continue
		}
		delete(written, w.ID)
		a, _ := f.Encode(w)
		b, _ := f.Encode(got)
		if string(a) != string(b) {
			j.add(RuleOpMatches, w.ID, "", fix, "migrate commit writes record %s otherwise than the migration does", w.ID)
		}
	}
	left := make([]string, 0, len(written))
	for id := range written {
		left = append(left, id)
	}
	sort.Strings(left)
	for _, id := range left {
		j.add(RuleOpMatches, id, "", fix, "migrate commit changes record %s, which the migration leaves alone", id)
	}
	return nil
}
