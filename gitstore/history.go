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
}

// History walks the branch from the tip along first parents and returns the
// commits whose tree changed path (every commit when path is ""), newest
// first, at most limit (0 = all). Truth is the tree, not the trailers: a
// hand-made commit that touched the record is listed too.
func (s *Store) History(path string, limit int) ([]HistoryEntry, error) {
	tip, err := s.Tip()
	if err != nil || tip.IsZero() {
		return nil, err
	}
	trees := newTreeReader(s.objects)
	var out []HistoryEntry
	for h := tip; !h.IsZero(); {
		c, err := s.commit(h)
		if err != nil {
			return nil, err
		}
		var parent plumbing.Hash
		if len(c.ParentHashes) > 0 {
			parent = c.ParentHashes[0]
		}
		changed := path == ""
		if !changed {
			cur, _, err := trees.lookup(c.TreeHash, path)
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
				Subject: msg.Subject, Signed: c.PGPSignature != "", Trailers: msg.Trailers}
			out = append(out, e)
			if limit > 0 && len(out) >= limit {
				break
			}
		}
		h = parent
	}
	return out, nil
}
