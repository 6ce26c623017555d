package service

import (
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/search"
)

// The service's own result types. A front-end reads what the service
// answers in these terms and never in the store's: the store behind the
// port may change its own types, and a Go program embedding the service
// imports no store package. Each is converted from the store's type where
// the service answers; their JSON is the CLI's --json, a public format,
// so each marshals as the store's type did (types_test.go holds them to it).

// Edge is one link of the graph: from Source to Target, of a kind, with
// an optional label. A forward link names its Target, a backlink its Source.
type Edge struct {
	Source string `json:"source_id,omitempty"`
	Target string `json:"target_id,omitempty"`
	Kind   string `json:"kind"`
	Label  string `json:"label,omitempty"`
}

// Links are a record's forward links and backlinks.
type Links struct {
	Forward []Edge `json:"forward"`
	Reverse []Edge `json:"reverse"`
	// ForwardTitles and ReverseTitles are, edge by edge, the title of the
	// record at the other end of Forward's and Reverse's edges.
	ForwardTitles []EndTitle `json:"-"`
	ReverseTitles []EndTitle `json:"-"`
}

// EndTitle is the title of the record at a link's other end; OK false
// when no record answers to that end (a dangling link).
type EndTitle struct {
	Text string
	OK   bool
}

// Filter selects records by their fields, as list's flags do.
type Filter struct {
	Type           string
	Category       string
	CategoryPrefix bool // Category matches itself and its descendants
	Tag            string
	Status         kernel.Status
	Kind           kernel.Kind
	Role           kernel.Role
	Authority      kernel.Authority
	IncludeRetired bool
	StaleOnly      bool      // only records past their effective expiry
	Now            time.Time // for StaleOnly; default time.Now
	// AsStored gives each record as its file has it, without its body
	// links among its links.
	AsStored bool
}

// Entry is what a listing shows of a record without reading it: the
// fields the index keeps.
type Entry struct {
	ID, Type, Category, Title string
	Status                    kernel.Status
	Kind                      kernel.Kind
	Tags, Aliases             []string
	CreatedAt                 int64 // unix ms
	UpdatedAt                 int64 // unix ms
}

// ListSort orders a listing page: by one of SortFields ("" is "created"),
// the whole order reversed with Desc.
type ListSort struct {
	By   string
	Desc bool
}

// SortFields are the fields a listing can be ordered by.
var SortFields = gitstore.SortFields

// Check refuses a field a listing cannot be ordered by.
func (s ListSort) Check() error { return gitstore.ListSort(s).Check() }

// SearchHit is one ranked record of a search.
type SearchHit struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Type     string        `json:"type"`
	Category string        `json:"category,omitempty"`
	Status   kernel.Status `json:"status"`
	Score    float64       `json:"score"`
	Matched  []string      `json:"matched"` // the fields the query matched in
	search.Snippet
}

// Blame is, for each field of a record, the commit that last set it.
type Blame struct {
	ID     string        `json:"id"`
	Type   string        `json:"type"`
	Fields []FieldOrigin `json:"fields"`
}

// FieldOrigin is the commit that last set one field.
type FieldOrigin struct {
	Field   string           `json:"field"`
	Commit  string           `json:"commit"`
	Op      string           `json:"op"`
	Agent   string           `json:"agent"`
	Time    kernel.Timestamp `json:"time"`
	Subject string           `json:"subject"`
}

// ReindexResult is what reindex found and did.
type ReindexResult struct {
	Records        int      `json:"records"`
	Links          int      `json:"links"`
	ForwardSources int      `json:"forwardSources"`
	ReverseTargets int      `json:"reverseTargets"`
	Changed        bool     `json:"changed"`
	State          string   `json:"state"` // one of the Index* states
	Drift          []string `json:"drift,omitempty"`
	Broken         []string `json:"broken,omitempty"` // files under records/ that do not decode
	// Search is the state of the full-text search index ("" when search
	// was never used).
	Search string `json:"search,omitempty"`
}

// The states of an index that reindex reports.
const (
	IndexCurrent = gitstore.IndexCurrent // it reflected the tip and agreed with the branch
	IndexBehind  = gitstore.IndexBehind  // it reflected an older tip; caught up, it agrees
	IndexMissing = gitstore.IndexMissing // there was none, or it could not be read
	IndexDrift   = gitstore.IndexDrift   // it disagreed with the records on the branch
)

// RecordDiff is the record-level difference between two revisions, record
// by record and field by field.
type RecordDiff struct {
	From       string          `json:"from"`
	To         string          `json:"to"`
	Added      []AddedRecord   `json:"added"`
	Changed    []RecordChange  `json:"changed"`
	Superseded []Supersession  `json:"superseded"`
	Retired    []Retirement    `json:"retired"`
	Links      LinkChanges     `json:"links"`
	Violations []DiffViolation `json:"violations"`
}

// Empty reports whether the two sides hold the same records.
func (d *RecordDiff) Empty() bool {
	return len(d.Added)+len(d.Changed)+len(d.Superseded)+len(d.Retired)+len(d.Violations)+len(d.Links.Added)+len(d.Links.Removed) == 0
}

// RecordRef names a record.
type RecordRef struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	Category string `json:"category"`
}

// AddedRecord is a new record with where in the code it applies and how
// its body begins (Excerpt; MoreLines counts the lines it leaves out).
type AddedRecord struct {
	RecordRef
	Scope     *kernel.Scope `json:"scope,omitempty"`
	Excerpt   string        `json:"excerpt"`
	MoreLines int           `json:"more_lines,omitempty"`
}

// FieldChange is one scalar or list field that differs.
type FieldChange struct {
	Field   string   `json:"field"`
	From    string   `json:"from,omitempty"`
	To      string   `json:"to,omitempty"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Diff    string   `json:"diff,omitempty"` // unified diff, for the body
}

// RecordChange is a record present on both sides that differs.
type RecordChange struct {
	RecordRef
	Fields []FieldChange          `json:"fields"`
	Log    []kernel.MutationEntry `json:"log"` // entries appended on the new side
}

// Supersession is a record superseded on the new side.
type Supersession struct {
	RecordRef
	By string `json:"by"`
}

// Retirement is a record whose status became implemented or retired.
type Retirement struct {
	RecordRef
	Status kernel.Status `json:"status"`
}

// LinkChanges are links added or removed.
type LinkChanges struct {
	Added   []Edge `json:"added"`
	Removed []Edge `json:"removed"`
}

// DiffViolation is something the new side must not do (a deleted record,
// a file that does not parse).
type DiffViolation struct {
	ID      string `json:"id,omitempty"`
	Path    string `json:"path"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// SyncResult reports a sync, pull, push or merge. Commit ids are 40 hex
// digits, "" for none.
type SyncResult struct {
	Remote   string        `json:"remote"`
	Ref      string        `json:"ref"`
	Incoming int           `json:"incoming"` // commits new to us that were verified
	Merge    *MergeOutcome `json:"merge,omitempty"`
	// Replay is the last replay of our commits on the remote's tip.
	Replay *ReplayOutcome `json:"replay,omitempty"`
	// Conflicts are the fields the replays resolved (the losing values
	// are in the records' mutation logs).
	Conflicts []kernel.Conflict `json:"conflicts,omitempty"`
	// Kept are our commits that could not be replayed: not published,
	// each kept at its ref.
	Kept     []KeptCommit `json:"kept,omitempty"`
	Pushed   bool         `json:"pushed"`
	Attempts int          `json:"attempts"`
	Fetched  string       `json:"fetched"` // the remote's tip as last fetched
}

// ReplayOutcome reports a replay of our commits: the remote tip it started
// on, the tip it left the branch on, and each commit's fate, oldest first.
type ReplayOutcome struct {
	Onto     string           `json:"onto"`
	Commit   string           `json:"commit"`
	Replayed []ReplayedCommit `json:"replayed,omitempty"`
	Kept     []KeptCommit     `json:"kept,omitempty"`
}

// ReplayedCommit is one of our commits as a replay published it: the
// commit that replaces it ("" when the remote held its changes already).
type ReplayedCommit struct {
	Original  string            `json:"original"`
	Commit    string            `json:"commit"`
	Op        kernel.Op         `json:"op"`
	Conflicts []kernel.Conflict `json:"conflicts,omitempty"`
}

// KeptCommit is one of our commits that could not be replayed: not
// published, kept at Ref, with the refusal that stopped it.
type KeptCommit struct {
	Commit  string      `json:"commit"`
	Ref     string      `json:"ref"`
	Op      kernel.Op   `json:"op"`
	Records []string    `json:"records,omitempty"`
	Code    kernel.Code `json:"code"`
	Reason  string      `json:"reason"`
}

// MergeOutcome is what bringing a branch in did: up-to-date, fast-forward
// or merged, with the merge's cases and the conflicts it resolved.
type MergeOutcome struct {
	Kind      string                   `json:"kind"`
	Cases     map[kernel.MergeCase]int `json:"cases,omitempty"`
	Records   []string                 `json:"records,omitempty"` // records the merge wrote
	Conflicts []kernel.Conflict        `json:"conflicts,omitempty"`
	Commit    string                   `json:"commit,omitempty"`
	Base      string                   `json:"base,omitempty"`
	Ours      string                   `json:"ours,omitempty"`
	Theirs    string                   `json:"theirs,omitempty"`
}

// Report is the outcome of verifying commits: each violation and warning
// with the rule it breaks and how to fix it.
type Report struct {
	Commits    int       `json:"commits"`
	OK         bool      `json:"ok"`
	Violations []Finding `json:"violations"`
	Warnings   []Finding `json:"warnings"`
}

// Finding is one violation or warning of a commit.
type Finding struct {
	Commit   string `json:"commit"`
	Record   string `json:"record,omitempty"`
	Path     string `json:"path,omitempty"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Fix      string `json:"fix"`
	Severity string `json:"severity"` // error or warning
}

// VerifyOptions tune verification.
type VerifyOptions struct {
	Strict bool // dangling links are violations, not warnings
	// Now is the judge's clock (zero: now).
	Now time.Time
	// Progress, when set, hears each commit judged of all there are.
	Progress Progress
}

// Progress hears how far a long operation is: done of total.
type Progress func(done, total int)

// Call is one call of a front-end, which the audit line of the op it runs
// names: the front-end, the op it asked for, its agent and its input.
type Call struct {
	Front string
	Op    string
	Agent string
	Input any
}

// each converts a slice element by element, keeping nil as nil (JSON null)
// and empty as empty ([]).
func each[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}

func edgeOf(e gitstore.Edge) Edge             { return Edge(e) }
func endTitleOf(t gitstore.EndTitle) EndTitle { return EndTitle(t) }

func linksOf(l gitstore.Links) Links {
	return Links{Forward: each(l.Forward, edgeOf), Reverse: each(l.Reverse, edgeOf),
		ForwardTitles: each(l.ForwardTitles, endTitleOf), ReverseTitles: each(l.ReverseTitles, endTitleOf)}
}

func entryOf(e *gitstore.IndexEntry) Entry {
	return Entry{ID: e.ID, Type: e.Type, Category: e.Category, Title: e.Title, Status: e.Status, Kind: e.Kind,
		Tags: e.Tags, Aliases: e.Aliases, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

func searchHitOf(h gitstore.SearchHit) SearchHit { return SearchHit(h) }

func blameOf(b *gitstore.Blame) *Blame {
	return &Blame{ID: b.ID, Type: b.Type, Fields: each(b.Fields, func(f gitstore.FieldOrigin) FieldOrigin { return FieldOrigin(f) })}
}

func recordDiffOf(d *gitstore.RecordDiff) *RecordDiff {
	return &RecordDiff{From: d.From, To: d.To,
		Added: each(d.Added, func(a gitstore.AddedRecord) AddedRecord {
			return AddedRecord{RecordRef: RecordRef(a.RecordRef), Scope: a.Scope, Excerpt: a.Excerpt, MoreLines: a.MoreLines}
		}),
		Changed: each(d.Changed, func(c gitstore.RecordChange) RecordChange {
			return RecordChange{RecordRef: RecordRef(c.RecordRef), Fields: each(c.Fields, func(f gitstore.FieldChange) FieldChange { return FieldChange(f) }), Log: c.Log}
		}),
		Superseded: each(d.Superseded, func(s gitstore.Supersession) Supersession {
			return Supersession{RecordRef: RecordRef(s.RecordRef), By: s.By}
		}),
		Retired: each(d.Retired, func(r gitstore.Retirement) Retirement {
			return Retirement{RecordRef: RecordRef(r.RecordRef), Status: r.Status}
		}),
		Links:      LinkChanges{Added: each(d.Links.Added, edgeOf), Removed: each(d.Links.Removed, edgeOf)},
		Violations: each(d.Violations, func(v gitstore.DiffViolation) DiffViolation { return DiffViolation(v) }),
	}
}

func syncResultOf(r *gitstore.SyncResult) *SyncResult {
	if r == nil {
		return nil
	}
	out := &SyncResult{Remote: r.Remote, Ref: r.Ref, Incoming: r.Incoming, Conflicts: r.Conflicts, Kept: each(r.Kept, keptOf),
		Pushed: r.Pushed, Attempts: r.Attempts, Fetched: revision(r.Fetched)}
	if rp := r.Replay; rp != nil {
		out.Replay = &ReplayOutcome{Onto: revision(rp.Onto), Commit: revision(rp.Commit), Kept: each(rp.Kept, keptOf),
			Replayed: each(rp.Replayed, func(c gitstore.ReplayedCommit) ReplayedCommit {
				return ReplayedCommit{Original: revision(c.Original), Commit: revision(c.Commit), Op: c.Op, Conflicts: c.Conflicts}
			})}
	}
	if m := r.Merge; m != nil {
		out.Merge = &MergeOutcome{Kind: m.Kind, Cases: m.Cases, Records: m.Records, Conflicts: m.Conflicts,
			Commit: revision(m.Commit), Base: revision(m.Base), Ours: revision(m.Ours), Theirs: revision(m.Theirs)}
	}
	return out
}

func keptOf(k gitstore.KeptCommit) KeptCommit {
	return KeptCommit{Commit: revision(k.Commit), Ref: k.Ref, Op: k.Op, Records: k.Records, Code: k.Code, Reason: k.Reason}
}

func reportOf(r *hooks.Report) *Report {
	if r == nil {
		return nil
	}
	finding := func(f hooks.Finding) Finding { return Finding(f) }
	return &Report{Commits: r.Commits, OK: r.OK, Violations: each(r.Violations, finding), Warnings: each(r.Warnings, finding)}
}

// revision is a commit id as the service gives it: 40 hex digits, "" for none.
func revision(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}
