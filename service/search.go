package service

import (
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// SearchQuery is a full-text query (the language of search.ParseQuery)
// with list's selection.
type SearchQuery struct {
	Query string
	ListQuery
	Limit int // at most this many hits; ≤ 0: all
}

// Search ranks the records that match, best first, never nil. With Live or
// Stale, fresh's verdict is taken for the hits only, in rank order, until
// Limit are kept.
func (s *Service) Search(q SearchQuery) ([]SearchHit, *View, error) {
	if q.Limit < 0 {
		return nil, nil, kernel.Errorf(kernel.CodeUsage, "the limit %d is negative: give a count, or 0 for every result", q.Limit).WithField("limit")
	}
	sv, err := s.View()
	if err != nil {
		return nil, nil, err
	}
	v, err := sv.needsIndex("search")
	if err != nil {
		return nil, nil, err
	}
	o := gitstore.SearchOptions{Filter: gitstore.Filter(q.Filter), Limit: q.Limit}
	if q.Live || q.Stale {
		scanner, now := s.scanner(), time.Now()
		o.Keep = func(id string) (bool, error) {
			r, err := v.Record(id)
			if err != nil || r == nil {
				return false, err
			}
			vd, err := verdicts(v, []*kernel.Record{r}, scanner, now)
			if err != nil {
				return false, err
			}
			return q.keeps(r, vd[0]), nil
		}
	}
	hits, err := v.Search(q.Query, o)
	if err != nil {
		return nil, sv, err
	}
	out := each(hits, searchHitOf)
	if out == nil {
		out = []SearchHit{}
	}
	return out, sv, nil
}
