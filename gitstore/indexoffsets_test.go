package gitstore

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"
)

// TestDamagedRowOffsetsAreDamage: a read checks no checksum over a table's
// row offsets. One edited to point anywhere (into the table's last bytes,
// past its end, before its rows, at another row) must be found as damage
// (errCorruptIndex: the index is rebuilt), never a runtime panic that
// kills the command, and never a row read from the wrong place: every row
// and lookup answers as on the intact file or reports the damage. Read in
// memory and, for a mapped base, by pread (the search's probes too).
func TestDamagedRowOffsetsAreDamage(t *testing.T) {
	t.Parallel()
	var entries []*IndexEntry
	for i := range 6 {
		entries = append(entries, &IndexEntry{ID: fmt.Sprintf("r%02d", i), Title: "t", Aliases: []string{fmt.Sprintf("a%02d", 5-i)},
			Edges: []Edge{{Target: fmt.Sprintf("r%02d", (i+1)%6), Kind: "related"}}})
	}
	intact := buildBase(plumbing.ZeroHash, slices.Clone(entries))
	file, err := os.Create(filepath.Join(t.TempDir(), "base"))
	require.NoError(t, err)
	defer file.Close()
	reads := func(b *baseFile) (got []string, damaged bool) {
		defer func() {
			if r := recover(); r != nil {
				require.Equal(t, errCorruptIndex, r, "a damaged offset is damage, not a crash")
				damaged = true
			}
		}()
		var buf []byte
		for tab := range tableCount {
			for i := range b.tables[tab].n {
				got = append(got, string(b.tables[tab].row(i)), string(b.pointRow(tab, i)))
				b.eachRow(tab, i, &buf, func(p []byte) bool { got = append(got, string(p)); return true })
			}
		}
		for _, e := range entries {
			got = append(got, fmt.Sprint(b.entryRow(e.ID), b.tables[tabAliases].search([]byte(e.Aliases[0]), pairKey)))
		}
		return got, false
	}
	open := func(data []byte, mapped bool) *baseFile {
		b, err := openBase(data)
		require.NoError(t, err, "the header is intact")
		if mapped {
			_, err := file.WriteAt(data, 0)
			require.NoError(t, err)
			b.setFile(file)
		}
		return b
	}
	want, damaged := reads(open(intact, false))
	require.False(t, damaged)
	detected := 0
	for _, mapped := range []bool{false, true} {
		base := open(intact, mapped)
		for tab := range tableCount {
			tb := base.tables[tab]
			size := len(tb.data)
			for i := range tb.n {
				at := int(tb.off) + 4 + 4*i
				cur := int(binary.LittleEndian.Uint32(intact[at:]))
				values := []int{0, 4 + 4*tb.n - 1, cur - 1, cur + 1, size, size + 1, 1<<32 - 1}
				for back := 1; back <= 14; back++ {
					values = append(values, size-back)
				}
				for _, j := range []int{0, i - 1, i + 1, tb.n - 1} { // another row's start
					if j >= 0 && j < tb.n {
						values = append(values, int(binary.LittleEndian.Uint32(intact[int(tb.off)+4+4*j:])))
					}
				}
				for _, v := range values {
					if v == cur || v < 0 {
						continue
					}
					data := slices.Clone(intact)
					binary.LittleEndian.PutUint32(data[at:], uint32(v))
					got, damaged := reads(open(data, mapped))
					if damaged {
						detected++
						continue
					}
					require.Equal(t, want, got, "table %d row %d's offset %d -> %d (mapped %v): answered wrongly", tab, i, cur, v, mapped)
				}
			}
		}
	}
	require.Positive(t, detected)
}
