package gitstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestBaseBuilderWritesWhatOneRowEachWrote: the arena builder, given the
// entries in any order, writes byte for byte the file the earlier
// builder (one slice per row, entries sorted by id first; kept below as
// the reference) wrote, shared keys, duplicate rows, empty tables and
// ties in creation time included.
func TestBaseBuilderWritesWhatOneRowEachWrote(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	tip := plumbing.NewHash(strings.Repeat("cd", 20))
	for _, n := range []int{0, 1, 2, 50, 700, 17000} { // 17,000: a row offset table over 64 KiB
		var entries []*IndexEntry
		for i := range n {
			e := &IndexEntry{ID: fmt.Sprintf("%c%05d", 'a'+rng.IntN(26), i), Type: pick("concept", "raw", "relation"),
				Category: pick("", "eng", "eng.api", "ops"), Title: fmt.Sprintf("t%d", rng.IntN(5)),
				Status: kernel.Status(pick("", "active", "retired")), CreatedAt: int64(rng.IntN(20)), Expires: int64(rng.IntN(3))}
			for range rng.IntN(3) {
				e.Tags = append(e.Tags, pick("t1", "t2", "t3"))
				e.Aliases = append(e.Aliases, pick("al1", "al2", fmt.Sprintf("al-%d", i)))
			}
			for range rng.IntN(4) {
				ed := Edge{Target: pick("hub", "x", fmt.Sprintf("a%05d", rng.IntN(n+1))), Kind: pick("related", "cites"), Label: pick("", "l")}
				if rng.IntN(3) == 0 {
					ed.Source = pick("s1", "s2")
				}
				e.Edges = append(e.Edges, ed)
			}
			entries = append(entries, e)
		}
		sorted := slices.Clone(entries)
		slices.SortFunc(sorted, func(a, b *IndexEntry) int { return strings.Compare(a.ID, b.ID) })
		want := buildBaseOneRowEach(tip, sorted)
		var b baseBuilder
		for _, i := range rng.Perm(len(entries)) {
			b.add(entries[i])
		}
		got := b.finish(tip)
		require.True(t, bytes.Equal(want, got), "%d entries: the files differ", n)
		_, err := openBase(got)
		require.NoError(t, err)

		// Streamed to a file (what a rebuild writes), the same bytes.
		for _, i := range rng.Perm(len(entries)) {
			b.add(entries[i])
		}
		tabs := b.sorted()
		f, err := os.CreateTemp(t.TempDir(), "base")
		require.NoError(t, err)
		require.NoError(t, writeBaseFile(f, tip, &tabs))
		require.NoError(t, f.Close())
		written, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, written), "%d entries: the written file differs", n)
	}
}

func buildBaseOneRowEach(tip plumbing.Hash, entries []*IndexEntry) []byte {
	var tabs [tableCount][][]byte
	rowPair := func(key, id string) []byte {
		p := binary.AppendUvarint(make([]byte, 0, len(key)+len(id)+2), uint64(len(key)))
		return append(append(p, key...), id...)
	}
	byCreated := make([]int, len(entries))
	for i := range byCreated {
		byCreated[i] = i
	}
	slices.SortFunc(byCreated, func(a, b int) int { return listOrder(entries[a], entries[b]) })
	for i, e := range entries {
		entries[i] = nil
		tabs[tabEntries] = append(tabs[tabEntries], appendEntry(nil, e))
		for _, a := range e.Aliases {
			tabs[tabAliases] = append(tabs[tabAliases], rowPair(a, e.ID))
		}
		tabs[tabCategory] = append(tabs[tabCategory], rowPair(e.Category, e.ID))
		tabs[tabType] = append(tabs[tabType], rowPair(e.Type, e.ID))
		for _, tag := range e.Tags {
			tabs[tabTag] = append(tabs[tabTag], rowPair(tag, e.ID))
		}
		for i, ed := range e.Edges {
			tabs[tabTargets] = append(tabs[tabTargets], appendEdgeRow(nil, e, i))
			if ed.Source != "" {
				tabs[tabSources] = append(tabs[tabSources], rowPair(ed.Source, e.ID))
			}
		}
	}
	for _, i := range byCreated {
		tabs[tabByCreated] = append(tabs[tabByCreated], binary.LittleEndian.AppendUint32(nil, uint32(i)))
	}
	for t := tabAliases; t < tableCount; t++ {
		slices.SortFunc(tabs[t], compareRows(t))
		tabs[t] = slices.CompactFunc(tabs[t], func(a, b []byte) bool { return bytes.Equal(a, b) })
	}

	size := indexHeaderSize
	for _, rows := range tabs {
		size += 4 + 4*len(rows)
		for _, r := range rows {
			size += binary.PutUvarint(make([]byte, binary.MaxVarintLen64), uint64(len(r))) + len(r) + 4
		}
	}
	buf := make([]byte, indexHeaderSize, size)
	var dir [tableCount][2]uint64
	for t, rows := range tabs {
		start := len(buf)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(rows)))
		offs := len(buf)
		buf = append(buf, make([]byte, 4*len(rows))...)
		for i, r := range rows {
			binary.LittleEndian.PutUint32(buf[offs+4*i:], uint32(len(buf)-start))
			buf = binary.AppendUvarint(buf, uint64(len(r)))
			buf = append(buf, r...)
			buf = binary.LittleEndian.AppendUint32(buf, checksum(r))
		}
		tabs[t] = nil
		dir[t] = [2]uint64{uint64(start), uint64(len(buf) - start)}
	}
	h := buf[:0]
	h = append(h, indexMagic...)
	h = binary.LittleEndian.AppendUint32(h, indexVersion)
	h = append(h, tip[:]...)
	h = binary.LittleEndian.AppendUint32(h, checksum(buf[indexHeaderSize:]))
	h = binary.LittleEndian.AppendUint64(h, uint64(len(buf)))
	for _, d := range dir {
		h = binary.LittleEndian.AppendUint64(h, d[0])
		h = binary.LittleEndian.AppendUint64(h, d[1])
	}
	binary.LittleEndian.AppendUint32(h, checksum(h))
	return buf
}
