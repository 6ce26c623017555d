package hooks_test

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyRefusesAMalformedTree: verify diffs and looks up trees by
// walking their bytes in place, never decoded. A signed commit whose
// record shard tree has a damaged entry after the good ones (its object
// id cut short, or a mode that is not octal) is refused, never read as
// the good entries alone; the same commit with the tree whole passes.
func TestVerifyRefusesAMalformedTree(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	tip := revParse(t, dir, "HEAD")
	// A valid hand-written create, then the same commit with its shard
	// tree damaged.
	const id = "shape-1"
	rel, msg, whole := handCreate(t, w, dir, id)
	rep := verifyJSON(t, dir, 0, tip+".."+whole)
	require.True(t, rep.OK, "the commit with its tree whole is valid: %+v", rep.Violations)
	parts := strings.Split(rel, "/")

	// treeBytes is the raw object of a listing (git ls-tree's lines).
	treeBytes := func(listing string) string {
		var b strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(listing), "\n") {
			meta, name, ok := strings.Cut(line, "\t")
			require.True(t, ok, line)
			f := strings.Fields(meta) // mode type hash
			raw, err := hex.DecodeString(f[2])
			require.NoError(t, err)
			mode := strings.TrimPrefix(f[0], "0")
			b.WriteString(mode + " " + name + "\x00" + string(raw))
		}
		return b.String()
	}
	// commitWith replaces the shard tree with raw (written as it is) and
	// signs a commit of the tree above it on tip.
	commitWith := func(raw string) string {
		r := run(t, dir, raw, nil, "git", "hash-object", "-t", "tree", "--literally", "-w", "--stdin")
		require.Equal(t, 0, r.code, "%s", r)
		h := strings.TrimSpace(r.stdout)
		for depth := 2; depth >= 0; depth-- {
			path := strings.Join(parts[:depth], "/")
			listing := git(t, dir, "ls-tree", whole+":"+path)
			if depth == 0 {
				listing = git(t, dir, "ls-tree", whole+"^{tree}")
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(listing), "\n") {
				if !strings.HasSuffix(l, "\t"+parts[depth]) {
					lines = append(lines, l)
				}
			}
			lines = append(lines, "040000 tree "+h+"\t"+parts[depth])
			r := run(t, dir, strings.Join(lines, "\n")+"\n", nil, "git", "mktree", "--missing")
			require.Equal(t, 0, r.code, "%s", r)
			h = strings.TrimSpace(r.stdout)
		}
		r = run(t, dir, msg, nil, "git", "-c", "gpg.format=ssh", "-c", "user.signingkey="+w.key, "commit-tree", "-S", "-p", tip, h)
		require.Equal(t, 0, r.code, "%s", r)
		return strings.TrimSpace(r.stdout)
	}

	good := treeBytes(git(t, dir, "ls-tree", whole+":"+strings.Join(parts[:3], "/")))
	require.Equal(t, git(t, dir, "rev-parse", whole+":"+strings.Join(parts[:3], "/")), git(t, dir, "rev-parse", commitWith(good)+":"+strings.Join(parts[:3], "/")),
		"the tree bytes rebuilt are the shard tree's")

	// Git reads a tree by its order (a lookup stops at the first name past
	// the one it looks for, and takes the first of two alike), and fsck
	// refuses a name twice or names out of order: verify must not judge a
	// tree git reads differently.
	other := strings.Repeat("\x02", 20)
	for name, bad := range map[string]string{
		"an object id cut short":             good + "100644 zz-after.md\x00" + strings.Repeat("\x01", 12),
		"a mode that is not octal":           good + "10064x zz-after.md\x00" + strings.Repeat("\x01", 20),
		"a name twice":                       good + good,
		"a name twice, other blob":           good + "100644 " + id + ".md\x00" + other,
		"names out of order":                 good + "100644 0-before.md\x00" + other,
		"a file and a directory of one name": good + "40000 " + id + ".md\x00" + other,
	} {
		t.Run(name, func(t *testing.T) {
			forged := commitWith(bad)
			r := rec(t, dir, "--json", "verify", tip+".."+forged)
			require.NotEqual(t, 0, r.code, "a commit with a malformed tree must not verify:\n%s", r)
			assert.NotContains(t, r.stdout, `"ok": true`, "%s", r)
			assert.Contains(t, r.stdout+r.stderr, "malformed tree", "%s", r)
		})
	}
}

// handCreate commits and signs a valid hand-written create in dir: a copy
// of w's concept record under id. It returns the record's path, the commit
// message and the commit.
func handCreate(t *testing.T, w *world, dir, id string) (rel, msg, commitHash string) {
	t.Helper()
	data, err := os.ReadFile(recordFile(t, dir, w.concept))
	require.NoError(t, err)
	body := strings.ReplaceAll(string(data), w.concept, id)
	body = replace(t, body, "title: Token refresh", "title: Record "+id)
	rel = "records/concept/" + idShard(id) + "/" + id + ".md"
	require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644))
	msg = handMsg("create(concept): Record "+id, "Record-Op: create", "Record-Id: "+id,
		"Record-Agent: mallory", "Record-Format: 1")
	return rel, msg, commit(t, dir, w.key, msg)
}
