package gitstore

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// A walk's handle state answers every handle question at every commit as
// an index built from scratch at that commit does, whichever order the
// commits are visited in, through the histories only hand edits make: an
// alias given up while another record holds it too, a deleted record, a
// file that does not parse. After a file whose id is not its name it
// answers from the index at each commit, as verify did before walks.
func TestWalkHandlesAnswerAsTheIndexDoes(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	recs := map[string]*kernel.Record{}
	for i, in := range []kernel.CreateInput{
		{ID: "proj-aa1", Aliases: []string{"alpha"}},
		{ID: "proj-aa2"},
		{ID: "proj-ab1", Aliases: []string{"beta", "gamma"}},
		{ID: "other-01"},
		{ID: "proj-aa3", Aliases: []string{"delta"}},
	} {
		in.Title = fmt.Sprintf("Record %d", i)
		r := create(t, s, in)
		recs[r.ID] = r
	}
	encode := func(r *kernel.Record) string {
		data, err := EncodeRecord(r)
		require.NoError(t, err)
		return string(data)
	}
	withAliases := func(id string, aliases ...string) string {
		r := recs[id].Clone()
		r.Aliases = aliases
		return encode(r)
	}
	path := func(id string) string { return RecordPath("concept", id) }
	tip := mgTip(t, s)
	// proj-aa2 takes alias alpha too (a smaller id holds it), then the
	// smaller one gives it up: it passes to proj-aa2.
	tip = handCommit(t, s, tip, map[string]string{path("proj-aa2"): withAliases("proj-aa2", "alpha", "epsilon")}, "hand: second holder")
	tip = handCommit(t, s, tip, map[string]string{path("proj-aa1"): withAliases("proj-aa1")}, "hand: give up alpha")
	// A smaller id than the holder claims an alias; a record is deleted;
	// one stops parsing; one is added.
	zero := recs["other-01"].Clone()
	zero.ID = "proj-a00"
	zero.Aliases = []string{"epsilon"}
	tip = handCommit(t, s, tip, map[string]string{path("proj-a00"): encode(zero)}, "hand: smaller holder")
	tip = handCommit(t, s, tip, map[string]string{path("proj-ab1"): ""}, "hand: delete")
	tip = handCommit(t, s, tip, map[string]string{path("proj-aa3"): "not a record\n"}, "hand: broken")
	tip = handCommit(t, s, tip, map[string]string{path("proj-aa3"): withAliases("proj-aa3", "delta", "zeta")}, "hand: mended")
	create(t, s, kernel.CreateInput{ID: "proj-ab2", Aliases: []string{"gamma"}})
	tip = mgTip(t, s)
	commits, err := s.RevList("--reverse", tip.String())
	require.NoError(t, err)
	// The id of a file that is not its name (the index keys it by the
	// id inside, and a catch-up that removes the file misses it: a
	// history verify refuses, where the walk answers as the index does).
	wrong := recs["other-01"].Clone()
	wrong.ID = "proj-zz9"
	misnamed := handCommit(t, s, tip, map[string]string{path("other-02"): encode(wrong)}, "hand: misnamed")
	after := handCommit(t, s, misnamed, map[string]string{path("proj-aa2"): withAliases("proj-aa2")}, "hand: give up after misnamed")
	ids := []string{"proj-aa1", "proj-aa2", "proj-ab1", "proj-ab2", "other-01", "other-02", "proj-aa3", "proj-a00", "proj-zz9", "nope"}
	aliases := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "nope"}
	prefixes := []string{"proj", "proj-a", "proj-aa", "proj-ab", "other", "proj-aa1", "zzz"}

	fromScratch := func(at plumbing.Hash) kernel.IDSet {
		ix, _, err := s.buildIndex(at, newTreeReader(s.objects))
		require.NoError(t, err)
		return ix
	}
	same := func(want, got kernel.IDSet, at plumbing.Hash) {
		t.Helper()
		for _, id := range ids {
			require.Equal(t, want.HasID(id), got.HasID(id), "HasID(%s) at %s", id, at)
		}
		for _, a := range aliases {
			wid, wok := want.AliasTarget(a)
			gid, gok := got.AliasTarget(a)
			require.Equal(t, [2]any{wid, wok}, [2]any{gid, gok}, "AliasTarget(%s) at %s", a, at)
		}
		for _, p := range prefixes {
			for _, limit := range []int{1, 2, 10} {
				require.Equal(t, want.IDsWithPrefix(p, limit), got.IDsWithPrefix(p, limit), "IDsWithPrefix(%s, %d) at %s", p, limit, at)
			}
		}
	}
	check := func(w *Walk, at plumbing.Hash) {
		t.Helper()
		got, err := w.handlesAt(at)
		require.NoError(t, err)
		same(fromScratch(at), got, at)
	}
	// In history order, as verify walks a range.
	w := s.Walk()
	for _, c := range commits {
		check(w, c)
	}
	// In random orders: any move is one tree diff.
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 3; round++ {
		w := s.Walk()
		for _, i := range rng.Perm(len(commits)) {
			check(w, commits[i])
		}
	}
	// Wherever the store's cached index stands (behind, at or ahead of
	// the first commit asked about, or at a commit that does not exist),
	// the walk answers as at the commit.
	gone := plumbing.NewHash("1234567890123456789012345678901234567890")
	for _, at := range append([]plumbing.Hash{gone}, commits...) {
		if at == gone {
			ix, _, err := s.buildIndex(commits[0], newTreeReader(s.objects))
			require.NoError(t, err)
			s.index = ix.withChanges(gone, nil)
		} else {
			ix, _, err := s.buildIndex(at, newTreeReader(s.objects))
			require.NoError(t, err)
			s.index = ix
		}
		for _, i := range rng.Perm(len(commits))[:3] {
			w := s.Walk()
			check(w, commits[i])
			check(w, commits[(i+1)%len(commits)])
		}
	}
	w = s.Walk()
	check(w, tip)
	for _, c := range []plumbing.Hash{misnamed, after} {
		got, err := w.handlesAt(c)
		require.NoError(t, err)
		require.True(t, w.handles.inexact)
		v, err := s.viewAt(c)
		require.NoError(t, err)
		ix, err := v.Index()
		require.NoError(t, err)
		same(ix, got, c)
	}
}

// Loose objects read back byte for byte whatever their size (the header
// and content straddle the first read), and one whose header lies about
// its size, or whose stream is cut, is an error, not a short object.
func TestLooseObjectsReadWhole(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	dir := gitDir(s)
	objects := filepath.Join(s.repo.CommonDir, "objects")
	d := newObjectDir(objects)
	for _, size := range []int{0, 1, 20, 31, 32, 100, 70_000} {
		content := bytes.Repeat([]byte("abcdefghij"), size/10+1)[:size]
		out, err := gitInput(dir, content, nil, "hash-object", "-w", "--stdin")
		require.NoError(t, err)
		h := plumbing.NewHash(strings.TrimSpace(out))
		for range 2 { // the second read reuses the inflater
			o, err := d.loose(h)
			require.NoError(t, err, "size %d", size)
			got, err := readAll(o)
			require.NoError(t, err)
			require.Equal(t, content, got, "size %d", size)
			require.Equal(t, plumbing.BlobObject, o.Type())
		}
	}
	write := func(raw []byte) plumbing.Hash {
		var buf bytes.Buffer
		zw := zlib.NewWriter(&buf)
		_, _ = zw.Write(raw)
		require.NoError(t, zw.Close())
		h := plumbing.ComputeHash(plumbing.BlobObject, raw) // any name will do
		p := filepath.Join(objects, h.String()[:2], h.String()[2:])
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		return h
	}
	for name, raw := range map[string][]byte{
		"longer than its header":  []byte("blob 3\x00abcdef"),
		"shorter than its header": []byte("blob 9\x00abc"),
		"huge header":             []byte("blob 99999999999\x00abc"),
		"no header":               []byte("blob"),
	} {
		_, err := d.loose(write(raw))
		require.Error(t, err, name)
	}
	// A cut stream.
	h := write([]byte("blob 3\x00abc"))
	p := filepath.Join(objects, h.String()[:2], h.String()[2:])
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, data[:len(data)-3], 0o644))
	_, err = d.loose(h)
	require.Error(t, err, "cut stream")
}
