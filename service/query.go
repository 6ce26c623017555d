package service

import (
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// Record resolves a handle at the tip and reads the record with its body
// links; a handle that resolves to nothing is NOT_FOUND. The view is the
// tip it was read from, for a front-end that shows more of it.
func (s *Service) Record(handle string) (*View, *kernel.Record, error) {
	v, err := s.View()
	if err != nil {
		return nil, nil, err
	}
	r, err := v.Get(handle)
	if err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, notFound(handle)
	}
	return v, r, nil
}

// Show is a record as `show --json` and the contract's get answer it.
func (s *Service) Show(handle string) (*kernel.Record, error) {
	_, r, err := s.Record(handle)
	return r, err
}

// Links are a record's forward links and backlinks; NOT_FOUND when the
// handle names no record.
func (s *Service) Links(handle string) (Links, error) {
	v, err := s.View()
	if err != nil {
		return Links{}, err
	}
	if id, err := v.Resolve(handle); err != nil {
		return Links{}, err
	} else if id == "" {
		return Links{}, notFound(handle)
	}
	return v.Links(handle)
}

// Links are the forward links and backlinks of the record handle names,
// empty when it names none (contract H.3).
func (v *View) Links(handle string) (Links, error) {
	g, err := v.needsIndex("links")
	if err != nil {
		return Links{}, err
	}
	l, err := g.Links(handle)
	return linksOf(l), err
}

// ListQuery selects records: the index's filter, and optionally fresh's
// verdict against the working tree.
type ListQuery struct {
	Filter Filter
	// Live leaves out records that are stale, superseded or retired.
	Live bool
	// Stale keeps only the records fresh calls stale (expired, or scoped
	// files changed in the working tree).
	Stale bool
}

// List lists records, never nil.
func (s *Service) List(q ListQuery) ([]*kernel.Record, error) {
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	return s.ListAt(v, q)
}

// ListAt is List on a view the caller holds.
func (s *Service) ListAt(v *View, q ListQuery) ([]*kernel.Record, error) {
	g, err := v.needsIndex("a listing")
	if err != nil {
		return nil, err
	}
	rs, err := g.List(gitstore.Filter(q.Filter))
	if err != nil {
		return nil, err
	}
	if !q.Live && !q.Stale {
		if rs == nil {
			rs = []*kernel.Record{}
		}
		return rs, nil
	}
	verdicts, err := s.Verdicts(v, rs, time.Now())
	if err != nil {
		return nil, err
	}
	kept := []*kernel.Record{}
	for i, r := range rs {
		if q.keeps(r, verdicts[i]) {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// EachAt calls fn with each record List would return, in its order. Without
// a freshness filter it streams (gitstore View.EachRecord): one record at a
// time is held, so a listing of the whole store does not grow with it.
func (s *Service) EachAt(v *View, q ListQuery, fn func(*kernel.Record) error) error {
	if !q.Live && !q.Stale {
		g, err := v.needsIndex("a listing")
		if err != nil {
			return err
		}
		return g.EachRecord(gitstore.Filter(q.Filter), fn)
	}
	rs, err := s.ListAt(v, q)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// keeps is the freshness test of Live and Stale, given fresh's verdict.
func (q ListQuery) keeps(r *kernel.Record, vd kernel.Verdict) bool {
	live := vd.State != kernel.FreshnessStale && vd.State != kernel.FreshnessSuperseded && r.EffectiveStatus() != kernel.StatusRetired
	return (q.Live && live) || (q.Stale && vd.State == kernel.FreshnessStale)
}

// Verdicts derives the freshness of each record: superseded from the
// index's backlinks, scoped content from the working tree at WorkDir.
func (s *Service) Verdicts(v *View, records []*kernel.Record, now time.Time) ([]kernel.Verdict, error) {
	g, err := v.needsIndex("freshness")
	if err != nil {
		return nil, err
	}
	return verdicts(g, records, s.scanner(), now)
}

func (s *Service) scanner() *gitstore.ScopeScanner { return gitstore.NewScopeScanner(s.WorkDir) }

func verdicts(v *gitstore.View, records []*kernel.Record, scanner *gitstore.ScopeScanner, now time.Time) ([]kernel.Verdict, error) {
	ix, err := v.Index()
	if err != nil {
		return nil, err
	}
	out := make([]kernel.Verdict, 0, len(records))
	for _, r := range records {
		superseded := ix.HasBacklink(r.ID, kernel.LinkSupersedes)
		out = append(out, kernel.DeriveFreshness(r, now, superseded, scanner.State))
	}
	return out, nil
}

// FreshQuery asks for the freshness of records (none named: every record
// that is not retired), and with Record writes changed verdicts back.
type FreshQuery struct {
	Handles  []string
	Record   bool
	Evidence kernel.Evidence
	Approval kernel.Approval
}

// FreshResult holds the verdicts, and with Record the commit written.
type FreshResult struct {
	Verdicts []kernel.Verdict
	Written  *WriteResult
}

// Fresh judges records against the working tree as it is now.
func (s *Service) Fresh(q FreshQuery) (*FreshResult, error) {
	scanner := s.scanner()
	judge := func(v *gitstore.View) ([]kernel.Verdict, error) {
		records, err := freshnessTargets(v, q.Handles)
		if err != nil {
			return nil, err
		}
		return verdicts(v, records, scanner, time.Now())
	}
	res := &FreshResult{}
	if !q.Record {
		v, err := s.View()
		if err != nil {
			return nil, err
		}
		g, err := v.needsIndex("freshness")
		if err != nil {
			return nil, err
		}
		if res.Verdicts, err = judge(g); err != nil {
			return nil, err
		}
		return res, nil
	}
	if _, err := s.needsGit("fresh --record"); err != nil {
		return nil, err
	}
	// The verdicts are derived from the tip they are written on: a record
	// updated meanwhile is judged as it is now.
	w, err := s.write("", q.Approval, func(kv kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		v, err := s.gitViewOf(kv)
		if err != nil {
			return nil, err
		}
		if res.Verdicts, err = judge(v); err != nil {
			return nil, err
		}
		return kernel.RecordVerdicts(kv, res.Verdicts, scanner.Head(), "", q.Evidence, env)
	})
	if err != nil {
		return nil, err
	}
	res.Written = w
	return res, nil
}

func freshnessTargets(v *gitstore.View, handles []string) ([]*kernel.Record, error) {
	if len(handles) == 0 {
		return v.List(gitstore.Filter{})
	}
	var out []*kernel.Record
	for _, h := range handles {
		r, err := v.Get(h)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, kernel.Errorf(kernel.CodeNotFound, "no record matches %q", h)
		}
		out = append(out, r)
	}
	return out, nil
}

// Blame names, for each field of a record, the commit that last set it;
// the record is as stored (its body's wikilinks are not among its links).
func (s *Service) Blame(handle string) (*Blame, *kernel.Record, error) {
	g, err := s.needsGit("blame")
	if err != nil {
		return nil, nil, err
	}
	v, r, err := s.Record(handle)
	if err != nil {
		return nil, nil, err
	}
	b, err := g.Blame(r.Type, r.ID)
	if err != nil {
		return nil, nil, err
	}
	stored, err := v.Record(r.ID)
	return blameOf(b), stored, err
}

// Verify judges the commits of spec (a revision or a range; "" is the
// whole records branch) against the rules.
func (s *Service) Verify(spec string, opts VerifyOptions) (*Report, error) {
	g, err := s.needsGit("verify")
	if err != nil {
		return nil, err
	}
	if spec == "" {
		if err := g.RequireBranch(); err != nil {
			return nil, err
		}
		spec = g.Ref()
	}
	commits, err := g.RevList(spec)
	if err != nil {
		return nil, err
	}
	rep, err := hooks.Verify(g, commits, hooks.Options{Strict: opts.Strict, Now: opts.Now, Progress: gitstore.Progress(opts.Progress)})
	return reportOf(rep), err
}

// DiffResult is the record-level diff of two revisions and, when asked,
// the verification of the commits the second has and the first lacks.
type DiffResult struct {
	*RecordDiff
	Verification *Report `json:"verification,omitempty"`
}

// Diff compares two revisions: revs is "<a> <b>" as two elements, or one
// "<a>..<b>" or "<a>...<b>" (b against its merge base with a).
func (s *Service) Diff(revs []string, verify bool) (*DiffResult, error) {
	g, err := s.needsGit("diff")
	if err != nil {
		return nil, err
	}
	from, to, err := resolveDiffArgs(g, revs)
	if err != nil {
		return nil, err
	}
	d, err := g.Diff(from, to)
	if err != nil {
		return nil, err
	}
	res := &DiffResult{RecordDiff: recordDiffOf(d)}
	if verify {
		commits, err := g.RevList(to.String(), "^"+from.String())
		if err != nil {
			return nil, err
		}
		rep, err := hooks.Verify(g, commits, hooks.Options{})
		if err != nil {
			return nil, err
		}
		res.Verification = reportOf(rep)
	}
	return res, nil
}

func resolveDiffArgs(g *gitstore.Store, args []string) (from, to plumbing.Hash, err error) {
	var a, b string
	mergeBase := false
	switch {
	case len(args) == 2:
		a, b = args[0], args[1]
	case len(args) == 1 && strings.Contains(args[0], "..."):
		a, b, _ = strings.Cut(args[0], "...")
		mergeBase = true
	case len(args) == 1 && strings.Contains(args[0], ".."):
		a, b, _ = strings.Cut(args[0], "..")
	default:
		return from, to, kernel.Errorf(kernel.CodeUsage, "diff needs two revisions: <a> <b>, <a>..<b> or <a>...<b>")
	}
	if a == "" {
		a = "HEAD"
	}
	if b == "" {
		b = "HEAD"
	}
	if from, err = g.ResolveRev(a); err != nil {
		return from, to, err
	}
	if to, err = g.ResolveRev(b); err != nil {
		return from, to, err
	}
	if mergeBase {
		from, err = g.MergeBase(from, to)
	}
	return from, to, err
}

// Reindex rebuilds the derived index and says whether it had drifted.
func (s *Service) Reindex() (*ReindexResult, error) {
	return s.ReindexProgress(nil)
}

// ReindexProgress is Reindex telling progress of each record it reads.
func (s *Service) ReindexProgress(progress Progress) (*ReindexResult, error) {
	g, err := s.needsGit("reindex")
	if err != nil {
		return nil, err
	}
	res, err := g.ReindexProgress(g.GraphFile(), gitstore.Progress(progress))
	if err != nil || res == nil {
		return nil, err
	}
	out := ReindexResult(*res)
	return &out, nil
}
