package gitstore

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// HistoryEntry is one commit that changed a record (or, without a record,
// one commit of the store).
type HistoryEntry struct {
	Commit    string           `json:"commit"`
	Op        string           `json:"op"`
	Agent     string           `json:"agent,omitempty"`
	Committer string           `json:"committer"`
	Time      kernel.Timestamp `json:"time"`
	Subject   string           `json:"subject"`
	Signed    bool             `json:"signed"`
	Trailers  []kernel.Trailer `json:"trailers,omitempty"`
	// Blob is the record file as this commit left it (zero when the commit
	// deleted it, or for the store's history).
	Blob plumbing.Hash `json:"-"`
}

// History walks the branch from the tip along first parents and returns the
// commits whose tree changed path (every commit when path is ""), newest
// first, at most limit (0 = all). Truth is the tree, not the trailers: a
// hand-made commit that touched the record is listed too.
func (s *Store) History(path string, limit int) ([]HistoryEntry, error) {
	return s.HistorySince(path, plumbing.ZeroHash, limit)
}

// HistorySince is History without the commits reachable from since (zero:
// none excluded): what changed after a reader last saw the branch at since.
// A reader that polls keeps the tip it saw and asks again with it.
func (s *Store) HistorySince(path string, since plumbing.Hash, limit int) ([]HistoryEntry, error) {
	tip, err := s.Tip()
	if err != nil || tip.IsZero() {
		return nil, err
	}
	var unseen map[plumbing.Hash]bool
	if !since.IsZero() {
		// The first-parent commits of the tip that since cannot reach; the
		// walk below follows first parents, so it stops at the first commit
		// outside this set.
		hs, err := s.RevList("--first-parent", since.String()+".."+tip.String())
		if err != nil {
			return nil, err
		}
		unseen = make(map[plumbing.Hash]bool, len(hs))
		for _, h := range hs {
			unseen[h] = true
		}
	}
	trees := newTreeReader(s.objects)
	var out []HistoryEntry
	for h := tip; !h.IsZero(); {
		if unseen != nil && !unseen[h] {
			break
		}
		c, err := s.commit(h)
		if err != nil {
			return nil, err
		}
		var parent plumbing.Hash
		if len(c.ParentHashes) > 0 {
			parent = c.ParentHashes[0]
		}
		changed := path == ""
		var cur plumbing.Hash
		if !changed {
			cur, _, err = trees.lookup(c.TreeHash, path)
			if err != nil {
				return nil, err
			}
			prevRoot, err := s.rootOf(parent)
			if err != nil {
				return nil, err
			}
			prev, _, err := trees.lookup(prevRoot, path)
			if err != nil {
				return nil, err
			}
			changed = cur != prev
		}
		if changed {
			msg, _ := DecodeMessage(c.Message)
			e := HistoryEntry{Commit: c.Hash.String(), Op: msg.Get(kernel.TrailerOp), Agent: msg.Get(kernel.TrailerAgent),
				Committer: c.Committer.Name + " <" + c.Committer.Email + ">", Time: kernel.At(c.Committer.When),
				Subject: msg.Subject, Signed: c.Signed(), Trailers: msg.Trailers, Blob: cur}
			out = append(out, e)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
		h = parent
	}
	return out, nil
}
