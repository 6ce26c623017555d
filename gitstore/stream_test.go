package gitstore

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/kernel"
)

// importItems are n notes to import, each of a few kilobytes, linking
// the next and with an alias; the first stands for a payload, and the last
// claims the first's id as an alias, so the first is left out after it was
// written.
func importItems(n int) []kernel.ImportItem {
	items := make([]kernel.ImportItem, n)
	text := strings.Repeat("Tokens rotate on every use; a refresh token is used once. ", 40)
	for i := range items {
		id := fmt.Sprintf("imp-%05d", i)
		items[i] = kernel.ImportItem{Origin: id + ".md", Record: &kernel.Record{ID: id, Type: "concept", Title: "Note " + id,
			Category: "notes", Aliases: []string{"alias-" + id}, Body: fmt.Sprintf("See [[imp-%05d]].\n\n%s\n", (i+1)%n, text)}}
	}
	items[0].Payload = []byte("an attachment only the first stands for")
	items[n-1].Record.Aliases = append(items[n-1].Record.Aliases, items[0].Record.ID)
	return items
}

func importInput() kernel.ImportInput {
	return kernel.ImportInput{Source: "vault notes", Digest: "sha256:00", Agent: testAgent}
}

// streamed is an import as a streamed op: each batch written as decided.
func streamed(items []kernel.ImportItem, batch int) kernel.StreamFunc {
	return func(v kernel.View, env kernel.Env, write func([]kernel.ImportWrite) error) (*kernel.Mutation, map[string]bool, error) {
		im, err := kernel.NewImporter(v, importInput(), env)
		if err != nil {
			return nil, nil, err
		}
		for lo := 0; lo < len(items); lo += batch {
			writes, err := im.Decide(items[lo:min(lo+batch, len(items))])
			if err != nil {
				return nil, nil, err
			}
			if err := write(writes); err != nil {
				return nil, nil, err
			}
		}
		return im.Finish()
	}
}

// A streamed op lands, byte for byte, the commit the same op decided as
// one mutation lands: the records it writes as it decides them (on every
// core, a batch at a time), without those it drops after all, and the
// payloads only the records it keeps stand for, judged read back from its
// pack before anything names them. git finds the commit whole and signed.
func TestStreamedWriteLandsWhatAMutationWould(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s := newTestStore(t, Options{Now: func() time.Time { return at }})
	start, err := s.Tip()
	require.NoError(t, err)
	items := importItems(2 * packThreshold)

	w, err := s.MutateStream(streamed(items, 64), kernel.Approval{})
	require.NoError(t, err)
	streamedCommit := w.Commit
	require.False(t, streamedCommit.IsZero())
	requireFsckClean(t, gitDir(s))
	requireVerifiedByGit(t, s, streamedCommit)
	assert.Equal(t, fmt.Sprint(len(items)-1), gitShowTrailer(t, s, streamedCommit, kernel.TrailerCount), "the first is left out")
	assert.Empty(t, git(t, gitDir(s), "ls-tree", "-r", "--name-only", streamedCommit.String(), "--", "payloads/"),
		"the payload of the record left out is not on the branch")
	assert.Empty(t, git(t, gitDir(s), "ls-tree", "-r", "--name-only", streamedCommit.String(), "--", RecordPath("concept", items[0].Record.ID)))

	git(t, gitDir(s), "update-ref", s.ref, start.String(), streamedCommit.String())
	s = reopen(t, s)
	w, err = s.MutateApproved(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m, _, err := kernel.Import(v, kernel.ImportInput{Items: items, Source: "vault notes", Digest: "sha256:00", Agent: testAgent}, env)
		return m, err
	}, kernel.Approval{})
	require.NoError(t, err)
	assert.Equal(t, streamedCommit, w.Commit, "the same commit, decided as one mutation")
}

func gitShowTrailer(t testing.TB, s *Store, commit plumbing.Hash, key string) string {
	t.Helper()
	return strings.TrimSpace(git(t, gitDir(s), "log", "-1", "--format=%(trailers:key="+key+",valueonly)", commit.String()))
}

// A streamed op its judgment refuses writes nothing anyone sees: the ref
// stays, and the pack its records went into is gone, no temporary file
// left behind.
func TestRefusedStreamedWriteLeavesNothing(t *testing.T) {
	s := newTestStore(t)
	tip, err := s.Tip()
	require.NoError(t, err)
	packDir := filepath.Join(gitDir(s), ".git", "objects", "pack")
	before, _ := filepath.Glob(filepath.Join(packDir, "*"))
	_, err = s.MutateStream(func(v kernel.View, env kernel.Env, write func([]kernel.ImportWrite) error) (*kernel.Mutation, map[string]bool, error) {
		im, err := kernel.NewImporter(v, importInput(), env)
		if err != nil {
			return nil, nil, err
		}
		writes, err := im.Decide(importItems(packThreshold + 10))
		if err != nil {
			return nil, nil, err
		}
		// A record the op's rules forbid: no create entry in its log.
		writes[3].Record.MutationLog = nil
		if err := write(writes); err != nil {
			return nil, nil, err
		}
		return im.Finish()
	}, kernel.Approval{})
	requireCode(t, err, kernel.CodeInternal)
	assert.Contains(t, err.Error(), "has no create entry in its mutation log")
	after, err := s.Tip()
	require.NoError(t, err)
	assert.Equal(t, tip, after, "the ref stays")
	left, _ := filepath.Glob(filepath.Join(packDir, "*"))
	assert.Equal(t, before, left, "no pack and no temporary file left behind")
}

// Judging a streamed commit as verify does (the tree diff read as it
// walks, the walk's decoded records bounded) holds the commit's handles
// and rights, not its records: each record adds at most a few hundred
// bytes to the peak (a judgment that held the commit's records held
// kilobytes each).
func TestJudgingAStreamedCommitHoldsItsHandles(t *testing.T) {
	const n, maxBytesPerRecord = 2000, 3 << 10
	peak := func(records int) uint64 {
		s := newTestStore(t)
		parent, err := s.Tip()
		require.NoError(t, err)
		// The index at the parent, as a server's is when it judges a push.
		v, err := s.View()
		require.NoError(t, err)
		_, err = v.Index()
		require.NoError(t, err)
		w, err := s.MutateStream(streamed(importItems(records), 256), kernel.Approval{})
		require.NoError(t, err)
		// The walk keeps few decoded records, as it keeps at most
		// walkMaxRecords of a commit larger than that.
		walk := s.Walk()
		walk.maxRecords = 64
		c, err := walk.Commit(w.Commit)
		require.NoError(t, err)
		msg, err := DecodeMessage(c.Message)
		require.NoError(t, err)
		before, err := walk.ViewAt(parent)
		require.NoError(t, err)
		trust, err := before.Trust()
		require.NoError(t, err)
		after, err := walk.ViewAt(w.Commit)
		require.NoError(t, err)
		f := kernel.CommitFacts{Hash: w.Commit.String(), Parents: []string{parent.String()}, Committed: c.Committer.When,
			ParentDates: []time.Time{c.Committer.When}, Now: c.Committer.When,
			Message: kernel.Message{Op: kernel.Op(msg.Get(kernel.TrailerOp)), Trailers: msg.Trailers}, Trust: trust,
			Signature: kernel.SignatureFacts{Status: kernel.SignatureGood, Principal: testEmail},
			Before:    before, After: after, Files: walk.FileChangesBetween(parent, w.Commit), BodyLinks: BodyLinks, Encode: EncodeRecord}
		var verdict kernel.Judgment
		live := testenv.PeakLiveHeap(func() { verdict, err = kernel.JudgeCommit(f) })
		require.NoError(t, err)
		require.Empty(t, verdict.Violations)
		require.Equal(t, fmt.Sprint(records-1), msg.Get(kernel.TrailerCount), "every record but the first, judged")
		return live
	}
	small, large := peak(n), peak(2*n)
	t.Logf("peak live heap: %d records %d KiB, %d records %d KiB: %d bytes a record", n, small>>10, 2*n, large>>10, (int64(large)-int64(small))/n)
	assert.Less(t, int64(large)-int64(small), int64(n*maxBytesPerRecord), "each record adds at most %d bytes", maxBytesPerRecord)
}

// A streamed commit leaves the index to the next read. A read that finds
// more changes than a catch-up holds builds the index afresh from the tip,
// holding none of the changes, and answers as a catch-up would.
func TestALargeCatchUpBuildsTheIndexAfresh(t *testing.T) {
	s := newTestStore(t, Options{catchUpLimit: 10})
	v, err := s.View()
	require.NoError(t, err)
	_, err = v.Index() // at the parent
	require.NoError(t, err)
	items := importItems(50)
	w, err := s.MutateStream(streamed(items, 16), kernel.Approval{})
	require.NoError(t, err)
	s = reopen(t, s)
	var from []plumbing.Hash
	s.ObserveIndex(func(f, _ plumbing.Hash, _ []ChangedRecord) { from = append(from, f) })
	v, err = s.View()
	require.NoError(t, err)
	ix, err := v.Index()
	require.NoError(t, err)
	assert.Equal(t, w.Commit, ix.Tip)
	assert.Equal(t, []plumbing.Hash{plumbing.ZeroHash}, from, "built from nothing, not caught up from the parent")
	for _, it := range items[1:] {
		id, err := v.Resolve("alias-" + it.Record.ID)
		require.NoError(t, err)
		assert.Equal(t, it.Record.ID, id)
	}
	id, err := v.Resolve(items[0].Record.ID)
	require.NoError(t, err)
	assert.Equal(t, items[len(items)-1].Record.ID, id, "the id left out is the last record's alias")
}
