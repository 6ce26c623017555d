// Package memstore is an in-memory kernel.Store: records in maps, a tip
// counter, and the same compare-and-swap write loop as the git store. It is
// the fast store for tests of what sits above the port, and the second
// implementation that keeps the port honest (kernel/storetest runs on both).
package memstore

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-records/git-records/kernel"
)

// Options tune a Store; the zero value is right for most tests.
type Options struct {
	Now        func() time.Time // clock; default time.Now
	NewID      func() string    // id source; default kernel.NewID
	MaxRetries int              // decisions per write before CONFLICT; default 64
}

// Store is an in-memory record store, safe for concurrent use. Each write
// replaces the tip with a new immutable state, so a snapshot never changes.
type Store struct {
	opts Options
	mu   sync.Mutex
	tip  *state
}

// state is one tip: never modified once it is the tip.
type state struct {
	seq     int // counts writes, set-up included
	records map[string]*kernel.Record
	files   map[string][]byte
}

var _ kernel.Store = (*Store)(nil)

// New returns a store set up as init sets up a git store: its format file
// and no records, at revision "1".
func New(opts Options) *Store {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = kernel.NewID
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 64
	}
	format := map[string][]byte{kernel.FormatPath: []byte(kernel.FormatVersion + "\n")}
	return &Store{opts: opts, tip: &state{seq: 1, records: map[string]*kernel.Record{}, files: format}}
}

func (s *Store) current() *state {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tip
}

// Snapshot reads the current tip.
func (s *Store) Snapshot() (kernel.Snapshot, error) { return &snapshot{s.current()}, nil }

// Revision names the current tip.
func (s *Store) Revision() (string, error) { return s.current().revision(), nil }

// Write decides on the tip and swaps in the result only if the tip is still
// the one decided on; otherwise it decides again on the new tip. The lock is
// not held while decide runs, so decide may itself read or write the store.
func (s *Store) Write(decide kernel.DecideFunc) (kernel.Written, error) {
	for attempt := 1; ; attempt++ {
		base := s.current()
		m, err := decide(&snapshot{base}, kernel.Env{Now: s.opts.Now(), NewID: s.opts.NewID})
		if err != nil {
			return kernel.Written{}, err
		}
		if m == nil {
			return kernel.Written{Attempts: attempt}, nil
		}
		next, err := base.apply(m)
		if err != nil {
			return kernel.Written{}, err
		}
		s.mu.Lock()
		won := s.tip == base
		if won {
			s.tip = next
		}
		s.mu.Unlock()
		if won {
			return kernel.Written{Revision: next.revision(), Mutation: m, Attempts: attempt}, nil
		}
		if attempt >= s.opts.MaxRetries {
			return kernel.Written{}, kernel.Errorf(kernel.CodeConflict, "the store kept moving under us for %d attempts; retry the op", attempt)
		}
	}
}

// apply returns the state after m, which must pass its op's rules as of
// st: copies of the maps with m's writes.
func (st *state) apply(m *kernel.Mutation) (*state, error) {
	for _, r := range m.Writes {
		if err := kernel.Validate(r); err != nil {
			return nil, err
		}
	}
	if err := kernel.CheckWrite(&snapshot{st}, m); err != nil {
		return nil, err
	}
	next := &state{seq: st.seq + 1, records: make(map[string]*kernel.Record, len(st.records)+len(m.Writes)), files: make(map[string][]byte, len(st.files)+len(m.Files)+1)}
	for id, r := range st.records {
		next.records[id] = r
	}
	for p, d := range st.files {
		next.files[p] = d
	}
	for p, d := range m.Files {
		next.files[p] = copyFile(d)
	}
	for _, r := range m.Writes {
		next.records[r.ID] = r.Clone()
	}
	return next, nil
}

func (st *state) revision() string { return strconv.Itoa(st.seq) }

// snapshot reads one state. Records leave it as clones, so a decision that
// edits what it read cannot change the store.
type snapshot struct{ st *state }

var (
	_ kernel.Snapshot = (*snapshot)(nil)
	_ kernel.IDSet    = (*snapshot)(nil)
)

func (v *snapshot) Revision() string { return v.st.revision() }

func (v *snapshot) Record(id string) (*kernel.Record, error) {
	if r := v.st.records[id]; r != nil {
		return r.Clone(), nil
	}
	return nil, nil
}

func (v *snapshot) Resolve(handle string) (string, error) { return kernel.ResolveHandle(v, handle) }

func (v *snapshot) AliasOwner(alias string) (string, error) {
	id, _ := v.AliasTarget(alias)
	return id, nil
}

func (v *snapshot) ReadFile(path string) ([]byte, error) {
	if d, ok := v.st.files[path]; ok {
		return copyFile(d), nil
	}
	return nil, nil
}

// copyFile copies a file's content; an empty file stays non-nil, since nil
// means absent.
func copyFile(d []byte) []byte {
	out := make([]byte, len(d))
	copy(out, d)
	return out
}

func (v *snapshot) IDs() ([]string, error) { return v.sortedIDs(), nil }

func (v *snapshot) HasID(id string) bool { return v.st.records[id] != nil }

// AliasTarget scans the records' own aliases, the source of truth (H.5);
// the first holder in id order wins, as a rebuilt index decides.
func (v *snapshot) AliasTarget(alias string) (string, bool) {
	for _, id := range v.sortedIDs() {
		for _, a := range v.st.records[id].Aliases {
			if a == alias {
				return id, true
			}
		}
	}
	return "", false
}

func (v *snapshot) IDsWithPrefix(prefix string, limit int) []string {
	var out []string
	for _, id := range v.sortedIDs() {
		if len(out) == limit {
			break
		}
		if strings.HasPrefix(id, prefix) {
			out = append(out, id)
		}
	}
	return out
}

func (v *snapshot) sortedIDs() []string {
	ids := make([]string, 0, len(v.st.records))
	for id := range v.st.records {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
