package service

import (
	"iter"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// View is one consistent read of the store at one tip: the answers a page
// composes from it agree with each other, whatever lands meanwhile. It is
// a kernel.View (records by id, handles, aliases).
type View struct {
	snap kernel.Snapshot
	// git is the same snapshot as the git store's view, whose indexes
	// answer listings, links and search; nil over another store.
	git *gitstore.View
}

var _ kernel.View = (*View)(nil)

// View reads the tip as it is now.
func (s *Service) View() (*View, error) {
	if s.git != nil {
		v, err := s.git.View()
		if err != nil {
			return nil, err
		}
		return &View{snap: v, git: v}, nil
	}
	snap, err := s.store.Snapshot()
	if err != nil {
		return nil, err
	}
	return &View{snap: snap}, nil
}

// ViewAt reads the store at revision rev (a commit id the service gave).
func (s *Service) ViewAt(rev string) (*View, error) {
	g, err := s.needsGit("a view of a past revision")
	if err != nil {
		return nil, err
	}
	v, err := g.ViewAt(plumbing.NewHash(rev))
	if err != nil {
		return nil, err
	}
	return &View{snap: v, git: v}, nil
}

// needsIndex is the git view, whose indexes answer what only they can,
// or the error saying so.
func (v *View) needsIndex(what string) (*gitstore.View, error) {
	if v.git == nil {
		return nil, kernel.Errorf(kernel.CodeUsage, "%s needs a git store's index; this view reads another store", what)
	}
	return v.git, nil
}

// Record returns the record with exactly this id, or nil; its links are
// its file's own.
func (v *View) Record(id string) (*kernel.Record, error) { return v.snap.Record(id) }

// Resolve turns a handle (id, alias, unique prefix) into an id; "" when
// nothing matches.
func (v *View) Resolve(handle string) (string, error) { return v.snap.Resolve(handle) }

// AliasOwner returns the id holding alias, or "".
func (v *View) AliasOwner(alias string) (string, error) { return v.snap.AliasOwner(alias) }

// Get resolves a handle and returns the record with its body's wikilinks
// among its links, as get answers it; nil when nothing matches.
func (v *View) Get(handle string) (*kernel.Record, error) {
	if v.git != nil {
		return v.git.Get(handle)
	}
	id, err := v.snap.Resolve(handle)
	if err != nil || id == "" {
		return nil, err
	}
	r, err := v.snap.Record(id)
	if err != nil || r == nil {
		return nil, err
	}
	return WithBodyLinks(r), nil
}

// WithBodyLinks returns r with its body's wikilinks among its links (kind
// related, label kept), as get answers a record.
func WithBodyLinks(r *kernel.Record) *kernel.Record { return gitstore.WithBodyLinks(r) }

// Revision names the commit this view reads; "" when the branch does not
// exist yet.
func (v *View) Revision() string { return v.snap.Revision() }

// Exists reports whether the branch exists at this view.
func (v *View) Exists() bool { return v.snap.Revision() != "" }

// ReadFile returns one of the store's own files at this view (kernel
// FormatPath, AllowedSignersPath, PolicyPath, AttributesPath); nil when absent.
func (v *View) ReadFile(path string) ([]byte, error) { return v.snap.ReadFile(path) }

// IDs lists the id of every record, sorted.
func (v *View) IDs() ([]string, error) { return v.snap.IDs() }

// Trust is the trust in force at this view: the allowed signers and the
// policy the store holds. A git store's that does not parse remembers the
// last that did, under which the repairing policy commit is judged.
func (v *View) Trust() (*kernel.Trust, error) {
	if v.git != nil {
		return v.git.Trust()
	}
	signers, err := v.snap.ReadFile(kernel.AllowedSignersPath)
	if err != nil {
		return nil, err
	}
	policy, err := v.snap.ReadFile(kernel.PolicyPath)
	if err != nil {
		return nil, err
	}
	return kernel.NewTrust(signers, policy), nil
}

// Payload reads an observed snapshot's raw payload by its content hash.
func (v *View) Payload(ref string) ([]byte, error) {
	g, err := v.needsIndex("a payload")
	if err != nil {
		return nil, err
	}
	return g.Payload(ref)
}

// Indexed brings the store's index up to this view's tip (a catch-up from
// the tip it last reflected), so the reads that follow find it there.
func (v *View) Indexed() error {
	g, err := v.needsIndex("the index")
	if err != nil {
		return err
	}
	_, err = g.Index()
	return err
}

// Title is the title of the record id as the index has it; ok is false
// when no record has that id.
func (v *View) Title(id string) (string, bool) {
	if v.git == nil {
		r, err := v.snap.Record(id)
		if err != nil || r == nil {
			return "", false
		}
		return r.Title, true
	}
	ix, err := v.git.Index()
	if err != nil {
		return "", false
	}
	return ix.Title(id)
}

// Len counts the records.
func (v *View) Len() (int, error) {
	if v.git == nil {
		ids, err := v.snap.IDs()
		return len(ids), err
	}
	ix, err := v.git.Index()
	if err != nil {
		return 0, err
	}
	return ix.Len(), nil
}

// Entry is the index entry of record id; nil when there is none.
func (v *View) Entry(id string) (*Entry, error) {
	g, err := v.needsIndex("an index entry")
	if err != nil {
		return nil, err
	}
	ix, err := g.Index()
	if err != nil {
		return nil, err
	}
	e := ix.Entry(id)
	if e == nil {
		return nil, nil
	}
	out := entryOf(e)
	return &out, nil
}

// EachEntry calls fn with the index entry of each record whose id sorts
// after after ("": every record), in id order, until fn returns false.
func (v *View) EachEntry(after string, fn func(Entry) bool) error {
	g, err := v.needsIndex("a walk of the index")
	if err != nil {
		return err
	}
	ix, err := g.Index()
	if err != nil {
		return err
	}
	ix.EachAfter(after, func(e *gitstore.IndexEntry) bool { return fn(entryOf(e)) })
	return nil
}

// IDsWithPrefix lists at most limit ids that start with prefix, in order.
func (v *View) IDsWithPrefix(prefix string, limit int) ([]string, error) {
	g, err := v.needsIndex("a prefix search")
	if err != nil {
		return nil, err
	}
	ix, err := g.Index()
	if err != nil {
		return nil, err
	}
	return ix.IDsWithPrefix(prefix, limit), nil
}

// Entries are index entries, each converted as it is read: a listing of
// the whole store holds the index's own entries, not a copy of them.
type Entries struct{ es []*gitstore.IndexEntry }

// Len counts the entries.
func (e Entries) Len() int { return len(e.es) }

// All gives each entry in order.
func (e Entries) All() iter.Seq[Entry] {
	return func(yield func(Entry) bool) {
		for _, x := range e.es {
			if !yield(entryOf(x)) {
				return
			}
		}
	}
}

// ListEntries is what List selects, from the index: no record is read.
func (v *View) ListEntries(f Filter) (Entries, error) {
	g, err := v.needsIndex("a listing")
	if err != nil {
		return Entries{}, err
	}
	es, err := g.ListEntries(gitstore.Filter(f))
	return Entries{es}, err
}

// ListPage is one page of the records filter selects, in order s: at most
// limit from offset, and how many there are in all.
func (v *View) ListPage(f Filter, s ListSort, offset, limit int) (Entries, int, error) {
	g, err := v.needsIndex("a page of the listing")
	if err != nil {
		return Entries{}, 0, err
	}
	es, total, err := g.ListPage(gitstore.Filter(f), gitstore.ListSort(s), offset, limit)
	return Entries{es}, total, err
}

// SortEntries sorts records read in full in the order s gives a listing
// page, and returns limit of them from offset.
func SortEntries(rs []*kernel.Record, s ListSort, offset, limit int) []*kernel.Record {
	entries := make([]*gitstore.IndexEntry, len(rs))
	byID := make(map[string]*kernel.Record, len(rs))
	for i, r := range rs {
		entries[i] = &gitstore.IndexEntry{ID: r.ID, Title: r.Title, Category: r.Category, CreatedAt: r.CreatedAt.UnixMilli(), UpdatedAt: r.UpdatedAt.UnixMilli()}
		byID[r.ID] = r
	}
	slices.SortFunc(entries, gitstore.ListSort(s).Compare)
	var out []*kernel.Record
	for i := offset; i < len(entries) && len(out) < limit; i++ {
		out = append(out, byID[entries[i].ID])
	}
	return out
}

// StoredFile is the file of record r exactly as the branch holds it.
func (v *View) StoredFile(r *kernel.Record) ([]byte, error) {
	g, err := v.needsIndex("a record's file")
	if err != nil {
		return nil, err
	}
	return g.ReadFile(gitstore.RecordPath(r.Type, r.ID))
}
