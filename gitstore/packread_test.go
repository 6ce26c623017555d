package gitstore

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"github.com/go-git/go-git/v5/plumbing/object"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestPackReaderReadsWhatGitReads: every object of packs git wrote, with
// deep delta chains, offset deltas and deltas that name their base, reads
// back with the content its name is the hash of, through the pack reader
// itself (not its go-git fallback).
func TestPackReaderReadsWhatGitReads(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	dir := gitDir(s)
	r := create(t, s, kernel.CreateInput{Title: "versions", Body: strings.Repeat("a line that stays the same\n", 200)})
	for i := range 30 {
		title := fmt.Sprintf("version %d", i)
		body := strings.Repeat("a line that stays the same\n", 200) + fmt.Sprintf("and one that changes: %d\n", i)
		mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, r.ID, kernel.UpdateFields{Title: &title, Body: &body}, ev(), env)
		})
	}
	for _, tc := range []struct {
		name   string
		config []string
	}{
		{"offset deltas", nil},
		{"deltas naming their base", []string{"-c", "repack.useDeltaBaseOffset=false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			git(t, dir, append(tc.config, "repack", "-a", "-d", "-f", "-q", "--depth=50", "--window=50")...)
			git(t, dir, "prune-packed")
			d := newObjectDir(filepath.Join(s.repo.CommonDir, "objects"))
			packs, err := d.listPacks(false)
			require.NoError(t, err)
			require.Len(t, packs, 1)
			p := packs[0]
			require.NotNil(t, p.reader, "the pack is mapped")
			// Point reads as a pack of 1 MiB or more has them.
			for file, to := range map[string]**os.File{p.idx.path: &p.idx.file, strings.TrimSuffix(p.idx.path, ".idx") + ".pack": &p.reader.file} {
				f, err := os.Open(file)
				require.NoError(t, err)
				defer f.Close()
				*to = f
			}
			listing := git(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(deltabase)")
			deltas := 0
			for _, line := range strings.Split(strings.TrimSpace(listing), "\n") {
				f := strings.Fields(line)
				h := plumbing.NewHash(f[0])
				if f[2] != plumbing.ZeroHash.String() {
					deltas++
				}
				off, err := p.idx.FindOffset(h)
				require.NoError(t, err)
				typ, data, err := p.reader.read(p.idx, off)
				require.NoError(t, err, line)
				require.Equal(t, f[1], typ.String(), line)
				require.Equal(t, h, plumbing.ComputeHash(typ, data), "%s reads as its content", line)
				// A point read (copies made with pread) reads it too, and
				// finds it in the index where the mapping's search does.
				p.reader.dropCache()
				typ, data, err = p.reader.readAt(p.idx, off, true)
				require.NoError(t, err, line)
				require.Equal(t, h, plumbing.ComputeHash(typ, data), "%s reads by pread as its content", line)
				byMap, _ := (&packIndex{data: p.idx.data, count: p.idx.count}).find(h)
				byRead, ok := p.idx.findByRead(h, p.idx.fanout(int(h[0])-1), p.idx.fanout(int(h[0])))
				require.True(t, ok)
				require.Equal(t, byMap, byRead, line)
				absent := h
				absent[19] ^= 1
				byRead, ok = p.idx.findByRead(absent, p.idx.fanout(int(absent[0])-1), p.idx.fanout(int(absent[0])))
				require.True(t, ok)
				require.Equal(t, -1, byRead, "no object has that name")
				o, err := d.EncodedObject(plumbing.AnyObject, h)
				require.NoError(t, err)
				require.Equal(t, h, o.Hash())
			}
			require.Greater(t, deltas, 20, "the pack holds deltas")
		})
	}
}

// TestPackReaderRefusesDamage: a cut or overwritten pack gives errors,
// never a panic or an object of the wrong content.
func TestPackReaderRefusesDamage(t *testing.T) {
	t.Parallel()
	dir, _, p := onePack(t, 10, 100, "-f")
	listing := git(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
	whole := p.reader.data
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { return b[:13] },
		func(b []byte) []byte {
			c := append([]byte(nil), b...)
			for i := 12; i < len(c); i += 7 {
				c[i] ^= 0x5a
			}
			return c
		},
		func(b []byte) []byte {
			c := append([]byte(nil), b...)
			for i := 12; i < len(c); i++ {
				c[i] = 0xff // every byte continues a varint
			}
			return c
		},
	} {
		damaged := &packReader{data: damage(whole)}
		// Point reads copy from the file, the same damaged bytes.
		file := filepath.Join(t.TempDir(), "damaged.pack")
		require.NoError(t, os.WriteFile(file, damaged.data, 0o644))
		f, err := os.Open(file)
		require.NoError(t, err)
		defer f.Close()
		damaged.file = f
		for _, name := range strings.Fields(listing) {
			h := plumbing.NewHash(name)
			off, err := p.idx.FindOffset(h)
			require.NoError(t, err)
			typ, data, err := damaged.read(p.idx, off)
			if err == nil {
				require.Equal(t, h, plumbing.ComputeHash(typ, data), "what reads without error is the object")
			}
		}
	}
}

// TestPacksReadThroughGoGitWhereOursDeclines: go-git's pack reader is
// made on the first object our reader declines (here: every object, as for
// a pack that could not be mapped), over the .pack opened with the pack,
// and reads every object as git has it.
func TestPacksReadThroughGoGitWhereOursDeclines(t *testing.T) {
	t.Parallel()
	dir, d, p := onePack(t, 3, 50)
	d.doneReading()
	require.Nil(t, p.data, "go-git's reader is made on first use, not with the pack")
	p.reader = nil
	listing := git(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
	for _, name := range strings.Fields(listing) {
		h := plumbing.NewHash(name)
		o, err := d.packed(h, false)
		require.NoError(t, err)
		r, err := o.Reader()
		require.NoError(t, err)
		data, err := io.ReadAll(r)
		require.NoError(t, err)
		require.Equal(t, h, plumbing.ComputeHash(o.Type(), data))
	}
	require.NotNil(t, p.data)
	p.release()
	_, err := p.file.Stat()
	require.Error(t, err, "releasing the pack closes its file")
}

// TestDecodeTreeAsGoGit: the tree decoder reads every tree as go-git's
// does, odd modes and damaged trees included, so verify judges the same
// entries it judged before.
func TestDecodeTreeAsGoGit(t *testing.T) {
	t.Parallel()
	h := func(b byte) string { return strings.Repeat(string([]byte{b}), 20) }
	raws := []string{
		"",
		"100644 a.md\x00" + h(1) + "40000 dir\x00" + h(2) + "120000 link\x00" + h(4) + "160000 sub\x00" + h(5) + "100755 x\x00" + h(3),
		"100664 odd\x00" + h(1) + "644 short\x00" + h(3) + "170000 what\x00" + h(4) + "040000 zero-padded\x00" + h(2),
		"1100755 above-type\x00" + h(1) + "100610 group-x\x00" + h(2) + "0 zero\x00" + h(3),
		"100644 nameonly",
		"100644 a\x00short",
		"100644 \x00" + h(1),
		"10064x a\x00" + h(1),
		"nomode",
		"100644 a\x00" + h(1) + "trailing",
		" a\x00" + h(1),
	}
	for _, raw := range raws {
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.TreeObject)
		_, _ = o.Write([]byte(raw))
		var want object.Tree
		wantErr := want.Decode(o)
		got, err := decodeTree(&storedObject{h: o.Hash(), t: plumbing.TreeObject, data: []byte(raw)})
		if wantErr != nil {
			require.Error(t, err, "%q", raw)
			require.Equal(t, errors.Is(wantErr, object.ErrMalformedTree), errors.Is(err, errMalformedTree), "%q: %v / %v", raw, wantErr, err)
			continue
		}
		require.NoError(t, err, "%q", raw)
		require.Equal(t, o.Hash(), got.Hash)
		require.Equal(t, len(want.Entries), len(got.Entries), "%q", raw)
		for i := range want.Entries {
			require.Equal(t, fromGoGit(want.Entries[i]), got.Entries[i], "%q", raw)
		}
	}
}

// TestDecodeTreeRefusesWhatGitFsckRefuses: go-git reads a tree with a name
// twice or names out of git's order; git does not read it so (a lookup
// stops at the first name past the one it looks for, of two alike it takes
// the first) and fsck refuses it. The store refuses it too, or verify would
// judge entries git does not see; a tree in order whose names share a
// prefix ("a", "a-b", "a.md", "a/") is read whole.
func TestDecodeTreeRefusesWhatGitFsckRefuses(t *testing.T) {
	t.Parallel()
	h := func(b byte) string { return strings.Repeat(string([]byte{b}), 20) }
	for _, raw := range []string{
		"100644 b\x00" + h(1) + "100644 a\x00" + h(2),
		"100644 a\x00" + h(1) + "100644 a\x00" + h(2),
		"100644 a\x00" + h(1) + "100644 a\x00" + h(1),
		"40000 a\x00" + h(1) + "40000 a\x00" + h(1),
		"100644 a\x00" + h(1) + "40000 a\x00" + h(2),
		"100644 a\x00" + h(1) + "100644 a-b\x00" + h(2) + "100644 a.md\x00" + h(3) + "40000 a\x00" + h(2),
		"40000 a\x00" + h(1) + "100644 a\x00" + h(2),
		"100644 a/\x00" + h(1) + "40000 a\x00" + h(2),
	} {
		_, err := decodeTree(&storedObject{t: plumbing.TreeObject, data: []byte(raw)})
		require.ErrorIs(t, err, errMalformedTree, "%q", raw)
		mem := memory.NewStorage()
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.TreeObject)
		_, _ = o.Write([]byte(raw))
		hash, err := mem.SetEncodedObject(o)
		require.NoError(t, err)
		_, _, err = newTreeReader(mem).entry(hash, "a")
		require.ErrorIs(t, err, errMalformedTree, "%q: a lookup", raw)
	}
	for _, raw := range []string{
		"100644 a\x00" + h(1) + "100644 a-b\x00" + h(2) + "100644 a.md\x00" + h(3) + "40000 ab\x00" + h(2),
		"100644 a\x00" + h(1) + "100644 a-b\x00" + h(2) + "40000 a-b.c\x00" + h(3) + "40000 a.md\x00" + h(2),
		"40000 a-b\x00" + h(2) + "40000 a\x00" + h(1) + "100644 a0\x00" + h(3),
	} {
		got, err := decodeTree(&storedObject{t: plumbing.TreeObject, data: []byte(raw)})
		require.NoError(t, err, "%q", raw)
		require.Len(t, got.Entries, 4-strings.Count(raw, "a0"), "%q", raw)
	}
}

// A tree read in place (diffs and lookups walk its text, never decoded)
// is refused where a decode refuses it and lists the entries a decode
// lists, and a lookup in it finds what a lookup in the decoded tree finds.
func TestTreeTextAsDecodeTree(t *testing.T) {
	t.Parallel()
	h := func(b byte) string { return strings.Repeat(string([]byte{b}), 20) }
	raws := []string{
		"",
		"100644 a.md\x00" + h(1) + "40000 dir\x00" + h(2) + "120000 link\x00" + h(4) + "160000 sub\x00" + h(5) + "100755 x\x00" + h(3),
		"100664 odd\x00" + h(1) + "644 short\x00" + h(3) + "170000 what\x00" + h(4) + "040000 zero-padded\x00" + h(2),
		"100644 b\x00" + h(1) + "100644 a\x00" + h(2),
		"100644 a\x00" + h(1) + "100644 a\x00" + h(2),
		"100644 a\x00" + h(0) + "100644 b\x00" + h(' '),
		"100644 nameonly",
		"100644 a\x00short",
		"100644 \x00" + h(1),
		"10064x a\x00" + h(1),
		"nomode",
		"100644 a\x00" + h(1) + "trailing",
		"100644 a\x00" + h(1) + "100644 b\x00" + h(2) + "10064",
		" a\x00" + h(1),
	}
	for _, raw := range raws {
		mem := memory.NewStorage()
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.TreeObject)
		_, _ = o.Write([]byte(raw))
		hash, err := mem.SetEncodedObject(o)
		require.NoError(t, err)
		want, wantErr := decodeTree(&storedObject{h: hash, t: plumbing.TreeObject, data: []byte(raw)})

		r := newTreeReader(mem)
		it, err := r.entriesOf(hash)
		if wantErr != nil {
			require.Error(t, err, "%q", raw)
			require.ErrorIs(t, err, errMalformedTree, "%q", raw)
			_, _, err = r.entry(hash, "a")
			require.Error(t, err, "%q: a lookup in a refused tree", raw)
			continue
		}
		require.NoError(t, err, "%q", raw)
		require.Nil(t, it.dec, "%q: read in place", raw)
		var got []treeEntry
		for it.next() {
			got = append(got, it.e)
		}
		require.Equal(t, len(want.Entries), len(got), "%q", raw)
		for i := range want.Entries {
			require.Equal(t, want.Entries[i], got[i], "%q", raw)
		}
		for _, name := range []string{"a", "b", "a.md", "dir", "x", "link", "sub", "odd", "what", "missing", ""} {
			var wantE treeEntry
			wantOK := false
			for _, e := range want.Entries {
				if e.Name == name {
					wantE, wantOK = e, true
					break
				}
			}
			e, ok, err := r.entry(hash, name)
			require.NoError(t, err)
			require.Equal(t, wantOK, ok, "%q: %s", raw, name)
			require.Equal(t, wantE, e, "%q: %s", raw, name)
		}
		// Decoding it later gives the same tree, and the reader keeps
		// one copy.
		dec, err := r.tree(hash)
		require.NoError(t, err)
		require.Equal(t, want.Entries, dec.Entries)
		require.Empty(t, r.raw)
		require.Equal(t, len(want.Entries), r.entries)
	}
}

// fromGoGit is go-git's tree entry as gitstore's.
func fromGoGit(e object.TreeEntry) treeEntry {
	return treeEntry{Name: e.Name, Mode: e.Mode, Hash: e.Hash}
}

// TestInflateRefusesABadChecksumOrSize: the inflater (not the standard
// library's) still checks the stream's adler32 at its end, and the size
// the pack entry declared.
func TestInflateRefusesABadChecksumOrSize(t *testing.T) {
	t.Parallel()
	content := []byte(strings.Repeat("a record's body, repeated\n", 40))
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, err := zw.Write(content)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	got, err := inflateEntry(buf.Bytes(), int64(len(content)))
	require.NoError(t, err)
	require.Equal(t, content, got)

	bad := bytes.Clone(buf.Bytes())
	bad[len(bad)-1] ^= 1 // the adler32's last byte
	_, err = inflateEntry(bad, int64(len(content)))
	require.ErrorIs(t, err, errPackCorrupt, "a wrong checksum")
	_, err = inflateEntry(buf.Bytes(), int64(len(content))-1)
	require.ErrorIs(t, err, errPackCorrupt, "a declared size shorter than the stream")
	_, err = inflateEntry(buf.Bytes()[:buf.Len()-1], int64(len(content)))
	require.ErrorIs(t, err, errPackCorrupt, "a stream cut short, as a point read's copy may be")
	_, err = inflateEntry(buf.Bytes(), int64(len(content))+1)
	require.ErrorIs(t, err, errPackCorrupt, "a declared size longer than the stream")
}

// onePack is a store of n records (record i's body lines+i lines long)
// repacked into one pack with repack's extra flags: its git directory,
// its object directory and that pack as our reader lists it.
func onePack(t *testing.T, n, lines int, flags ...string) (string, *objectDir, *pack) {
	t.Helper()
	s := newTestStore(t)
	dir := gitDir(s)
	for i := range n {
		create(t, s, kernel.CreateInput{Title: fmt.Sprintf("record %d", i), Body: strings.Repeat("text\n", lines+i)})
	}
	git(t, dir, append([]string{"repack", "-a", "-d", "-q"}, flags...)...)
	d := newObjectDir(filepath.Join(s.repo.CommonDir, "objects"))
	packs, err := d.listPacks(false)
	require.NoError(t, err)
	require.Len(t, packs, 1)
	return dir, d, packs[0]
}
