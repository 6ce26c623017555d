package gitstore

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/git-records/git-records/kernel"
)

// MergeOutcome reports what a merge did.
type MergeOutcome struct {
	Kind      string                   `json:"kind"` // up-to-date, fast-forward, merged
	Commit    plumbing.Hash            `json:"commit"`
	Base      plumbing.Hash            `json:"base"`
	Ours      plumbing.Hash            `json:"ours"`
	Theirs    plumbing.Hash            `json:"theirs"`
	Cases     map[kernel.MergeCase]int `json:"cases,omitempty"`
	Records   []string                 `json:"records,omitempty"` // records the merge wrote
	Conflicts []kernel.Conflict        `json:"conflicts,omitempty"`
	// theirChanges are what theirs changed since the base (MergeFiles),
	// which the merge commit's judgment reads again.
	theirChanges []Change
}

// Merge brings theirs into the records branch: nothing when the branch
// already has it, a fast-forward when the branch is behind, else a signed
// merge commit with both parents whose records are the record-level
// three-way merge from the real merge base. It is a decision of the one
// write loop: the policy gate judges the merge commit (the merge right)
// before it is written, and a lost race merges again on the new tip.
func (s *Store) Merge(theirs plumbing.Hash, agent string) (*MergeOutcome, error) {
	return s.MergeApproved(theirs, agent, kernel.Approval{})
}

// MergeApproved is Merge with the caller's approval, for a policy that
// marks merges as needing one.
func (s *Store) MergeApproved(theirs plumbing.Hash, agent string, approval kernel.Approval) (*MergeOutcome, error) {
	var out *MergeOutcome
	w, _, err := s.write(s.callFor(kernel.OpMerge, agent), func(v *View, env kernel.Env) (*plannedWrite, error) {
		ours := v.Tip()
		out = &MergeOutcome{Ours: ours, Theirs: theirs}
		switch {
		case ours == theirs || (!ours.IsZero() && s.IsAncestor(theirs, ours)):
			out.Kind, out.Commit = "up-to-date", ours
			return nil, nil
		case ours.IsZero() || s.IsAncestor(ours, theirs):
			// Nothing is written: the branch takes a history whose
			// commits were judged on their own (sync and merge verify
			// what comes in), its root an init.
			out.Kind, out.Commit = "fast-forward", theirs
			return &plannedWrite{moveTo: theirs}, nil
		}
		out.Kind = "merged"
		return s.planMerge(v, out, agent, env)
	}, approval, true)
	if err != nil {
		return nil, err
	}
	if out.Kind == "merged" {
		out.Commit = w.Commit
	}
	return out, nil
}

// indexMerged moves the index to the commit a merge or fast-forward left
// the branch on, by the tree diff from the tip the index reflects: the
// cost follows what the merge changed, never the size of the store. With
// no index yet there is nothing to catch up; the first read builds it.
func (s *Store) indexMerged(commit plumbing.Hash) {
	if s.index == nil {
		if _, err := os.Stat(s.indexPath()); err != nil {
			return
		}
	}
	v, err := s.viewAt(commit)
	if err != nil {
		return
	}
	_, _ = s.indexAt(commit, v.trees) // a cache: failing only costs the next read a catch-up
}

// planMerge decides the merge commit of out.Ours (v's tip) and out.Theirs.
func (s *Store) planMerge(v *View, out *MergeOutcome, agent string, env kernel.Env) (*plannedWrite, error) {
	base, err := s.MergeBase(out.Ours, out.Theirs)
	if err != nil {
		return nil, err
	}
	if base.IsZero() {
		// A history with a root of its own would bring its own trust root
		// (allowed signers, policy) along; verify refuses such merges.
		return nil, kernel.Errorf(kernel.CodeConflict, "%s shares no history with %s: records branches with different roots are not merged (each root is its own trust root)", out.Theirs.String()[:12], s.ref)
	}
	out.Base = base
	files, have, err := s.MergeFiles(base, out.Ours, out.Theirs, kernel.MergeInfo{At: env.Now.Truncate(time.Second), Agent: agent, Text: MergeText}, out)
	if err != nil {
		return nil, err
	}
	m := &kernel.Mutation{Op: kernel.OpMerge, Type: "records",
		Title:   fmt.Sprintf("%d records from %s", len(out.Records), out.Theirs.String()[:12]),
		Message: mergeSummary(out), Files: files}
	m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerOp, Value: string(kernel.OpMerge)})
	for _, id := range out.Records {
		m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerID, Value: id})
	}
	m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerAgent, Value: agent},
		kernel.Trailer{Key: kernel.TrailerFormat, Value: kernel.FormatVersion},
		kernel.Trailer{Key: kernel.TrailerMergedFrom, Value: out.Theirs.String()})
	for _, c := range out.Conflicts {
		m.Trailers = append(m.Trailers, kernel.ConflictTrailer(c))
	}
	// A record the merge takes as theirs has it is theirs' blob, already
	// here (fetched): reuse it rather than write and fsync it once more.
	tv, err := s.viewAt(out.Theirs)
	if err != nil {
		return nil, err
	}
	for p, data := range files {
		if h, _ := tv.FileHash(p); !h.IsZero() && h == plumbing.ComputeHash(plumbing.BlobObject, data) {
			have[p] = h
			delete(files, p)
		}
	}
	return &plannedWrite{m: m, have: have, merged: out.Theirs, theirChanges: out.theirChanges}, nil
}

func mergeSummary(out *MergeOutcome) string {
	var parts []string
	cases := make([]string, 0, len(out.Cases))
	for c, n := range out.Cases {
		cases = append(cases, fmt.Sprintf("%s: %d", c, n))
	}
	sort.Strings(cases)
	parts = append(parts, "Record-level merge from "+out.Base.String()[:min(12, len(out.Base.String()))]+" ("+strings.Join(cases, ", ")+").")
	if len(out.Conflicts) > 0 {
		parts = append(parts, fmt.Sprintf("%d fields changed on both sides were resolved by the later mutation; the other values are kept in the records' mutation logs.", len(out.Conflicts)))
	}
	return strings.Join(parts, "\n\n")
}

// MergeFiles computes the files a merge of theirs into ours must write on
// top of ours: their content (files), or the blob already stored that
// holds it (have). It looks only at what theirs changed since the base:
// what only ours changed is already in ours. out collects the cases, the
// records written and the conflicts.
func (s *Store) MergeFiles(base, ours, theirs plumbing.Hash, info kernel.MergeInfo, out *MergeOutcome) (map[string][]byte, map[string]plumbing.Hash, error) {
	theirChanges, err := s.Changes(base, theirs)
	if err != nil {
		return nil, nil, err
	}
	out.theirChanges = theirChanges
	ov, err := s.viewAt(ours)
	if err != nil {
		return nil, nil, err
	}
	bv, err := s.viewAt(base)
	if err != nil {
		return nil, nil, err
	}
	if out.Cases == nil {
		out.Cases = map[kernel.MergeCase]int{}
	}
	files, have := map[string][]byte{}, map[string]plumbing.Hash{}
	for _, c := range theirChanges {
		oursBlob, _ := ov.FileHash(c.Path)
		if _, id, ok := ParseRecordPath(c.Path); ok {
			if !c.New.IsZero() && oursBlob == c.Old {
				// Only theirs changed the record since the base: the
				// merge is theirs' version, taken as it is stored, as git
				// takes a one-sided change; nothing to decode or write.
				// (The commits that wrote it were verified on the way in.)
				if c.Old.IsZero() {
					out.Cases[kernel.CaseAddedTheirs]++
				} else {
					out.Cases[kernel.CaseChangedTheirs]++
				}
				have[c.Path] = c.New
				out.Records = append(out.Records, id)
				continue
			}
			res, err := s.mergeRecordAt(c, oursBlob, ours, theirs, info)
			if err != nil {
				return nil, nil, err
			}
			out.Cases[res.Case]++
			out.Conflicts = append(out.Conflicts, res.Conflicts...)
			if res.Record == nil {
				continue
			}
			data, err := EncodeRecord(res.Record)
			if err != nil {
				return nil, nil, err
			}
			if cur, _ := s.blobIfAny(oursBlob); string(cur) != string(data) {
				files[c.Path] = data
				out.Records = append(out.Records, id)
			}
			continue
		}
		// A store file (.records/…): take theirs when ours left it alone.
		// Allowed signers changed on both sides merge line by line (keys
		// added on either side stay, keys removed on either side stay
		// removed); any other file changed on both sides keeps ours and the
		// conflict is reported.
		baseBlob, _ := bv.FileHash(c.Path)
		switch {
		case c.New.IsZero() || oursBlob == c.New:
		case oursBlob == baseBlob:
			have[c.Path] = c.New
		case c.Path == AllowedSignersPath:
			var sides [3][]byte
			for i, h := range []plumbing.Hash{baseBlob, oursBlob, c.New} {
				if sides[i], err = s.blobIfAny(h); err != nil {
					return nil, nil, err
				}
			}
			files[c.Path] = MergeSigners(sides[0], sides[1], sides[2])
		default:
			out.Conflicts = append(out.Conflicts, kernel.Conflict{Field: c.Path, Kept: ours.String(), Lost: theirs.String()})
		}
	}
	sort.Strings(out.Records)
	return files, have, nil
}

func (s *Store) blobIfAny(h plumbing.Hash) ([]byte, error) {
	if h.IsZero() {
		return nil, nil
	}
	return s.blob(h)
}

func (s *Store) recordIfAny(h plumbing.Hash) (*kernel.Record, error) {
	if h.IsZero() {
		return nil, nil
	}
	return s.readRecord(h)
}

func (s *Store) mergeRecordAt(c Change, oursBlob, ours, theirs plumbing.Hash, info kernel.MergeInfo) (kernel.MergeResult, error) {
	b, err := s.recordIfAny(c.Old)
	if err != nil {
		return kernel.MergeResult{}, err
	}
	o, err := s.recordIfAny(oursBlob)
	if err != nil {
		return kernel.MergeResult{}, err
	}
	t, err := s.recordIfAny(c.New)
	if err != nil {
		return kernel.MergeResult{}, err
	}
	return kernel.MergeRecord(b, kernel.Side{Record: o, Commit: ours.String()}, kernel.Side{Record: t, Commit: theirs.String()}, info), nil
}

// MergeText merges two edits of a text line by line from their base: hunks
// that touch different lines both apply; ok is false when they overlap
// (or insert different text at the same place).
func MergeText(base, ours, theirs string) (string, bool) {
	a, b := hunks(base, ours), hunks(base, theirs)
	baseLines := splitLines(base)
	var out strings.Builder
	pos := 0
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var next hunk
		switch {
		case j == len(b):
			next, i = a[i], i+1
		case i == len(a):
			next, j = b[j], j+1
		case a[i] == b[j]:
			next, i, j = a[i], i+1, j+1
		case overlap(a[i], b[j]):
			return "", false
		case before(a[i], b[j]):
			next, i = a[i], i+1
		default:
			next, j = b[j], j+1
		}
		for ; pos < next.start; pos++ {
			out.WriteString(baseLines[pos])
		}
		out.WriteString(next.text)
		pos = next.end
	}
	for ; pos < len(baseLines); pos++ {
		out.WriteString(baseLines[pos])
	}
	return out.String(), true
}

func overlap(x, y hunk) bool {
	if x.start == y.start && (x.start == x.end || y.start == y.end) {
		return true // two insertions, or an insertion and an edit, at one place
	}
	return x.start < y.end && y.start < x.end
}

func before(x, y hunk) bool { return x.start < y.start }

// hunk replaces base lines [start, end) with text.
type hunk struct {
	start, end int
	text       string
}

func hunks(base, other string) []hunk {
	var out []hunk
	pos := 0
	var cur *hunk
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, d := range diff.Do(base, other) {
		n := len(splitLines(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			flush()
			pos += n
		case diffmatchpatch.DiffDelete:
			if cur == nil {
				cur = &hunk{start: pos, end: pos}
			}
			pos += n
			cur.end = pos
		case diffmatchpatch.DiffInsert:
			if cur == nil {
				cur = &hunk{start: pos, end: pos}
			}
			cur.text += d.Text
		}
	}
	flush()
	return out
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// MergeSigners merges two edits of an allowed-signers file from their
// base: kernel.MergeSigners, the rule verify holds a merge to.
func MergeSigners(base, ours, theirs []byte) []byte { return kernel.MergeSigners(base, ours, theirs) }
