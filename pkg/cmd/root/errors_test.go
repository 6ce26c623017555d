package root

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/storetest"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
)

// bigBody is one byte over the 1 MiB body limit.
func bigBody(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.md")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("a", 1<<20+1)), 0o644))
	return path
}

// TestRefusedOpsWriteNothing: what only the command line shows of a refused
// op. Each bad input is refused with its code, in the JSON envelope with
// --json (wherever --json stands) and on stderr without, with the documented
// exit code (1 refused, 2 usage), and leaves the ref, its reflog and the
// object store as they were. The cases here are the command line's own:
// flag and argument parsing, reading the body from a file or stdin, and one
// refusal each from the write path and from a read. Every input rule behind
// them (evidence, ids, aliases, types, categories, sizes, handles, the
// lifecycle) is refused in-process, case by case, by gitstore's
// TestRefusedOpsWriteNothing, through the same gated write path.
func TestRefusedOpsWriteNothing(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	for _, args := range [][]string{{"--id", "seed-concept", "--type", "concept"}, {"--id", "seed-raw", "--type", "raw"}} {
		mustRec(t, dir, append([]string{"create", "--title", "Seed", "--category", "seed", "--body", "seed body", "--agent", "seeder"}, args...)...)
	}
	big := bigBody(t)
	create := func(extra ...string) []string {
		args := map[string]string{"--type": "concept", "--title": "T", "--category": "c", "--body": "b", "--agent": "a"}
		var out []string
		for i := 0; i < len(extra); i += 2 {
			if extra[i+1] == "\x00omit" {
				delete(args, extra[i])
			} else {
				args[extra[i]] = extra[i+1]
			}
		}
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out = append(out, "create")
		for _, k := range keys {
			out = append(out, k, args[k])
		}
		return out
	}
	const omit = "\x00omit"
	cases := []struct {
		name  string
		args  []string
		stdin string
		code  string
		exit  int
	}{
		// The write path's refusal as the command line reports it.
		{"create without --agent", create("--agent", omit), "", "MISSING_EVIDENCE", cmdutil.ExitRefused},
		// A read's.
		{"show of a missing handle", []string{"show", "no-such-record"}, "", "NOT_FOUND", cmdutil.ExitRefused},
		// The body as the command line reads it reaches the size limit.
		{"body over 1 MiB from --body-file", create("--body", omit, "--body-file", big), "", "INVALID_RECORD", cmdutil.ExitRefused},
		{"body over 1 MiB from stdin", append(create("--body", omit), "-"), strings.Repeat("b", 1<<20+1), "INVALID_RECORD", cmdutil.ExitRefused},
		// Flags and arguments.
		{"ttl that is not a number", create("--ttl-seconds", "soon"), "", "INVALID_RECORD", cmdutil.ExitRefused},
		{"body given twice", append(create(), "-"), "x", "USAGE", cmdutil.ExitUsage},
		{"missing --body-file", create("--body", omit, "--body-file", "/nonexistent/body.md"), "", "USAGE", cmdutil.ExitUsage},
		{"link without --to", []string{"link", "seed-raw", "--agent", "a"}, "", "USAGE", cmdutil.ExitUsage},
		{"unknown flag", append(create(), "--bogus"), "", "USAGE", cmdutil.ExitUsage},
		{"unknown global flag", []string{"--bogus", "list"}, "", "USAGE", cmdutil.ExitUsage},
		{"unknown command", []string{"frobnicate"}, "", "USAGE", cmdutil.ExitUsage},
		{"too many arguments", []string{"show", "seed-raw", "seed-concept"}, "", "USAGE", cmdutil.ExitUsage},
		{"stray argument to create", append(create(), "body-text"), "", "USAGE", cmdutil.ExitUsage},
		{"bad ref name", []string{"--ref", "refs/heads/../x", "list"}, "", "USAGE", cmdutil.ExitUsage},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := stateOf(t, dir)
			// --json counts wherever it is, even after the flag that fails.
			args := append([]string{"--json"}, c.args...)
			if i%2 == 1 {
				args = append(c.args[:len(c.args):len(c.args)], "--json")
			}
			r := recIn(t, dir, c.stdin, args...)
			requireError(t, r, c.code, c.exit)
			assert.Equal(t, before, stateOf(t, dir), "a refused op writes nothing")

			// The same without --json: nothing on stdout, the code on stderr.
			r = recIn(t, dir, c.stdin, c.args...)
			assert.Equal(t, c.exit, r.Code, "%s", r)
			assert.Empty(t, r.Stdout)
			assert.Contains(t, r.Stderr, "git-records: "+c.code+": ")
			assert.Equal(t, before, stateOf(t, dir), "a refused op writes nothing")
		})
	}
}

// TestTrailerInjection: free text on the command line that tries to forge a
// trailer is escaped (or refused, writing nothing) on its way through each
// op's flags, so that git, reading the commit the way reviewers and hooks
// do, sees exactly the trailers the op wrote. One forgery per op here, for
// the flags; every forgery in every op's free-text inputs, git's reading of
// each commit, the store's history and verify are hooks' TestTrailerInjection
// (in-process, through the same gated write path).
func TestTrailerInjection(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	mustRec(t, dir, "create", "--id", "seed-raw", "--type", "raw", "--title", "Seed", "--category", "c", "--body", "b", "--agent", "a")
	mustRec(t, dir, "create", "--id", "victim", "--type", "concept", "--title", "Victim", "--category", "c", "--body", "b", "--agent", "a")
	mustRec(t, dir, "create", "--id", "prop", "--type", "concept", "--title", "Prop", "--category", "c", "--body", "b", "--agent", "a")
	mustRec(t, dir, "propose", "victim", "--proposer", "prop", "--proposal", "p", "--agent", "a")
	const v = "x\r\n\nRecord-Op: apply\nRecord-Id: forged\n---"
	var wantOps []string // ops of the commits below, oldest first
	for _, c := range []struct {
		op   string
		args []string
	}{
		{"create", []string{"create", "--type", "concept", "--title", v, "--category", "c", "--body", "b", "--note", v, "--agent", "a"}},
		{"update", []string{"update", "victim", "--title", "t " + v, "--note", v, "--agent", "a"}},
		{"propose", []string{"propose", "victim", "--proposer", "prop", "--proposal", v, "--note", v, "--agent", "a"}},
		{"apply", []string{"apply", "victim", "--proposer", "prop", "--rationale", v, "--body", "new " + v, "--agent", "a"}},
		{"propose", []string{"propose", "victim", "--proposer", "prop", "--proposal", "again", "--agent", "a"}},
		{"reject", []string{"reject", "victim", "--proposer", "prop", "--reason", v, "--agent", "a"}},
		{"supersede", []string{"supersede", "victim", "seed-raw", "--rationale", v, "--note", v, "--agent", "a"}},
	} {
		mustRec(t, dir, append([]string{"--json"}, c.args...)...)
		wantOps = append(wantOps, c.op)
		got := parsedTrailers(t, dir, "refs/heads/records")
		assert.Equal(t, []string{c.op}, trailerValues(got, "Record-Op"),
			"git interpret-trailers --parse of %q shows a forged op:\n%s", c.args, strings.Join(got, "\n"))
		assert.NotContains(t, trailerValues(got, "Record-Id"), "forged", "%q", c.args)
		for _, line := range got {
			assert.NotContains(t, line, "\r", "a trailer line carries a raw CR")
		}
	}
	// A forged line in a single-line input is refused, in the envelope,
	// writing nothing.
	before := stateOf(t, dir)
	r := rec(t, dir, "--json", "create", "--type", "concept", "--title", "t", "--category", "c", "--body", "b", "--session", v, "--agent", "a")
	requireError(t, r, "INVALID_RECORD", cmdutil.ExitRefused)
	assert.Equal(t, before, stateOf(t, dir), "the refused create wrote nothing")

	// git log's own trailer reading agrees, commit by commit, and so does
	// git-records reading its history back.
	got := opsOnBranch(t, dir)
	require.GreaterOrEqual(t, len(got), len(wantOps))
	slices.Reverse(wantOps)
	assert.Equal(t, wantOps, got[:len(wantOps)])
	var logged []string
	for _, e := range mustJSON[[]obj](t, dir, "log", "-n", fmt.Sprint(len(wantOps))) {
		logged = append(logged, e["op"].(string))
	}
	assert.Equal(t, wantOps, logged)
	storetest.FsckClean(t, dir)
	verifyAll(t, dir, 0)
}

// TestSetupErrors: what is missing around the store has its own codes and
// exit codes, and nothing is written.
func TestSetupErrors(t *testing.T) {
	// Not parallel: it moves HOME, which every git the other tests run reads.
	create := []string{"--json", "create", "--type", "concept", "--title", "t", "--category", "c", "--body", "b", "--agent", "a"}

	// a repository nobody ran init in, and no key to sign with
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", dir)
	e := requireError(t, rec(t, dir, create...), "NOT_INITIALIZED", cmdutil.ExitSetup)
	assert.Contains(t, e["message"], "git records init --generate-key", "the message says what to do")
	assert.Empty(t, tip(t, dir))
	assert.Equal(t, []any{}, jsonOf[[]any](t, rec(t, dir, "--json", "list")), "reading an empty store is fine")

	// no identity anywhere: init cannot name the key's principal
	emptyHome := t.TempDir()
	t.Run("no identity", func(t *testing.T) {
		t.Setenv("HOME", emptyHome)
		t.Setenv("XDG_CONFIG_HOME", filepath.Join(emptyHome, ".config"))
		requireError(t, rec(t, dir, "--json", "init", "--generate-key"), "USAGE", cmdutil.ExitUsage)
	})
	assert.Empty(t, tip(t, dir))

	// a broken ref is reported, never written over
	dir = newRepo(t)
	ref := filepath.Join(dir, ".git", "refs", "heads", "records")
	require.NoError(t, os.WriteFile(ref, []byte("not a hash\n"), 0o644))
	before := stateOf(t, dir)
	e = requireError(t, rec(t, dir, create...), "INTERNAL", cmdutil.ExitInternal)
	assert.Contains(t, e["message"], "git update-ref", "the message says how to restore it")
	requireError(t, rec(t, dir, "--json", "list"), "INTERNAL", cmdutil.ExitInternal)
	assert.Equal(t, before, stateOf(t, dir))
}

// TestErrorsNameTheFlagToSet: an error about an input names the flag (or
// variable) that sets it, not the contract's field, and says which in
// "flag"; a malformed value is INVALID_RECORD or USAGE, a missing one
// MISSING_EVIDENCE.
func TestErrorsNameTheFlagToSet(t *testing.T) {
	dir := newRepo(t)
	id := createID(t, dir, "--type", "concept", "--title", "T", "--category", "a", "--agent", "a", "--body", "b")
	t.Setenv("GIT_RECORDS_AGENT", "")
	cases := []struct {
		args          []string
		code, flag    string
		message, lose string
	}{
		{[]string{"create", "--type", "concept", "--title", "T", "--category", "a", "--body", "b"},
			"MISSING_EVIDENCE", "--agent", "--agent (or GIT_RECORDS_AGENT) is required", "provenance.agent"},
		{[]string{"update", id, "--title", "U"},
			"MISSING_EVIDENCE", "--agent", "--agent (or GIT_RECORDS_AGENT) is required", "evidence.agent"},
		{[]string{"retire", id, "--agent", "a"},
			"MISSING_EVIDENCE", "--rationale", "--rationale is required", "evidence.rationale"},
		{[]string{"create", "--type", "concept", "--title", "T", "--category", "Not Ok", "--body", "b", "--agent", "a"},
			"INVALID_RECORD", "--category", `--category "Not Ok" is malformed`, ""},
		{[]string{"create", "--type", "concpet", "--title", "T", "--category", "a", "--body", "b", "--agent", "a"},
			"INVALID_RECORD", "--type", `--type "concpet" is unknown`, ""},
		{[]string{"create", "--type", "concept", "--title", "T", "--category", "a", "--body", "b", "--agent", "a", "--expires-at", "soon"},
			"INVALID_RECORD", "--expires-at", "--expires-at:", ""},
		{[]string{"list", "--status", "bogus"}, "USAGE", "--status", `--status "bogus" is not one of active, implemented, retired`, ""},
		{[]string{"list", "--kind", "thing"}, "USAGE", "--kind", `--kind "thing" is not one of entity`, ""},
	}
	for _, c := range cases {
		before := stateOf(t, dir)
		r := rec(t, dir, append([]string{"--json"}, c.args...)...)
		e := requireError(t, r, c.code, cmdutil.ExitCode(kernel.Code(c.code)))
		assert.Equal(t, c.flag, e["flag"], "%v", c.args)
		assert.Contains(t, e["message"], c.message, "%v", c.args)
		if c.lose != "" {
			assert.NotContains(t, e["message"], c.lose, "%v: the CLI speaks of flags, not contract fields", c.args)
		}
		assert.Equal(t, before, stateOf(t, dir), "%v wrote nothing", c.args)
	}

	// An unknown link kind is stored as the contract asks (§2.2), with a note.
	r := rec(t, dir, "link", id, "--to", id, "--kind", "relatd", "--agent", "a")
	require.Equal(t, 0, r.Code, "%s", r)
	assert.Contains(t, r.Stderr, `link kind "relatd" is not one the store gives a meaning`)
	r = rec(t, dir, "link", id, "--to", id, "--kind", "refines", "--agent", "a")
	require.Equal(t, 0, r.Code, "%s", r)
	assert.Empty(t, r.Stderr, "a known kind needs no note")
}
