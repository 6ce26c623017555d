package gitstore

import (
	"encoding/json"

	"github.com/go-git/go-git/v5/plumbing"
)

// hexOrEmpty is a commit id as people and scripts read it: 40 hex digits,
// or "" for none. plumbing.Hash alone marshals as an array of 20 numbers.
func hexOrEmpty(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// MarshalJSON writes the commit ids as 40-hex strings.
func (m MergeOutcome) MarshalJSON() ([]byte, error) {
	type plain MergeOutcome // without this method
	return json.Marshal(struct {
		plain
		Commit string `json:"commit,omitempty"`
		Base   string `json:"base,omitempty"`
		Ours   string `json:"ours,omitempty"`
		Theirs string `json:"theirs,omitempty"`
	}{plain(m), hexOrEmpty(m.Commit), hexOrEmpty(m.Base), hexOrEmpty(m.Ours), hexOrEmpty(m.Theirs)})
}

// MarshalJSON writes the fetched tip as a 40-hex string ("" when nothing was fetched).
func (r SyncResult) MarshalJSON() ([]byte, error) {
	type plain SyncResult
	return json.Marshal(struct {
		plain
		Fetched string `json:"fetched"`
	}{plain(r), hexOrEmpty(r.Fetched)})
}
