package gitstore

import (
	"container/heap"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-records/git-records/kernel"
)

// ListSort is an order of a listing: by one field, then by id, so that
// records with equal fields keep one order from page to page.
type ListSort struct {
	By   string // one of SortFields; "" is "created"
	Desc bool   // the whole order reversed, the id tie-break included
}

// SortFields are the fields a listing can be ordered by.
var SortFields = []string{"created", "updated", "title", "category"}

// Check refuses a field a listing cannot be ordered by.
func (s ListSort) Check() error {
	if s.By == "" || slices.Contains(SortFields, s.By) {
		return nil
	}
	return kernel.Errorf(kernel.CodeUsage, "cannot sort by %q: sort by one of %s", s.By, strings.Join(SortFields, ", ")).WithField("sort")
}

// Compare orders two entries: the field, then (title, category) the title
// case aside, then the id.
func (s ListSort) Compare(a, b *IndexEntry) int {
	c := 0
	switch s.By {
	case "updated":
		c = compareInt(a.UpdatedAt, b.UpdatedAt)
	case "title":
		c = compareTitles(a.Title, b.Title)
	case "category":
		c = strings.Compare(a.Category, b.Category)
		if c == 0 {
			c = compareTitles(a.Title, b.Title)
		}
	default:
		c = compareInt(a.CreatedAt, b.CreatedAt)
	}
	if c == 0 {
		c = strings.Compare(a.ID, b.ID)
	}
	if s.Desc {
		return -c
	}
	return c
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareTitles orders titles as a reader looks one up: letters case
// aside, then byte order between titles that differ only in case.
func compareTitles(a, b string) int {
	for i, j := 0, 0; i < len(a) || j < len(b); {
		if i == len(a) {
			return -1
		}
		if j == len(b) {
			return 1
		}
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		if la, lb := unicode.ToLower(ra), unicode.ToLower(rb); la != lb {
			return compareInt(int64(la), int64(lb))
		}
		i, j = i+na, j+nb
	}
	return strings.Compare(a, b)
}

// ListPage is one page of ListEntries in the order s: the entries at
// [offset, offset+limit) and how many match in all (Index.ListPage).
func (v *View) ListPage(f Filter, s ListSort, offset, limit int) (page []*IndexEntry, total int, err error) {
	ix, err := v.Index()
	if err != nil {
		return nil, 0, err
	}
	return ix.ListPage(f, s, offset, limit)
}

// ListPage is one page of the entries that match f, in the order s, and
// how many match in all. It reads the index only, never a record, and
// holds at most offset+limit entries whatever the store's size: a bounded
// heap keeps the first ones as the walk goes.
func (ix *Index) ListPage(f Filter, s ListSort, offset, limit int) (page []*IndexEntry, total int, err error) {
	if err := s.Check(); err != nil {
		return nil, 0, err
	}
	if offset < 0 || limit < 1 {
		return nil, 0, kernel.Errorf(kernel.CodeUsage, "a page starts at 0 or later and holds 1 entry or more, not %d from %d", limit, offset)
	}
	keep := offset + limit
	if keep < offset {
		keep = math.MaxInt
	}
	now := f.now()
	ix.guard(func() {
		first := &entryHeap{cmp: s.Compare}
		total = 0
		ix.listEntries(f, now, func(e *IndexEntry) {
			total++
			switch {
			case first.Len() < keep:
				heap.Push(first, e)
			case s.Compare(e, first.es[0]) < 0:
				first.es[0] = e
				heap.Fix(first, 0)
			}
		})
		slices.SortFunc(first.es, s.Compare)
		page = nil
		if offset < len(first.es) {
			page = first.es[offset:]
		}
	})
	return page, total, nil
}

// entryHeap holds the first entries found so far with the last of them
// on top, to be replaced by any entry that comes before it.
type entryHeap struct {
	es  []*IndexEntry
	cmp func(a, b *IndexEntry) int
}

func (h *entryHeap) Len() int           { return len(h.es) }
func (h *entryHeap) Less(i, j int) bool { return h.cmp(h.es[i], h.es[j]) > 0 }
func (h *entryHeap) Swap(i, j int)      { h.es[i], h.es[j] = h.es[j], h.es[i] }
func (h *entryHeap) Push(x any)         { h.es = append(h.es, x.(*IndexEntry)) }
func (h *entryHeap) Pop() any {
	e := h.es[len(h.es)-1]
	h.es = h.es[:len(h.es)-1]
	return e
}
