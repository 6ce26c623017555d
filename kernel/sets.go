package kernel

import (
	"encoding/json"
	"reflect"
)

// Set operations over a record's lists. Each is linear in what it reads: a
// record may hold thousands of links, tags or log entries, and a quadratic
// scan of them is a denial of service on every read and every check.

type linkKey struct{ target, kind string }

func keyOf(l Link) linkKey { return linkKey{l.TargetID, l.Kind} }

// UnionLinks returns a followed by the links of b whose (target, kind) is
// not already there, each once: links are identified by target and kind,
// whatever their label (see HasLink).
func UnionLinks(a, b []Link) []Link {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := append(make([]Link, 0, len(a)+len(b)), a...)
	seen := make(map[linkKey]bool, len(a)+len(b))
	for _, l := range a {
		seen[keyOf(l)] = true
	}
	for _, l := range b {
		if k := keyOf(l); !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// UnionStrings returns a followed by the strings of b not already there,
// each once, in first-seen order.
func UnionStrings(a, b []string) []string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := append(make([]string, 0, len(a)+len(b)), a...)
	seen := make(map[string]bool, len(a)+len(b))
	for _, s := range a {
		seen[s] = true
	}
	for _, s := range b {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// ContainsAllLinks reports whether every (target, kind) of want is in have.
func ContainsAllLinks(have, want []Link) bool {
	set := make(map[linkKey]bool, len(have))
	for _, l := range have {
		set[keyOf(l)] = true
	}
	for _, l := range want {
		if !set[keyOf(l)] {
			return false
		}
	}
	return true
}

// ContainsAllStrings reports whether every string of want is in have.
func ContainsAllStrings(have, want []string) bool {
	set := make(map[string]bool, len(have))
	for _, s := range have {
		set[s] = true
	}
	for _, s := range want {
		if !set[s] {
			return false
		}
	}
	return true
}

// EntrySet answers "is this mutation-log entry among these?" with
// reflect.DeepEqual's meaning in expected constant time: entries are
// bucketed by their JSON form and compared exactly within a bucket.
type EntrySet struct {
	buckets map[string][]MutationEntry
}

// NewEntrySet indexes entries.
func NewEntrySet(entries []MutationEntry) *EntrySet {
	s := &EntrySet{buckets: make(map[string][]MutationEntry, len(entries))}
	for _, e := range entries {
		s.Add(e)
	}
	return s
}

// Add puts e in the set.
func (s *EntrySet) Add(e MutationEntry) {
	k := entryKey(e)
	s.buckets[k] = append(s.buckets[k], e)
}

// Has reports whether an entry deeply equal to e is in the set.
func (s *EntrySet) Has(e MutationEntry) bool {
	for _, x := range s.buckets[entryKey(e)] {
		if reflect.DeepEqual(x, e) {
			return true
		}
	}
	return false
}

// ContainsAll reports whether every entry of want is in the set.
func (s *EntrySet) ContainsAll(want []MutationEntry) bool {
	for _, e := range want {
		if !s.Has(e) {
			return false
		}
	}
	return true
}

// entryKey is equal for deeply equal entries (JSON sorts map keys); entries
// it cannot encode share one bucket, which stays correct, only slower.
func entryKey(e MutationEntry) string {
	b, err := json.Marshal(e)
	if err != nil {
		return ""
	}
	return string(b)
}

// dedupe drops repeated strings, keeping first-seen order (tags keep order).
func dedupe(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	return UnionStrings(nil, in)
}
