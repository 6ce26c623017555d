package gitstore

import (
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

var _ kernel.CompactionView = (*View)(nil)

// CompactionCandidates lists the active event and snapshot records created
// before t, rollups aside, from the index: what kernel.Compact may roll up.
func (v *View) CompactionCandidates(before time.Time) ([]*kernel.Record, error) {
	ix, err := v.Index()
	if err != nil {
		return nil, err
	}
	cut := before.UnixMilli()
	var blobs []plumbing.Hash
	ix.Each(func(e *IndexEntry) bool {
		if (e.Kind == kernel.KindEvent || e.Kind == kernel.KindSnapshot) && e.Status == kernel.StatusActive &&
			e.Type != kernel.RollupType && e.CreatedAt < cut {
			blobs = append(blobs, e.Blob)
		}
		return true
	})
	out := make([]*kernel.Record, 0, len(blobs))
	for _, b := range blobs {
		r, err := v.s.readRecord(b)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// CitedBy lists the links to id from other records (frontmatter links,
// body wikilinks, relation records), with the type and role of each.
func (v *View) CitedBy(id string) ([]kernel.Citation, error) {
	ix, err := v.Index()
	if err != nil {
		return nil, err
	}
	var out []kernel.Citation
	for _, e := range ix.Reverse(id) {
		c := kernel.Citation{From: e.Source, Kind: e.Kind}
		if from := ix.Entry(e.Source); from != nil {
			c.FromType, c.FromRole = from.Type, from.Role
		}
		out = append(out, c)
	}
	return out, nil
}
