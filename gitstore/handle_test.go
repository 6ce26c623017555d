package gitstore

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// handleByResolve is service.HandleFor's loop: the ShortID, lengthened
// until Resolve gives id back, else id.
func handleByResolve(resolve func(string) (string, error), id string) string {
	n := len(id)
	if n > 12 {
		n = kernel.MinIDPrefix
	}
	for ; n < len(id); n++ {
		if got, err := resolve(id[:n]); err == nil && got == id {
			return id[:n]
		}
	}
	return id
}

// TestShortHandleIsWhatResolveAccepts: ShortHandle answers what the loop
// over Resolve answers, for ids that share 8 or more characters, an id
// that is another's prefix (short, 13 characters, or as long as the 8
// characters), a prefix that is another record's alias or the record's
// own, an alias in the delta, a neighbour removed in the delta, records
// changed in the delta, and ids that are not there; from a cold build (no
// file), and from the file with its delta, through the preads and past
// their budget. Random ids take the short way, not the loop.
func TestShortHandleIsWhatResolveAccepts(t *testing.T) {
	t.Parallel()
	file := func(id, title string, aliases ...string) string {
		r := &kernel.Record{ID: id, Type: "raw", Title: title, Category: "c", Aliases: aliases,
			CreatedAt: ts("2026-01-01"), UpdatedAt: ts("2026-01-01"), Provenance: kernel.Provenance{Agent: "a human"}}
		data, err := EncodeRecord(r)
		require.NoError(t, err)
		return string(data)
	}
	var random []string
	base := map[string]string{}
	add := func(files map[string]string, id string, aliases ...string) {
		files[RecordPath("raw", id)] = file(id, "t", aliases...)
	}
	for _, id := range []string{"payment-api-v1-alpha", "payment-api-v1-beta", "payment-api-v2-gamma", "payment", "payment-api",
		"paymentsvc-runbook-2024", "qqqqqqqq-target-record-01", "qqqqqqqqq-target-record-02", "selfalia-other-record-02",
		"zzzzzzzzzzzzz", "zzzzzzzzzzzzz-longer-one", "yyyyyyyy", "yyyyyyyy-longer-one-here", "rmneighbour-record-a0",
		"rmneighbour-record-a1", "rmneighbour-record-b2", "deltaalias-record-x1", "changed-in-delta-record"} {
		add(base, id)
	}
	add(base, "alias-holder-record-01", "qqqqqqqq", "qqqqqqqqq-targ")
	add(base, "selfalias-record-0001", "selfalias")
	for range 30 {
		id := kernel.NewID()
		random = append(random, id)
		add(base, id)
	}
	delta := map[string]string{RecordPath("raw", "rmneighbour-record-a1"): ""}
	add(delta, "payment-api-v1-alp-new-00")
	add(delta, "alias-holder-record-02", "deltaali")
	delta[RecordPath("raw", "changed-in-delta-record")] = file("changed-in-delta-record", "changed")
	for range 3 {
		add(delta, kernel.NewID())
	}
	missing := []string{"nosuchrecordatall-x", "payment-api-v1-al", "qqqqqqqq-target-record-00"}

	// check returns the ids that took the long way.
	check := func(name string, ids []string, resolve func(string) (string, error), short func(string) (string, bool)) []string {
		t.Helper()
		var long []string
		for _, id := range ids {
			want := handleByResolve(resolve, id)
			got, ok := short(id)
			if !ok {
				long = append(long, id)
				continue
			}
			require.Equal(t, want, got, "%s: %s", name, id)
		}
		return long
	}
	s := newTestStore(t)
	tip, err := s.Tip()
	require.NoError(t, err)
	tip = handCommit(t, s, tip, base, "base")
	cold := coldIndex(t, s)
	aliased := []string{"qqqqqqqq-target-record-01", "qqqqqqqqq-target-record-02", "selfalias-record-0001"}
	require.Equal(t, append(aliased, missing...), check("cold base", append(cold.IDs(), missing...), cold.Resolve, cold.ShortHandle),
		"only ids with an alias as a prefix, and missing ones, take the long way")
	indexOf(t, reopen(t, s)) // the base on disk
	handCommit(t, s, tip, delta, "delta")

	v, err := reopen(t, s).View()
	require.NoError(t, err)
	ix, err := v.Index()
	require.NoError(t, err)
	require.NotEmpty(t, ix.delta, "the file's base and a delta")
	require.NotNil(t, ix.base.file, "read from the file")
	missing = append(missing, "rmneighbour-record-a1") // removed
	ids := append(ix.IDs(), missing...)
	for range 3 { // through the preads, then past their budget
		long := check("file and delta", ids, v.Resolve, v.ShortHandle)
		require.Subset(t, long, []string{"rmneighbour-record-a0", "rmneighbour-record-b2", "payment-api-v1-alp-new-00"}, "a neighbour removed, an id added")
		require.NotContains(t, long, "payment-api-v2-gamma")
	}
	require.Empty(t, check("random", random, v.Resolve, v.ShortHandle), "random ids take the short way")
	cold = coldIndex(t, s)
	require.Equal(t, append([]string{"deltaalias-record-x1"}, append(aliased, missing...)...),
		check("cold, after the delta", append(cold.IDs(), missing...), cold.Resolve, cold.ShortHandle))
}
