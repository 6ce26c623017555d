package gitstore

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestIndexHeaderCountsThatDisagreeWithTheTables: a base whose header was
// edited (row counts changed, the header CRC written anew so that it
// opens) must never be believed: every answer is the cold build's.
func TestIndexHeaderCountsThatDisagreeWithTheTables(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "a", Aliases: []string{"alpha"}, Tags: []string{"t1"}})
	for i := range 5 {
		create(t, s, kernel.CreateInput{Title: fmt.Sprintf("r%d", i), Body: "see [[alpha]]\n", Tags: []string{"t1"}})
	}
	_, err := reopen(t, s).Reindex("")
	require.NoError(t, err)
	intact, err := os.ReadFile(s.indexPath())
	require.NoError(t, err)
	want := coldIndex(t, s)
	rowsAt := func(tab int) int { return len(indexMagic) + 36 + dirEntrySize*tab + 16 }
	// edit changes the header's row counts of tabs by delta, and (inTable)
	// the count at each table's start too, with the file's CRC written
	// anew: a file consistent but for the rows it no longer counts.
	edit := func(tabs []int, delta int, inTable bool) []byte {
		data := append([]byte(nil), intact...)
		for _, tab := range tabs {
			n := int(binary.LittleEndian.Uint32(data[rowsAt(tab):])) + delta
			if n < 0 {
				n = 0
			}
			binary.LittleEndian.PutUint32(data[rowsAt(tab):], uint32(n))
			if inTable {
				off := binary.LittleEndian.Uint64(data[rowsAt(tab)-16:])
				binary.LittleEndian.PutUint32(data[off:], uint32(n))
			}
		}
		binary.LittleEndian.PutUint32(data[len(indexMagic)+24:], checksum(data[indexHeaderSize:]))
		binary.LittleEndian.PutUint32(data[indexHeaderSize-4:], checksum(data[:indexHeaderSize-4]))
		return data
	}
	last := ""
	for id := range entriesOf(want) {
		last = max(last, id)
	}
	// The ids and entry rows (their counts must agree, else refused at
	// open), a pair table, the list order and the edge rows.
	for _, tab := range []int{tabEntries, tabAliases, tabByCreated, tabTargets} {
		for _, delta := range []int{-1, +1, -1000} {
			for _, inTable := range []bool{false, true} {
				tabs := []int{tab}
				if tab == tabEntries || tab == tabIDs {
					tabs = []int{tabEntries, tabIDs} // else refused at open
				}
				name := fmt.Sprintf("table %d %+d in table %v", tab, delta, inTable)
				t.Run(name, func(t *testing.T) {
					data := edit(tabs, delta, inTable)
					require.NoError(t, os.WriteFile(s.indexPath(), data, 0o644))
					require.Equal(t, last, get(t, reopen(t, s), last).ID, name)
					require.NoError(t, os.WriteFile(s.indexPath(), data, 0o644))
					require.Equal(t, a.ID, get(t, reopen(t, s), "alpha").ID, name)
					require.NoError(t, os.WriteFile(s.indexPath(), data, 0o644))
					require.Equal(t, want.Len(), indexOf(t, reopen(t, s)).Len(), name)
					require.NoError(t, os.WriteFile(s.indexPath(), data, 0o644))
					requireSameIndex(t, want, indexOf(t, reopen(t, s)), name)
				})
			}
		}
	}
}
