package service

import (
	"encoding/json"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/search"
)

// TestResultTypesMarshalAsTheStores: each result type the service converts
// from the store's marshals to the same bytes (the CLI's --json is a public
// format), with every field set, and with the empty and nil lists and the
// zero commit ids that marshal differently.
func TestResultTypesMarshalAsTheStores(t *testing.T) {
	a := plumbing.NewHash("1111111111111111111111111111111111111111")
	b := plumbing.NewHash("2222222222222222222222222222222222222222")
	edge := gitstore.Edge{Source: "s", Target: "t", Kind: "related", Label: "why"}
	ref := gitstore.RecordRef{ID: "r1", Type: "concept", Title: "T", Category: "c"}
	at, err := kernel.ParseTimestamp("2026-01-02T03:04:05Z")
	require.NoError(t, err)

	for name, c := range map[string]struct{ store, ours any }{
		"links": {gitstore.Links{Forward: []gitstore.Edge{edge}, Reverse: []gitstore.Edge{}, ForwardTitles: []gitstore.EndTitle{{Text: "x", OK: true}}},
			linksOf(gitstore.Links{Forward: []gitstore.Edge{edge}, Reverse: []gitstore.Edge{}, ForwardTitles: []gitstore.EndTitle{{Text: "x", OK: true}}})},
		"links without any": {gitstore.Links{}, linksOf(gitstore.Links{})},
		"diff": func() struct{ store, ours any } {
			d := &gitstore.RecordDiff{From: a.String(), To: b.String(),
				Added:      []gitstore.AddedRecord{{RecordRef: ref, Scope: &kernel.Scope{Paths: []string{"a.go"}}, Excerpt: "e", MoreLines: 2}},
				Changed:    []gitstore.RecordChange{{RecordRef: ref, Fields: []gitstore.FieldChange{{Field: "title", From: "a", To: "b"}, {Field: "tags", Added: []string{"x"}, Removed: []string{"y"}}, {Field: "body", Diff: "@@"}}, Log: []kernel.MutationEntry{{Op: "update", Agent: "a"}}}},
				Superseded: []gitstore.Supersession{{RecordRef: ref, By: "r2"}},
				Retired:    []gitstore.Retirement{{RecordRef: ref, Status: kernel.StatusRetired}},
				Links:      gitstore.LinkChanges{Added: []gitstore.Edge{edge}, Removed: []gitstore.Edge{}},
				Violations: []gitstore.DiffViolation{{ID: "r1", Path: "p", Rule: "r", Message: "m"}}}
			return struct{ store, ours any }{d, recordDiffOf(d)}
		}(),
		"empty diff": func() struct{ store, ours any } {
			d := &gitstore.RecordDiff{Added: []gitstore.AddedRecord{}, Changed: []gitstore.RecordChange{}}
			return struct{ store, ours any }{d, recordDiffOf(d)}
		}(),
		"sync": func() struct{ store, ours any } {
			r := &gitstore.SyncResult{Remote: "origin", Ref: "refs/heads/records", Fetched: a, Incoming: 3, Pushed: true, Attempts: 2,
				Merge: &gitstore.MergeOutcome{Kind: "merged", Commit: b, Base: a, Ours: a, Theirs: b, Cases: map[kernel.MergeCase]int{"both": 1},
					Records: []string{"x"}, Conflicts: []kernel.Conflict{{ID: "x", Field: "title", Kept: b.String()}}},
				Conflicts: []kernel.Conflict{{ID: "y", Field: "body", Kept: a.String()}}}
			return struct{ store, ours any }{r, syncResultOf(r)}
		}(),
		"sync of nothing": func() struct{ store, ours any } {
			r := &gitstore.SyncResult{Merge: &gitstore.MergeOutcome{Kind: "up-to-date"}}
			return struct{ store, ours any }{r, syncResultOf(r)}
		}(),
		"blame": func() struct{ store, ours any } {
			bl := &gitstore.Blame{ID: "r1", Type: "concept", Fields: []gitstore.FieldOrigin{{Field: "title", Commit: a.String(), Op: "create", Agent: "a", Time: at, Subject: "s"}}}
			return struct{ store, ours any }{bl, blameOf(bl)}
		}(),
		"reindex": func() struct{ store, ours any } {
			r := gitstore.ReindexResult{Records: 2, Links: 1, ForwardSources: 1, ReverseTargets: 1, Changed: true, State: gitstore.IndexDrift, Drift: []string{"x"}, Broken: []string{"y"}, Search: "current"}
			return struct{ store, ours any }{r, ReindexResult(r)}
		}(),
		"search hit": func() struct{ store, ours any } {
			h := gitstore.SearchHit{ID: "r1", Title: "T", Type: "concept", Category: "c", Status: kernel.StatusActive, Score: 1.5, Matched: []string{"title"},
				Snippet: search.Snippet{Text: "t", Highlights: [][2]int{{0, 1}}}}
			return struct{ store, ours any }{h, searchHitOf(h)}
		}(),
		"report": func() struct{ store, ours any } {
			r := &hooks.Report{Commits: 2, Violations: []hooks.Finding{{Commit: a.String(), Record: "r1", Path: "p", Rule: "r", Message: "m", Fix: "f", Severity: "error"}}, Warnings: []hooks.Finding{}}
			return struct{ store, ours any }{r, reportOf(r)}
		}(),
	} {
		want, err := json.Marshal(c.store)
		require.NoError(t, err, name)
		got, err := json.Marshal(c.ours)
		require.NoError(t, err, name)
		require.Equal(t, string(want), string(got), name)
	}
}

// TestReplayCommitIDsAreHex: a sync's replay names commits as git prints
// them, "" for none, as the rest of the sync's answer does.
func TestReplayCommitIDsAreHex(t *testing.T) {
	a := plumbing.NewHash("1111111111111111111111111111111111111111")
	r := syncResultOf(&gitstore.SyncResult{Replay: &gitstore.ReplayOutcome{Onto: a, Commit: a,
		Replayed: []gitstore.ReplayedCommit{{Original: a, Op: kernel.OpUpdate}},
		Kept:     []gitstore.KeptCommit{{Commit: a, Ref: "refs/records-unpublished/records/" + a.String(), Op: kernel.OpUpdate, Code: kernel.CodeConflict, Reason: "r"}}},
		Kept: []gitstore.KeptCommit{{Commit: a}}})
	data, err := json.Marshal(r)
	require.NoError(t, err)
	var got struct {
		Replay struct {
			Onto, Commit string
			Replayed     []struct{ Original, Commit string }
			Kept         []struct{ Commit string }
		}
		Kept []struct{ Commit string }
	}
	require.NoError(t, json.Unmarshal(data, &got), "%s", data)
	require.Equal(t, a.String(), got.Replay.Onto)
	require.Equal(t, a.String(), got.Replay.Commit)
	require.Equal(t, a.String(), got.Replay.Replayed[0].Original)
	require.Equal(t, "", got.Replay.Replayed[0].Commit, "the remote held its changes already")
	require.Equal(t, a.String(), got.Replay.Kept[0].Commit)
	require.Equal(t, a.String(), got.Kept[0].Commit)
}
