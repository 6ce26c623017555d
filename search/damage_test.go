package search

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"testing"
)

// rewriteTerms re-encodes base's dictionary with edit applied to each
// entry's numbers after its key (df, postings offset, lengths), moving the
// section after it, and seals each entry and the header again: a
// hand-edited file whose checksums, header and dictionary offsets are all
// consistent, so only the entry's own numbers lie.
func rewriteTerms(t *testing.T, base []byte, edit func(i int, nums []uint64)) []byte {
	t.Helper()
	s, err := OpenSegment(base)
	if err != nil {
		t.Fatal(err)
	}
	var area []byte
	index := make([]uint64, 0, s.terms+1)
	for i := range s.terms {
		key, r := s.entry(i)
		nums := []uint64{r.uvarint(), r.uvarint(), r.uvarint(), r.uvarint()}
		sums := r.next(8)
		edit(i, nums)
		start := len(area)
		index = append(index, uint64(start))
		area = binary.AppendUvarint(area, uint64(len(key)))
		area = append(area, key...)
		for _, v := range nums {
			area = binary.AppendUvarint(area, v)
		}
		area = append(area, sums...)
		area = binary.LittleEndian.AppendUint32(area, crc32.ChecksumIEEE(area[start:]))
	}
	index = append(index, uint64(len(area)))
	grow := len(area) - (s.termIndex - s.termArea)
	out := append([]byte(nil), base[:s.termArea]...)
	out = append(out, area...)
	for _, v := range index {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	// The header's section offsets: termIndex and end move.
	offs := len(segmentMagic) + 4 + 20 + 8 + 8*int(numFields)
	for _, k := range []int{7, 8} {
		at := offs + 8*k
		binary.LittleEndian.PutUint64(out[at:], binary.LittleEndian.Uint64(out[at:])+uint64(grow))
	}
	resealHeader(out)
	if _, err := OpenSegment(out); err != nil {
		t.Fatalf("the rewritten segment does not open: %v", err)
	}
	return out
}

// resealHeader writes seg's header checksum again, after a hand edit.
func resealHeader(seg []byte) {
	docIndex := binary.LittleEndian.Uint64(seg[headerSize-4-8*(numSections-1):])
	sum := crc32.Update(crc32.ChecksumIEEE(seg[:headerSize-4]), crc32.IEEETable, seg[headerSize:docIndex])
	binary.LittleEndian.PutUint32(seg[headerSize-4:], sum)
}

// TestHugeDictionaryNumbersAreCorrupt: a dictionary entry whose postings
// offset or length is edited to a number near 2^63 (so that the section's
// start plus it wraps past MaxInt) is corruption, never a runtime panic
// out of the search.
func TestHugeDictionaryNumbersAreCorrupt(t *testing.T) {
	ix := newIndex(t, corpus)
	base, delta := ix.base.data, ix.DeltaFile()
	same := rewriteTerms(t, base, func(int, []uint64) {})
	if string(same) != string(base) {
		t.Fatal("rewriteTerms without an edit changed the segment")
	}
	huge := []uint64{math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64 - 64, math.MaxInt64 / 2, math.MaxUint64, 1 << 63}
	queries := []string{"token", `"token policy"`, "tok*", "sessions", "title:rotation"}
	for field := 1; field < 5; field++ { // offset, then each length
		for _, v := range huge {
			bad := rewriteTerms(t, base, func(_ int, nums []uint64) {
				if field < len(nums) {
					nums[field] = v
				}
			})
			for _, q := range queries {
				name := fmt.Sprintf("number %d = %d, %s", field, v, q)
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s: panic %v", name, r)
						}
					}()
					cix, err := Open(delta, bad)
					if err != nil {
						return
					}
					pq, _ := ParseQuery(q)
					if _, err := cix.Search(pq, 0, nil); err != nil && err != ErrCorrupt {
						t.Errorf("%s: %v", name, err)
					}
				}()
			}
		}
	}
}

// TestDeltaThatDoesNotHideItsBaseDocumentIsCorrupt: Apply hides every
// base document the delta holds a newer version of. A delta edited by hand
// to drop one of those ids from its hidden list (the rest of the file
// consistent) would return that record twice, its old and its new
// version: a search that meets such a base document fails with
// ErrCorrupt, and the store rebuilds the index from the branch.
func TestDeltaThatDoesNotHideItsBaseDocumentIsCorrupt(t *testing.T) {
	next, updated, forged := unhiddenDelta(t)
	if got := ids(mustSearch(t, next, "title:policy")); len(got) != 1 || got[0] != updated.ID {
		t.Fatalf("the intact delta answers %v", got)
	}
	fix, err := Open(forged, next.base.data)
	if err != nil {
		return // refused at open: fine too
	}
	q, _ := ParseQuery("title:policy")
	if hits, err := fix.Search(q, 0, nil); err != ErrCorrupt {
		t.Fatalf("search over a delta that hides nothing: %v, hits %v", err, ids(hits))
	}
}

// TestMergeOfADeltaThatDoesNotHideItsBaseDocument: the same forged delta
// (a base document it holds a newer version of, left out of its hidden
// list), caught up past MaxDelta so that Apply merges it into a new base:
// the merge must not carry the forgery into the new base, where no delta
// is left to tell it (the record twice, or its old version in place of
// the new one). Refused as corruption, the store rebuilds from the branch.
func TestMergeOfADeltaThatDoesNotHideItsBaseDocument(t *testing.T) {
	defer func(m int) { MaxDelta = m }(MaxDelta)
	MaxDelta = 1
	next, updated, forged := unhiddenDelta(t)
	fix, err := Open(forged, next.base.data)
	if err != nil {
		return // refused at open: fine too
	}
	// A second change to another record: the delta outgrows MaxDelta.
	other := *corpus[1]
	other.Body = other.Body + " More."
	merged, newBase, err := fix.Apply(tipOf("t2"), []Change{{ID: other.ID, Doc: &other}})
	if err == ErrCorrupt {
		return
	}
	require(t, err)
	if newBase == nil {
		t.Fatal("two changes with MaxDelta 1 did not merge")
	}
	docs, err := merged.Docs()
	require(t, err)
	seen := map[string]int{}
	for _, d := range docs {
		seen[d.ID]++
		if d.ID == updated.ID && d.Body != updated.Body {
			t.Errorf("the merge kept %s's old version: %q", d.ID, d.Body)
		}
	}
	if seen[updated.ID] != 1 {
		t.Errorf("the merge holds %s %d times", updated.ID, seen[updated.ID])
	}
}

// unhiddenDelta is a delta over corpus updating its first record, and that
// delta's file forged to hide nothing: the base's old version of the
// record is left visible beside the delta's new one.
func unhiddenDelta(t *testing.T) (next *Index, updated Doc, forged []byte) {
	t.Helper()
	updated = *corpus[0]
	updated.Body = "How sessions end, rewritten."
	next, newBase, err := newIndex(t, corpus).Apply(tipOf("t1"), []Change{{ID: updated.ID, Doc: &updated}})
	require(t, err)
	if newBase != nil {
		t.Fatal("one change merged into a new base")
	}
	file := next.DeltaFile()
	head := len(deltaMagic) + 4 + 40
	r := reader{b: file[head:]}
	if hidden := r.strs(); len(hidden) != 1 || hidden[0] != updated.ID {
		t.Fatalf("hidden ids %v", hidden)
	}
	// Sealed again: a hand edit, not damage.
	forged = binary.AppendUvarint(append([]byte(nil), file[:head]...), 0)
	forged = binary.LittleEndian.AppendUint32(forged, crc32.ChecksumIEEE(forged))
	return next, updated, append(forged, r.b[4:]...)
}

// TestDamagedDocumentIsCorrupt: a search shows a hit's id, title, type,
// category and status, and filters on its fields, from the document the
// index stores. A byte of the document area changed on disk (a hand edit,
// a bad sector) must not be shown as the record: every query answers as
// over the intact file, or fails with ErrCorrupt (the store then rebuilds
// the index from the branch). Before each document carried a checksum, a
// flipped title byte was printed as the title, and a flipped id byte as
// an id that names no record.
func TestDamagedDocumentIsCorrupt(t *testing.T) {
	ix := newIndex(t, corpus)
	base, delta := ix.base.data, ix.DeltaFile()
	queries := []string{"token", "refresh token", `"token policy"`, "tok*", "title:rotation", "tag:auth", "sessions", "caching", "rotate"}
	answers := func(ix *Index) (out []string) {
		for _, q := range queries {
			pq, err := ParseQuery(q)
			if err != nil {
				t.Fatal(err)
			}
			hits, err := ix.Search(pq, 0, nil)
			if err != nil {
				return []string{err.Error()}
			}
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%q %+v", q, *h.Doc))
			}
		}
		return out
	}
	want := fmt.Sprint(answers(ix))
	s, _ := OpenSegment(base)
	for at := s.docArea; at < s.postArea; at++ {
		for _, file := range []bool{false, true} {
			bad := append([]byte(nil), base...)
			bad[at] ^= 0x01
			var cix *Index
			var err error
			if file {
				cix, err = OpenFile(delta, bad, bytes.NewReader(bad))
			} else {
				cix, err = Open(delta, bad)
			}
			if err != nil {
				continue
			}
			got := answers(cix)
			if len(got) == 1 && got[0] == ErrCorrupt.Error() {
				continue
			}
			if fmt.Sprint(got) != want {
				t.Fatalf("byte %d of the documents flipped (pread %v): answered\n%v\nnot as intact\n%v", at-s.docArea, file, got, want)
			}
		}
	}
}
