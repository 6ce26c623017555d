package gitstore

import (
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// Walk reads many commits of one history, as verify judges a range, with
// state shared between them: each commit and tree is read and each record
// decoded once for the whole walk, not once per commit that looks at it,
// and handle questions (who holds an alias, which id a prefix names) are
// answered from one handle state moved commit by commit by the tree diff,
// never from an index cloned per commit. A Walk is for one goroutine.
type Walk struct {
	s       *Store
	trees   *treeReader
	commits map[plumbing.Hash]*walkCommit
	records map[plumbing.Hash]walkRecord
	// maxRecords bounds records (walkMaxRecords; less in tests).
	maxRecords int
	handles    *handleState
}

type walkCommit struct {
	raw    []byte
	commit *Commit
}

type walkRecord struct {
	r   *kernel.Record
	err error
}

// The caches are bounded so a walk over a long history keeps the memory of
// a window of it: past a bound a cache starts again, empty.
const (
	walkMaxTreeEntries = 1 << 20 // tree entries held, about 100 MB
	walkMaxCommits     = 1 << 13
	walkMaxRecords     = 1 << 13
)

// Walk starts a walk over this store's history.
func (s *Store) Walk() *Walk {
	return &Walk{s: s, trees: newTreeReader(s.objects), commits: map[plumbing.Hash]*walkCommit{}, records: map[plumbing.Hash]walkRecord{}, maxRecords: walkMaxRecords}
}

// Store is the store the walk reads.
func (w *Walk) Store() *Store { return w.s }

func (w *Walk) readCommit(h plumbing.Hash) (*walkCommit, error) {
	if c, ok := w.commits[h]; ok {
		return c, nil
	}
	o, err := w.s.objects.EncodedObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "read commit %s", h)
	}
	raw, err := readAll(o)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "read commit %s", h)
	}
	// Decode from the bytes read, so the signature check (RawCommit) and
	// the judgement (Commit) share one read of the object.
	co, err := decodeCommit(h, raw)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "decode commit %s", h)
	}
	if len(w.commits) >= walkMaxCommits {
		clear(w.commits)
	}
	c := &walkCommit{raw: raw, commit: co}
	w.commits[h] = c
	return c, nil
}

// Commit returns a decoded commit.
func (w *Walk) Commit(h plumbing.Hash) (*Commit, error) {
	c, err := w.readCommit(h)
	if err != nil {
		return nil, err
	}
	return c.commit, nil
}

// RawCommit returns a commit object's bytes as git hashes them.
func (w *Walk) RawCommit(h plumbing.Hash) ([]byte, error) {
	c, err := w.readCommit(h)
	if err != nil {
		return nil, err
	}
	return c.raw, nil
}

func (w *Walk) rootOf(commit plumbing.Hash) (plumbing.Hash, error) {
	if commit.IsZero() {
		return plumbing.ZeroHash, nil
	}
	c, err := w.Commit(commit)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// sharedTrees is the walk's tree reader, emptied first when it holds more
// than its bound. Views handed out keep working: they only read again.
func (w *Walk) sharedTrees() *treeReader {
	if w.trees.entries > walkMaxTreeEntries {
		w.trees.reset()
	}
	return w.trees
}

// ViewAt returns a view of a commit that reads through the walk: its
// trees are the walk's, and its handle answers come from the walk's
// handle state.
func (w *Walk) ViewAt(commit plumbing.Hash) (*View, error) {
	root, err := w.rootOf(commit)
	if err != nil {
		return nil, err
	}
	return &View{s: w.s, tip: commit, root: root, trees: w.sharedTrees(), walk: w}, nil
}

// Changes lists every file that differs between the trees of two commits,
// as Store.Changes does, reading trees through the walk.
func (w *Walk) Changes(from, to plumbing.Hash) ([]Change, error) {
	a, err := w.rootOf(from)
	if err != nil {
		return nil, err
	}
	b, err := w.rootOf(to)
	if err != nil {
		return nil, err
	}
	var out []Change
	err = diffTrees(w.sharedTrees(), a, b, "", &out)
	return out, err
}

// RecordFromBlob decodes the record stored in a blob, once per walk. The
// record is shared: callers read it and never change it.
func (w *Walk) RecordFromBlob(h plumbing.Hash) (*kernel.Record, error) {
	if r, ok := w.records[h]; ok {
		return r.r, r.err
	}
	r, err := w.s.readRecord(h)
	if err != nil && kernel.CodeOf(err) == kernel.CodeInternal {
		return nil, err // not read at all: nothing to remember
	}
	if len(w.records) >= w.maxRecords {
		clear(w.records)
	}
	w.records[h] = walkRecord{r, err}
	return r, err
}

// handlesAt returns the handles (ids, aliases, prefixes) at commit, as the
// index at that commit answers them, moving the walk's handle state there
// by the tree diff from where it stands.
func (w *Walk) handlesAt(commit plumbing.Hash) (kernel.IDSet, error) {
	hs := w.handles
	if hs == nil {
		// The state starts from the index the store already has, moved
		// to the commit by the tree diff from the tip it reflects (the
		// catch-up View.Index does), in memory: a walk is a read, and
		// merging and writing an index base for it would cost the size
		// of the store. With no index on disk, one is built at the commit.
		if base := w.s.cachedIndex(); base != nil {
			ix := base
			if base.Tip != commit {
				changes, err := w.s.collect(w.sharedTrees(), base.Tip, commit)
				if err != nil {
					ix = nil // the indexed tip may be gone (a rewritten branch, a gc)
				} else {
					ix = base.withChanges(commit, indexChanges(changes))
				}
			}
			if ix != nil {
				w.handles = newHandleState(w, commit, ix)
				return w.handles, nil
			}
		}
		v, err := w.s.viewAt(commit)
		if err != nil {
			return nil, err
		}
		ix, err := v.Index()
		if err != nil {
			return nil, err
		}
		w.handles = newHandleState(w, commit, ix)
		return w.handles, nil
	}
	if hs.at != commit {
		from, err := w.rootOf(hs.at)
		if err != nil {
			return nil, err
		}
		to, err := w.rootOf(commit)
		if err != nil {
			return nil, err
		}
		changes, err := recordChanges(w.sharedTrees(), from, to)
		if err != nil {
			return nil, err
		}
		for _, c := range changes {
			if err := hs.apply(c); err != nil {
				w.handles = nil // half moved: start again from an index
				return nil, err
			}
		}
		hs.at, hs.exactIndex = commit, nil
	}
	if hs.inexact {
		return hs.index()
	}
	return hs, nil
}

// handleState is the handles at one commit: the index at the commit the
// walk started from, and what every record change since then did to ids
// and aliases. It follows the index's rules exactly (an alias several
// records hold belongs to the smallest id; a record that does not parse
// holds nothing); where the delta cannot tell, it asks an index at the
// commit, which costs a catch-up but happens only for histories no op
// writes (an alias given up, a file whose id is not its name).
type handleState struct {
	w    *Walk
	at   plumbing.Hash
	base *Index
	// ids says, for each id a change since base touched, whether a record
	// has it at `at`; added are those with true the base lacks, sorted,
	// for prefixes (made when asked for: a commit may add a hundred
	// thousand, one at a time).
	ids     map[string]bool
	added   []string
	stale   bool // added is not made yet for ids as they are
	removed int  // ids with false
	// holders says, for each alias a change since base touched, which
	// records hold it at `at` (true) or gave it up (false).
	holders map[string]holding
	// inexact: the delta saw a record whose id is not its file name; the
	// rest of the walk answers from indexes.
	inexact    bool
	exactIndex *Index // the index at `at`, once asked for
}

// apply moves the state over one record change.
func (hs *handleState) apply(c Change) error {
	_, pathID, ok := ParseRecordPath(c.Path)
	if !ok {
		return nil // not a record file: the index ignores it too
	}
	var oldAliases []string
	if !c.Old.IsZero() {
		old, err := hs.w.RecordFromBlob(c.Old)
		if err != nil && kernel.CodeOf(err) == kernel.CodeInternal {
			return err
		}
		if old != nil {
			if old.ID != pathID {
				hs.inexact = true
			}
			oldAliases = old.Aliases
		}
	}
	var r *kernel.Record
	if !c.New.IsZero() {
		var err error
		r, err = hs.w.RecordFromBlob(c.New)
		if err != nil && kernel.CodeOf(err) == kernel.CodeInternal {
			return err
		}
		if r != nil && r.ID != pathID {
			hs.inexact = true
		}
	}
	var newAliases []string
	if r != nil {
		newAliases = r.Aliases
	}
	for _, a := range oldAliases {
		if !slices.Contains(newAliases, a) {
			hs.hold(a, pathID, false)
		}
	}
	for _, a := range newAliases {
		hs.hold(a, pathID, true)
	}
	hs.setID(pathID, r != nil)
	return nil
}

func newHandleState(w *Walk, at plumbing.Hash, base *Index) *handleState {
	return &handleState{w: w, at: at, base: base, ids: map[string]bool{}, holders: map[string]holding{}}
}

// holding is which records hold an alias (held) or gave it up: the first
// one touching it, and the others (more) when there are any, which is
// rare: a map per alias was most of what the state held.
type holding struct {
	id   string
	held bool
	more map[string]bool
}

// each calls fn with every record touching the alias.
func (h holding) each(fn func(id string, held bool)) {
	fn(h.id, h.held)
	for id, held := range h.more {
		fn(id, held)
	}
}

func (hs *handleState) hold(alias, id string, held bool) {
	h, ok := hs.holders[alias]
	switch {
	case !ok || h.id == id:
		h.id, h.held = id, held
	default:
		if h.more == nil {
			h.more = map[string]bool{}
		}
		h.more[id] = held
	}
	hs.holders[alias] = h
}

func (hs *handleState) setID(id string, present bool) {
	if was, ok := hs.ids[id]; ok && !was {
		hs.removed--
	}
	hs.ids[id] = present
	if !present {
		hs.removed++
	}
	hs.stale = true
}

// addedIDs are the ids present at `at` that the base lacks, sorted.
func (hs *handleState) addedIDs() []string {
	if hs.stale {
		hs.added = hs.added[:0]
		for id, present := range hs.ids {
			if present && !hs.base.HasID(id) {
				hs.added = append(hs.added, id)
			}
		}
		slices.Sort(hs.added)
		hs.stale = false
	}
	return hs.added
}

// index is the index at `at`, for what the delta cannot tell.
func (hs *handleState) index() (*Index, error) {
	if hs.exactIndex == nil {
		v, err := hs.w.s.viewAt(hs.at)
		if err != nil {
			return nil, err
		}
		if hs.exactIndex, err = v.Index(); err != nil {
			return nil, err
		}
	}
	return hs.exactIndex, nil
}

// HasID, AliasTarget and IDsWithPrefix make the state a kernel.IDSet.
func (hs *handleState) HasID(id string) bool {
	if present, ok := hs.ids[id]; ok {
		return present
	}
	return hs.base.HasID(id)
}

func (hs *handleState) AliasTarget(alias string) (string, bool) {
	h, touched := hs.holders[alias]
	owner, held := hs.base.AliasTarget(alias)
	if !touched {
		return owner, held
	}
	if held {
		gaveUp := false
		h.each(func(id string, still bool) { gaveUp = gaveUp || id == owner && !still })
		if gaveUp {
			// The base's owner gave it up: another record the base
			// does not name may hold it too. Ask an index.
			ix, err := hs.index()
			if err != nil {
				return "", false
			}
			return ix.AliasTarget(alias)
		}
	}
	h.each(func(id string, still bool) {
		if still && (!held || id < owner) {
			owner, held = id, true
		}
	})
	return owner, held
}

func (hs *handleState) IDsWithPrefix(prefix string, limit int) []string {
	// The base's matches less those gone since, and the ids added since,
	// merged in order: the first limit of them, as the index would list.
	var base []string
	for _, id := range hs.base.IDsWithPrefix(prefix, limit+hs.removed) {
		if hs.HasID(id) {
			base = append(base, id)
		}
	}
	added := hs.addedIDs()
	i := sort.SearchStrings(added, prefix)
	var out []string
	for len(out) < limit {
		more := i < len(added) && strings.HasPrefix(added[i], prefix)
		switch {
		case len(base) > 0 && (!more || base[0] < added[i]):
			out, base = append(out, base[0]), base[1:]
		case more:
			out, i = append(out, added[i]), i+1
		default:
			return out
		}
	}
	return out
}
