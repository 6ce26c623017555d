package search

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// rewriteTerms re-encodes base's dictionary with edit applied to each
// entry's numbers after its key (df, postings offset, lengths), moving the
// sections after it: a hand-edited file whose header and dictionary
// offsets are all consistent, so only the entry's own numbers lie.
func rewriteTerms(t *testing.T, base []byte, edit func(i int, nums []uint64)) []byte {
	t.Helper()
	s, err := OpenSegment(base)
	if err != nil {
		t.Fatal(err)
	}
	var area []byte
	index := make([]uint64, 0, s.terms+1)
	for i := range s.terms {
		r := reader{b: s.span(s.termArea, s.postArea, s.u64at(s.termIndex+8*i), s.u64at(s.termIndex+8*(i+1)))}
		key := r.bytes()
		var nums []uint64
		for len(r.b) > 0 {
			nums = append(nums, r.uvarint())
		}
		edit(i, nums)
		index = append(index, uint64(len(area)))
		area = binary.AppendUvarint(area, uint64(len(key)))
		area = append(area, key...)
		for _, v := range nums {
			area = binary.AppendUvarint(area, v)
		}
	}
	index = append(index, uint64(len(area)))
	grow := len(area) - (s.postArea - s.termArea)
	out := append([]byte(nil), base[:s.termIndex]...)
	for _, v := range index {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	out = append(out, base[s.docArea:s.termArea]...)
	out = append(out, area...)
	out = append(out, base[s.postArea:]...)
	// The header's section offsets: postArea and end move.
	offs := len(segmentMagic) + 12 + 8*int(numFields)
	for _, k := range []int{5, 6} {
		at := offs + 8*k
		binary.LittleEndian.PutUint64(out[at:], binary.LittleEndian.Uint64(out[at:])+uint64(grow))
	}
	if _, err := OpenSegment(out); err != nil {
		t.Fatalf("the rewritten segment does not open: %v", err)
	}
	return out
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
