package search

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"testing"
)

// memInput is a segment in memory as a merge input.
func memInput(seg []byte, drop []uint64) mergeInput {
	return mergeInput{ra: bytes.NewReader(seg), size: int64(len(seg)), drop: drop}
}

// TestMergeWritesWhatBuildWrites: the documents of a corpus split at
// random into segments (each also holding documents the merge leaves out,
// some of them under ids another segment keeps) merge into exactly the
// bytes Build writes for the documents kept.
func TestMergeWritesWhatBuildWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	docs := uniqueByID(randomCorpus(rng, 300, "m"))
	want := Build("store", tipOf("t"), docs)
	for round := range 20 {
		k := 1 + rng.Intn(6)
		parts := make([][]*Doc, k)
		for _, d := range docs {
			i := rng.Intn(k)
			parts[i] = append(parts[i], d)
		}
		inputs := make([]mergeInput, k)
		for i, part := range parts {
			// Stale versions of other parts' documents, and documents of
			// no part, all left out.
			extra := []*Doc{{ID: fmt.Sprintf("gone-%d", i), Title: "gone", Body: "left out"}}
			for _, d := range docs[:rng.Intn(20)] {
				if !slices.Contains(part, d) {
					stale := *d
					stale.Title = "stale " + d.Title
					extra = append(extra, &stale)
				}
			}
			all := uniqueByID(append(slices.Clone(part), extra...))
			var drop []uint64
			for n, d := range all {
				if !slices.Contains(part, d) {
					drop = append(drop, make([]uint64, n/64+1-len(drop))...)
					drop[n/64] |= 1 << (n % 64)
				}
			}
			inputs[i] = memInput(Build("store", tipOf(fmt.Sprint("part", i)), all), drop)
		}
		var got MemFile
		if _, err := merge(&got, "store", tipOf("t"), inputs); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("round %d: a merge of %d segments wrote other bytes than Build", round, k)
		}
	}
}

// TestMergeRefusesARecordKeptTwice: two inputs that both keep one id, or
// an input of another store, are corruption, not a segment.
func TestMergeRefusesARecordKeptTwice(t *testing.T) {
	a := Build("store", tipOf("a"), corpus[:3])
	b := Build("store", tipOf("b"), corpus[2:4])
	var out MemFile
	if _, err := merge(&out, "store", tipOf("t"), []mergeInput{memInput(a, nil), memInput(b, nil)}); err != ErrCorrupt {
		t.Fatalf("one id kept by two inputs: %v", err)
	}
	other := Build("other", tipOf("b"), corpus[3:4])
	if _, err := merge(&out, "store", tipOf("t"), []mergeInput{memInput(a, nil), memInput(other, nil)}); err != ErrCorrupt {
		t.Fatalf("an input of another store: %v", err)
	}
}

// TestBuilderRunsWriteWhatBuildWrites: a Builder whose runs are a few
// documents each (spilled, then merged) writes the bytes Build writes;
// with no run spilled it writes them directly.
func TestBuilderRunsWriteWhatBuildWrites(t *testing.T) {
	defer func(n int) { RunBytes = n }(RunBytes)
	docs := uniqueByID(randomCorpus(rand.New(rand.NewSource(3)), 200, "b"))
	want := Build("store", tipOf("t"), docs)
	for _, runBytes := range []int{1, 2000, 50000, 1 << 30} {
		RunBytes = runBytes
		spilled := 0
		b := NewBuilder("store", func(run []byte) (io.ReaderAt, error) {
			spilled++
			return bytes.NewReader(slices.Clone(run)), nil
		})
		for _, i := range rand.New(rand.NewSource(int64(runBytes))).Perm(len(docs)) {
			b.Add(docs[i])
		}
		var got MemFile
		size, err := b.Finish(tipOf("t"), &got)
		if err != nil {
			t.Fatal(err)
		}
		if size != int64(len(got.Bytes())) || !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("runs of %d bytes (%d spilled): other bytes than Build", runBytes, spilled)
		}
		if (spilled > 1) != (runBytes < 50000) {
			t.Fatalf("runs of %d bytes: %d spilled", runBytes, spilled)
		}
	}
}

// TestApplyDeltaWritesWhatBuildWrites: after changes applied to the delta
// (added, updated, removed, from the base and from the delta), the delta
// is the segment Build makes of the documents it holds, and the base
// WriteBase writes is the segment Build makes of every document.
func TestApplyDeltaWritesWhatBuildWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	docs := uniqueByID(randomCorpus(rng, 120, "d"))
	ix := newIndex(t, docs[:100])
	current := map[string]*Doc{}
	for _, d := range docs[:100] {
		current[d.ID] = d
	}
	inDelta := map[string]*Doc{}
	for step := range 12 {
		var changes []Change
		for range 1 + rng.Intn(6) {
			d := docs[rng.Intn(len(docs))]
			switch rng.Intn(3) {
			case 0:
				changes = append(changes, Change{ID: d.ID})
			default:
				u := *d
				u.Title = fmt.Sprintf("%s, step %d", d.Title, step)
				changes = append(changes, Change{ID: d.ID, Doc: &u})
			}
		}
		tip := tipOf(fmt.Sprint("t", step))
		var err error
		if ix, err = ix.ApplyDelta(tip, changes); err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			if c.Doc == nil {
				delete(current, c.ID)
				delete(inDelta, c.ID)
			} else {
				current[c.ID], inDelta[c.ID] = c.Doc, c.Doc
			}
		}
		if want := Build(ix.Store, tip, values(inDelta)); !bytes.Equal(ix.delta.data, want) {
			t.Fatalf("step %d: the delta is not what Build makes of its documents", step)
		}
		var base MemFile
		if _, err := ix.WriteBase(&base); err != nil {
			t.Fatal(err)
		}
		if want := Build(ix.Store, tip, values(current)); !bytes.Equal(base.Bytes(), want) {
			t.Fatalf("step %d: WriteBase is not what Build makes of every document", step)
		}
	}
}

func values(m map[string]*Doc) []*Doc {
	out := make([]*Doc, 0, len(m))
	for _, d := range m {
		out = append(out, d)
	}
	return out
}

// TestAgrees: two indexes of the same documents agree however they split
// them between base and delta; one document changed, added or removed,
// and they do not; a damaged document or dictionary entry is corruption.
func TestAgrees(t *testing.T) {
	docs := uniqueByID(randomCorpus(rand.New(rand.NewSource(9)), 60, "s"))
	whole := newIndex(t, docs)
	split, err := newIndex(t, docs[:40]).ApplyDelta(tipOf("t"), changesOf(docs[40:]))
	if err != nil {
		t.Fatal(err)
	}
	check := func(a, b *Index, want bool, why string) {
		t.Helper()
		if same, err := Agrees(a, b); err != nil || same != want {
			t.Fatalf("%s: same %v (%v), want %v", why, same, err, want)
		}
	}
	check(whole, split, true, "base alone against base and delta")
	check(split, whole, true, "base and delta against base alone")
	changed := *docs[7]
	changed.Title += " again"
	other, err := split.ApplyDelta(tipOf("t2"), []Change{{ID: changed.ID, Doc: &changed}})
	if err != nil {
		t.Fatal(err)
	}
	check(whole, other, false, "a title changed")
	fewer, err := split.ApplyDelta(tipOf("t2"), []Change{{ID: docs[50].ID}})
	if err != nil {
		t.Fatal(err)
	}
	check(whole, fewer, false, "a document removed")
	check(fewer, whole, false, "a document added")
	s, _ := OpenSegment(whole.base.data)
	for _, at := range []int{s.docArea + 5, s.termArea + 3, s.postArea + 2, s.postArea + (s.termArea-s.postArea)/2} {
		bad := bytes.Clone(whole.base.data)
		bad[at] ^= 1
		damaged, err := Open(whole.DeltaFile(), bad)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Agrees(damaged, whole); err != ErrCorrupt {
			t.Fatalf("byte %d flipped: %v", at, err)
		}
	}
}

func changesOf(docs []*Doc) []Change {
	out := make([]Change, len(docs))
	for i, d := range docs {
		out[i] = Change{ID: d.ID, Doc: d}
	}
	return out
}
