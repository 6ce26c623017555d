package gitstore

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing"
)

// Merging the index off the write path. A store that shares writes (a
// long-lived server) lands a group every few milliseconds; merging the
// delta into the base (a pass over the whole base, about 1.4 s of CPU at
// 100k records) inside the group would hold every caller of the next group
// for it. Such a store merges an immutable snapshot of its index (a base
// and a delta, both never modified once built) on a goroutine of its own,
// without the shared lock, into a temporary file. Meanwhile groups keep
// landing, their delta growing past maxDelta. Once the merge is done, the
// next save of an index on the same base is rebased onto the merged base:
// what the snapshot's delta held is in the merged base, and the new delta
// keeps only the entries put since (an entry the snapshot also holds is
// the same pointer when nothing changed it: withChanges copies entries,
// never rebuilds them). The index the store saves therefore always
// reflects exactly the tip it names: the merged base reflects the
// snapshot's tip, and the delta moves it to the tip the caller asked for.
// An index on any other base (a rebuild, one loaded from another
// process's file) is saved as before, and the merge is left unused.

// indexMerge is one merge in flight or done: src and delta are the
// snapshot it merges, tip the commit the snapshot reflects; result, once
// done is closed, is the merged base (nil when it failed).
type indexMerge struct {
	src    *baseFile
	delta  map[string]*IndexEntry
	tip    plumbing.Hash
	done   chan struct{}
	result *baseFile
	// installed says result is the base file on disk: this process renamed
	// it into place (later rebased saves write the delta alone).
	installed bool
}

// mergeFactor bounds how far the delta may grow while a merge is in
// flight: past maxDelta × mergeFactor a save merges in place, as a store
// that does not share writes does.
const mergeFactor = 8

// mergeAside starts merging ix in the background when it is time to merge
// and no merge is in flight; it says whether the caller may save ix's
// delta as it is (unmerged). The caller holds the shared lock.
func (s *Store) mergeAside(ix *Index) bool {
	if s.shared == nil || len(ix.delta) > s.maxDelta()*mergeFactor {
		return false
	}
	if m := s.merge; m != nil {
		select {
		case <-m.done:
		default:
			return true // one merge at a time
		}
		if !m.installed && m.result != nil {
			m.result.written.drop() // a merge nothing was rebased on
		}
	}
	m := &indexMerge{src: ix.base, delta: ix.delta, tip: ix.Tip, done: make(chan struct{})}
	s.merge = m
	hold := s.mergeHold
	go func() {
		defer close(m.done)
		if hold != nil {
			hold()
		}
		var tabs [tableCount][][]byte
		if !(&Index{}).try(func() { tabs = mergeTables(m.src, m.delta) }) {
			return // a damaged base: the next save in place rebuilds it
		}
		m.result = s.mappedBase(m.tip, &tabs)
		// The merge read every row of the snapshot's base: those pages
		// leave this process's resident set (lookups fault in what they
		// read again), or each merge of a long session would keep a
		// whole base resident.
		dropBasePages(m.src)
	}()
	return true
}

// mappedBase writes a merged base to a temporary file beside the index and
// maps it, so that a server keeps no copy of the base in its heap, and the
// save that installs it renames the file rather than writing it again.
// Where no file can be written it keeps the base in memory.
func (s *Store) mappedBase(tip plumbing.Hash, tabs *[tableCount][][]byte) *baseFile {
	if b := s.writeMappedBase(func(f *os.File) error { return writeBaseFile(f, tip, tabs) }); b != nil {
		return b
	}
	b, err := openBase(encodeBase(tip, *tabs))
	if err != nil {
		return nil // what mergeBase writes, openBase reads
	}
	return b
}

// dropBasePages takes a mapped base's pages out of the resident set
// (dropMappedPages); a base in memory is left alone.
func dropBasePages(b *baseFile) {
	if b != nil && b.file != nil {
		dropMappedPages(b.data)
	}
}

// rebased is ix on the merged base of a finished merge of its own base,
// or ix itself when there is none to use.
func (s *Store) rebased(ix *Index) *Index {
	m := s.merge
	if m == nil || ix.base != m.src {
		return ix
	}
	select {
	case <-m.done:
	default:
		return ix
	}
	if m.result == nil {
		return ix
	}
	rest := make(map[string]*IndexEntry, len(ix.delta))
	for id, e := range ix.delta {
		if was, ok := m.delta[id]; !ok || was != e {
			rest[id] = e
		}
	}
	for id := range m.delta {
		if _, ok := ix.delta[id]; !ok {
			// ix does not descend from the snapshot: the merged base
			// would answer for a record ix does not hold.
			return ix
		}
	}
	n := newIndex(ix.Tip, m.result, rest)
	n.onDisk, n.rebuild = m.installed, ix.rebuild
	return n
}
