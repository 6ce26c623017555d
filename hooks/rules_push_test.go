package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPushHonoursTheKernelsPostcondition: the server judges a pushed commit
// by the kernel's CheckCommit, so what the CLI refuses to write cannot get
// in by a hand-made commit signed with a valid key either.
func TestPushHonoursTheKernelsPostcondition(t *testing.T) {
	t.Parallel()
	w := newWorld(t)

	// Break 11, field drift: the evidence says title, the commit also
	// flips authority.
	t.Run("update that changes a field its evidence does not name", func(t *testing.T) {
		dir := w.clone(t)
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			s = replace(t, s, "title: Token refresh", "title: Token refresh v2")
			s = replace(t, s, "authority: local", "authority: external")
			return appendLog(t, s, strings.Replace(updateEntry, "fields: [body]", "fields: [title]", 1))
		})
		commit(t, dir, w.key, handMsg("update(concept): Token refresh v2", "Record-Op: update", "Record-Id: "+w.concept,
			"Record-Agent: hand-editor", "Record-Format: 1", "Evidence-Fields: title"))
		requireRejected(t, push(t, dir, "records"), "op-matches", "update commit changes the authority of "+w.concept)
	})

	// Break 2, handle hijack: a new record under another type with the id
	// of an existing one, or claiming another record's id as its alias.
	// newFile writes, in dir, a new record id of type typ made from the
	// concept's file, changed by change.
	newFile := func(t *testing.T, dir, id, typ string, change func(string) string) {
		data, err := os.ReadFile(recordFile(t, dir, w.concept))
		require.NoError(t, err)
		s := strings.ReplaceAll(string(data), w.concept, id)
		s = replace(t, s, "type: concept", "type: "+typ)
		if change != nil {
			s = change(s)
		}
		path := filepath.Join(dir, "records", typ, idShard(id), id+".md")
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	}
	hijack := func(t *testing.T, id, typ string, change func(string) string) string {
		dir := w.clone(t)
		newFile(t, dir, id, typ, change)
		commit(t, dir, w.key, handMsg("create("+typ+"): impostor", "Record-Op: create", "Record-Id: "+id,
			"Record-Agent: mallory", "Record-Format: 1"))
		return dir
	}
	aliased := func(alias string) func(string) string {
		return func(s string) string { return replace(t, s, "created_at:", "aliases: ["+alias+"]\ncreated_at:") }
	}
	// Handles are unique on the tree the commit leaves: two records one
	// commit adds are held to each other as to the parent.
	t.Run("two new records of one commit with one id", func(t *testing.T) {
		dir := w.clone(t)
		newFile(t, dir, "rfc-1", "concept", nil)
		newFile(t, dir, "rfc-1", "decision", nil)
		commit(t, dir, w.key, handMsg("import(concept): twins", "Record-Op: create", "Record-Id: rfc-1", "Record-Id: rfc-1",
			"Record-Agent: mallory", "Record-Format: 1"))
		requireRejected(t, push(t, dir, "records"), "handle", "id rfc-1 is given to two records in one commit, a concept and a decision")
	})
	t.Run("a new record whose id another new record claims as alias", func(t *testing.T) {
		dir := w.clone(t)
		newFile(t, dir, "deploy-policy", "decision", nil)
		newFile(t, dir, "impostor-2", "concept", aliased("deploy-policy"))
		commit(t, dir, w.key, handMsg("create(concept): pair", "Record-Op: create", "Record-Id: deploy-policy", "Record-Id: impostor-2",
			"Record-Agent: mallory", "Record-Format: 1"))
		requireRejected(t, push(t, dir, "records"), "handle", "id deploy-policy is an alias record impostor-2 claims in the same commit")
	})
	t.Run("new record whose id another type holds", func(t *testing.T) {
		dir := hijack(t, w.concept, "raw", nil)
		requireRejected(t, push(t, dir, "records"), "handle", "id "+w.concept+" already names a concept record")
	})
	t.Run("new record claiming another record's id as alias", func(t *testing.T) {
		dir := hijack(t, "impostor-1", "concept", aliased(w.finding))
		requireRejected(t, push(t, dir, "records"), "handle", `alias "`+w.finding+`" is the id of record `+w.finding)
	})
}
