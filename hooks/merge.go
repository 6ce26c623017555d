package hooks

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// mergeTrailers are the trailers of a merge commit made with plain git
// (git merge, git pull) on a checked-out records branch, for commit-msg:
// the merged-from commit, the records the merge writes on top of HEAD, and
// each conflict the merge driver resolved (a merge entry it appended).
func mergeTrailers(s *gitstore.Store, changes []gitstore.Change, mergeHead plumbing.Hash) ([]kernel.Trailer, string) {
	agent := os.Getenv("GIT_RECORDS_AGENT")
	if agent == "" {
		_, agent = s.Ident()
	}
	ts := []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpMerge)}}
	var conflicts []kernel.Trailer
	for _, c := range changes {
		_, id, ok := gitstore.ParseRecordPath(c.Path)
		if !ok || c.New.IsZero() {
			continue
		}
		r, err := s.RecordFromBlob(c.New)
		if err != nil {
			return nil, c.Path + " does not parse: " + err.Error()
		}
		ts = append(ts, kernel.Trailer{Key: kernel.TrailerID, Value: id})
		var old []kernel.MutationEntry
		if !c.Old.IsZero() {
			if o, err := s.RecordFromBlob(c.Old); err == nil {
				old = o.MutationLog
			}
		}
		hadEntry := kernel.NewEntrySet(old)
		for _, e := range r.MutationLog {
			if e.Op != string(kernel.OpMerge) || hadEntry.Has(e) {
				continue
			}
			field, _ := e.Evidence["field"].(string)
			kept, _ := e.Evidence["kept_from"].(string)
			conflicts = append(conflicts, kernel.Trailer{Key: kernel.TrailerConflict, Value: id + " " + field + " kept " + kept})
		}
	}
	ts = append(ts, kernel.Trailer{Key: kernel.TrailerAgent, Value: agent}, kernel.Trailer{Key: kernel.TrailerFormat, Value: kernel.FormatVersion},
		kernel.Trailer{Key: kernel.TrailerMergedFrom, Value: mergeHead.String()})
	return append(ts, conflicts...), ""
}
