package web

import (
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// The list page shows perPage records unless the query asks for another
// count, at most maxPerPage: a page of every record of a large store is
// slow to build and to read.
const (
	perPage    = 50
	maxPerPage = 500
)

// listPaging is the list's order and page, as the query string gave them.
type listPaging struct {
	Sort      service.ListSort
	Page, Per int // Page counts from 1
}

func pagingOf(q url.Values) (listPaging, error) {
	p := listPaging{Sort: service.ListSort{By: q.Get("sort"), Desc: q.Get("order") == "desc"}, Page: 1, Per: perPage}
	if err := p.Sort.Check(); err != nil {
		return p, err
	}
	if o := q.Get("order"); o != "" && o != "asc" && o != "desc" {
		return p, kernel.Errorf(kernel.CodeUsage, "order is asc or desc, not %q", o).WithField("order")
	}
	for _, n := range []struct {
		key string
		to  *int
		max int
	}{{"page", &p.Page, 1 << 30}, {"per", &p.Per, maxPerPage}} {
		s := q.Get(n.key)
		if s == "" {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > n.max {
			return p, kernel.Errorf(kernel.CodeUsage, "%s is a number from 1 to %d, not %q", n.key, n.max, s).WithField(n.key)
		}
		*n.to = v
	}
	return p, nil
}

func (p listPaging) offset() int { return (p.Page - 1) * p.Per }

// pager is where a page of the list is: its rows' place among Total, the
// pages either side ("" at an end) and the columns it can be sorted by.
type pager struct {
	From, To, Total, Page, Pages int
	Prev, Next                   string
	Columns                      map[string]sortLink
}

// sortLink is a column header's link: to the list sorted by the column,
// or, for the column it is sorted by, the other way round.
type sortLink struct {
	Name, URL, Mark string
}

// pagerOf places page p of a list of total rows, with links that keep the
// rest of the query (the filters) as it is.
func pagerOf(q url.Values, p listPaging, shown, total int) pager {
	pages := max(1, (total+p.Per-1)/p.Per)
	pg := pager{Total: total, Page: p.Page, Pages: pages, Columns: map[string]sortLink{}}
	if shown > 0 {
		pg.From, pg.To = p.offset()+1, p.offset()+shown
	}
	at := func(page int, s service.ListSort) string {
		u := url.Values{}
		for k, vs := range q {
			u[k] = slices.Clone(vs)
		}
		u.Del("page")
		if page > 1 {
			u.Set("page", strconv.Itoa(page))
		}
		u.Del("sort")
		u.Del("order")
		if s.By != "" && s.By != "created" {
			u.Set("sort", s.By)
		}
		if s.Desc {
			u.Set("order", "desc")
		}
		return "/?" + u.Encode()
	}
	if p.Page > 1 {
		pg.Prev = at(min(p.Page-1, pages), p.Sort)
	}
	if p.Page < pages {
		pg.Next = at(p.Page+1, p.Sort)
	}
	current := p.Sort.By
	if current == "" {
		current = "created"
	}
	for _, by := range service.SortFields {
		l := sortLink{Name: by, URL: at(1, service.ListSort{By: by})}
		if by == current {
			l.Mark = "▲"
			if p.Sort.Desc {
				l.Mark = "▼"
			} else {
				l.URL = at(1, service.ListSort{By: by, Desc: true})
			}
		}
		pg.Columns[by] = l
	}
	return pg
}

// day is a time as the list shows it: the day and minute, UTC.
func day(unixMilli int64) string {
	if unixMilli == 0 {
		return ""
	}
	return time.UnixMilli(unixMilli).UTC().Format("2006-01-02 15:04")
}
