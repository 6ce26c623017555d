package root

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// badInput is one command line that must be refused: the code it gets and
// the flag its error names ("" when what is wrong is an argument).
type badInput struct {
	args []string
	code kernel.Code
	flag string
}

// badInputs refuse bad input to every command (TestEveryCommandRefusesBadInput
// holds the table to the command tree). seed and prop are records.
func badInputs(missing, payload string) []badInput {
	create := func(extra ...string) []string {
		return append([]string{"create", "--type", "concept", "--title", "T", "--category", "c", "--body", "b", "--agent", "a"}, extra...)
	}
	relation := func(extra ...string) []string {
		return append([]string{"create", "--type", "relation", "--title", "T", "--category", "c", "--body", "b", "--agent", "a"}, extra...)
	}
	const (
		usage    = kernel.CodeUsage
		missingE = kernel.CodeMissingEvidence
		invalid  = kernel.CodeInvalidRecord
		notFound = kernel.CodeNotFound
	)
	return []badInput{
		// Parents refuse an unknown subcommand, as the root refuses an unknown command.
		{[]string{"frobnicate"}, usage, ""},
		{[]string{"hooks", "frobnicate"}, usage, ""},
		{[]string{"policy", "frob"}, usage, ""},
		{[]string{"exec", "frob"}, usage, ""},
		{[]string{"signers", "frob"}, usage, ""},
		{[]string{"bindings", "frob"}, usage, ""},
		{[]string{"hooks", "install", "extra"}, usage, ""},
		{[]string{"hooks", "uninstall", "extra"}, usage, ""},
		{[]string{"policy", "show", "extra"}, usage, ""},
		{[]string{"policy", "check", "a@b", "frob", "concept", "c"}, usage, ""},
		{[]string{"policy", "set", missing, "--rationale", "r", "--agent", "a"}, usage, ""},
		{[]string{"signers", "add", "bob", missing, "--rationale", "r", "--agent", "a"}, usage, ""},
		{[]string{"bindings", "set", missing, "--rationale", "r", "--agent", "a"}, usage, ""},
		// Global flags.
		{[]string{"--ref", "bad ref", "list"}, usage, "--ref"},
		{[]string{"--ref", "", "list"}, usage, "--ref"},
		{[]string{"--store", "", "list"}, usage, "--store"},
		{[]string{"--store", "/proc/no-store-here", "list"}, kernel.CodeNotAStore, "--store"},
		{[]string{"--color", "bogus", "list"}, usage, "--color"},
		// Reads and their filters.
		{[]string{"show", "nonexist"}, notFound, ""},
		{[]string{"list", "--type", "Bad Type"}, usage, "--type"},
		{[]string{"list", "--category", "Bad Cat"}, usage, "--category"},
		{[]string{"list", "--status", "bogus"}, usage, "--status"},
		{[]string{"search", "x", "--type", "Bad Type"}, usage, "--type"},
		{[]string{"search", "x", "--limit", "-1"}, usage, "--limit"},
		{[]string{"fresh", "nonexist"}, notFound, ""},
		{[]string{"fresh", "--record", "--agent", ""}, missingE, "--agent"},
		{[]string{"links"}, usage, ""},
		{[]string{"graph", "--format", "bogus"}, usage, "--format"},
		{[]string{"graph", "--depth", "0", "seed"}, usage, "--depth"},
		{[]string{"log", "--since-commit", "nonexist"}, notFound, "--since-commit"},
		{[]string{"log", "--format", "bogus"}, usage, "--format"},
		{[]string{"blame", "nonexist"}, notFound, ""},
		{[]string{"audit", "--since", "bogus"}, usage, "--since"},
		{[]string{"watch", "--since", "nonexist", "-n", "1"}, notFound, "--since"},
		{[]string{"watch", "--poll", "-1s", "-n", "1"}, usage, "--poll"},
		{[]string{"watch", "--format", "bogus"}, usage, "--format"},
		{[]string{"watch", "--poll", "soon"}, usage, "--poll"},
		{[]string{"log", "-n", "many"}, usage, "--max-count"},
		{[]string{"graph", "--depth"}, usage, "--depth"},
		{[]string{"diff", "records", "records", "--format", "bogus"}, usage, "--format"},
		{[]string{"diff", "nonexist", "records"}, notFound, ""},
		{[]string{"proposals", "--state", "bogus"}, usage, "--state"},
		{[]string{"conflicts", "nonexist"}, notFound, ""},
		{[]string{"inspect", "--bindings", "--at", "nonexist"}, notFound, "--at"},
		{[]string{"inspect", "--bindings", "--bindings-from", "nonexist"}, notFound, "--bindings-from"},
		{[]string{"inspect", "--bindings", "--bind", "a=b"}, usage, "--bind"},
		{[]string{"inspect"}, usage, "--bindings"},
		{[]string{"verify", "nonexist"}, notFound, ""},
		{[]string{"capabilities", "extra"}, usage, ""},
		{[]string{"export", filepath.Join(filepath.Dir(missing), "out"), "--format", "bogus"}, usage, "--format"},
		// Writes: each refusal names the flag that set the value.
		{create("--id", "Bad Id"), kernel.CodeInvalidID, "--id"},
		{create("--alias", "Bad Alias"), missingE, "--alias"},
		{create("--alias", "a/../../x"), missingE, "--alias"},
		{create("--link", "related:nonexist"), notFound, "--link"},
		{create("--link", "Bad Kind:seed"), missingE, "--link"},
		{create("--tag", ""), missingE, "--tag"},
		{create("--scope", ""), missingE, "--scope"},
		{create("--scope", "/etc/passwd"), missingE, "--scope"},
		{create("--ttl-seconds", "abc"), invalid, "--ttl-seconds"},
		{create("--ttl-seconds", "-5"), invalid, "--ttl-seconds"},
		{create("--expires-at", "soon"), invalid, "--expires-at"},
		{create("--kind", "bogus"), missingE, "--kind"},
		{create("--role", "bogus"), missingE, "--role"},
		{create("--authority", "bogus"), missingE, "--authority"},
		{create("--session", "a\nb"), invalid, "--session"},
		{create("--accepts", "x"), invalid, "--accepts"},
		{relation("--to", "seed", "--relation", "depends_on"), missingE, "--from"},
		{relation("--from", "seed", "--relation", "depends_on"), missingE, "--to"},
		{relation("--from", "seed", "--to", "prop"), missingE, "--relation"},
		{relation("--from", "seed", "--to", "prop", "--relation", "Bad Rel"), missingE, "--relation"},
		{relation("--from", "nonexist", "--to", "prop", "--relation", "depends_on"), notFound, "--from"},
		{[]string{"update", "seed", "--alias", "Bad Alias", "--agent", "a"}, missingE, "--alias"},
		{[]string{"update", "seed", "--tag", "", "--agent", "a"}, missingE, "--tag"},
		{[]string{"update", "seed", "--ttl-seconds", "abc", "--agent", "a"}, invalid, "--ttl-seconds"},
		{[]string{"update", "seed", "--scope", "", "--agent", "a"}, missingE, "--scope"},
		{[]string{"update", "nonexist", "--title", "x", "--agent", "a"}, notFound, ""},
		{[]string{"edit", "nonexist", "--agent", "a"}, notFound, ""},
		{[]string{"link", "seed", "--to", "prop", "--kind", "Bad Kind", "--agent", "a"}, missingE, "--kind"},
		{[]string{"link", "seed", "--to", "nonexist", "--agent", "a"}, notFound, "--to"},
		{[]string{"link", "seed", "--to", "", "--agent", "a"}, missingE, "--to"},
		{[]string{"link", "seed", "--to", "prop", "--label", "a\nb", "--agent", "a"}, invalid, "--label"},
		{[]string{"retire", "seed", "--rationale", "r", "--status", "bogus", "--agent", "a"}, missingE, "--status"},
		{[]string{"supersede", "seed", "nonexist", "--rationale", "r", "--agent", "a"}, notFound, ""},
		{[]string{"propose", "seed", "--proposal", "x", "--agent", "a"}, missingE, "--proposer"},
		{[]string{"apply", "seed", "--rationale", "r", "--agent", "a"}, missingE, "--proposer"},
		{[]string{"reject", "seed", "--reason", "r", "--agent", "a"}, missingE, "--proposer"},
		{[]string{"propose", "seed", "--proposer", "prop", "--agent", "a"}, missingE, "--proposal"},
		{[]string{"propose", "seed", "--proposer", "nonexist", "--proposal", "x", "--agent", "a"}, notFound, "--proposer"},
		{[]string{"apply", "seed", "--proposer", "nonexist", "--rationale", "r", "--agent", "a"}, notFound, "--proposer"},
		{[]string{"observe", "--extension", "github", "--title", "T", "--category", "c", "--payload-file", missing, "--agent", "a"}, usage, "--payload-file"},
		{[]string{"observe", "--extension", "github", "--external-id", "x", "--title", "T", "--category", "c", "--type", "Bad Type", "--payload-file", payload, "--agent", "a"}, invalid, "--type"},
		{[]string{"import", missing, "--agent", "a"}, usage, ""},
		{[]string{"import", filepath.Dir(missing), "--format", "bogus", "--agent", "a"}, usage, "--format"},
		{[]string{"compact", "--agent", "a"}, missingE, "--before"},
		{[]string{"compact", "--before", "bogus", "--agent", "a"}, usage, "--before"},
		{[]string{"compact", "--before", "30d", "--record", "nonexist", "--agent", "a"}, notFound, "--record"},
		{[]string{"migrate", "--agent", ""}, missingE, "--agent"},
		{[]string{"reindex", "extra"}, usage, ""},
		{[]string{"init", "extra"}, usage, ""},
		{[]string{"approve", "--op", "retire", "--evidence", "sha256:00"}, missingE, "--record"},
		{[]string{"approve", "--op", "frob", "--record", "seed", "--evidence", "sha256:00"}, usage, "--op"},
		{[]string{"approve", "--op", "retire", "--record", "seed", "--evidence", "sha256:00", "--tip", "nonexist"}, notFound, "--tip"},
		// Remotes.
		{[]string{"merge", "nonexist", "--agent", "a"}, notFound, ""},
		{[]string{"sync", "nonexist"}, kernel.CodeNotAStore, ""},
		{[]string{"pull", "nonexist"}, kernel.CodeNotAStore, ""},
		{[]string{"push", "nonexist"}, kernel.CodeNotAStore, ""},
		{[]string{"merge-driver", "a", "b"}, usage, ""},
		{[]string{"hook", "frob"}, usage, ""},
		// Execution records and the servers' command lines.
		{[]string{"exec", "start", "--kind", "bogus", "--title", "T", "--session", "s", "--agent", "a"}, usage, "--kind"},
		{[]string{"exec", "start", "--kind", "run", "--title", "T", "--agent", "a"}, missingE, "--session"},
		{[]string{"exec", "start", "--kind", "run", "--title", "T", "--session", "s", "--id", "Bad Id", "--agent", "a"}, kernel.CodeInvalidID, "--id"},
		{[]string{"exec", "start", "--kind", "child_run", "--title", "T", "--session", "s", "--parent-job", "no-such-run", "--agent", "a"}, kernel.CodeNotFound, "--parent-job"},
		{[]string{"exec", "list"}, usage, "--owner"},
		{[]string{"exec", "await", "nonexist", "--session", "s"}, notFound, ""},
		{[]string{"exec", "await", "seed", "--session", "s", "--state", "bogus"}, usage, "--state"},
		{[]string{"exec", "cancel", "nonexist", "--session", "s", "--agent", "a"}, notFound, ""},
		{[]string{"exec", "close", "seed", "--session", "s", "--state", "bogus", "--agent", "a"}, usage, "--state"},
		{[]string{"exec", "close", "nonexist", "--session", "s", "--agent", "a"}, notFound, ""},
		{[]string{"exec", "end-run", "nonexist", "--session", "s", "--agent", "a"}, notFound, ""},
		{[]string{"exec", "end-session", "--session", "s", "--agent", "a"}, usage, "--terminate"},
		{[]string{"exec", "retire-sandbox", "nonexist", "--reason", "r", "--agent", "a"}, notFound, ""},
		{[]string{"continue"}, usage, "--owner"},
		{[]string{"mcp", "extra"}, usage, ""},
		{[]string{"serve", "extra"}, usage, ""},
		{[]string{"contract", "create", "extra"}, usage, ""},
	}
}

// TestEveryCommandRefusesBadInput: bad input to any command is refused
// with a code (never exit 0, never an uncoded error), the exit status that
// code documents, the JSON envelope, a message that names the flag to fix
// when a flag gave the value (and "flag" saying which), and nothing
// written. Every command of the tree has a case here.
func TestEveryCommandRefusesBadInput(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	for _, id := range []string{"seed", "prop"} {
		mustRec(t, dir, "create", "--id", id, "--type", "concept", "--title", id, "--category", "c", "--body", "b", "--agent", "a")
	}
	missing := filepath.Join(t.TempDir(), "no-such-file")
	payload := filepath.Join(t.TempDir(), "payload.json")
	require.NoError(t, os.WriteFile(payload, []byte(`{"number": 42}`), 0o644))
	cases := badInputs(missing, payload)
	for _, c := range cases {
		before := stateOf(t, dir)
		r := rec(t, dir, append([]string{"--json"}, c.args...)...)
		e := requireError(t, r, string(c.code), cmdutil.ExitCode(c.code))
		if c.flag != "" {
			assert.Equal(t, c.flag, e["flag"], "%q: the flag to fix", c.args)
			assert.Contains(t, e["message"], c.flag, "%q: the message names the flag", c.args)
		}
		assert.Equal(t, before, stateOf(t, dir), "%q wrote nothing", c.args)
	}

	// Every command has a case: a new command gets one here too.
	f, _, _, _ := cmdtest.NewRepo(t).Factory()
	tree := NewCmdRoot(f)
	covered := map[string]bool{}
	for _, c := range cases {
		covered[commandOf(tree, c.args)] = true
	}
	var uncovered []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if path := strings.TrimPrefix(sub.CommandPath(), "git-records "); sub.Name() != "help" && sub.Name() != "completion" && !covered[path] {
				uncovered = append(uncovered, path)
			}
			walk(sub)
		}
	}
	walk(tree)
	slices.Sort(uncovered)
	assert.Empty(t, uncovered, "commands without a bad-input case")
}

// commandOf is the path of the command of root that args run, global
// flags and their values skipped.
func commandOf(root *cobra.Command, args []string) string {
	var path []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if slices.Contains([]string{"--ref", "--store", "--color"}, a) {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") || len(path) == 2 {
			break
		}
		path = append(path, a)
	}
	if c, _, err := root.Find(path); err == nil && c != root {
		return strings.TrimPrefix(c.CommandPath(), "git-records ")
	}
	return strings.Join(path, " ")
}

// TestUncodedErrorsAreInternal: what a command fails with that carries no
// code is INTERNAL (exit 70), and so is a panic, with its trace on stderr;
// cobra's own refusals (flags, arguments) stay USAGE (exit 2).
func TestUncodedErrorsAreInternal(t *testing.T) {
	st := cmdtest.NewRepo(t)
	run := func(c *cobra.Command, args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, c, args...)
	}
	failing := &cobra.Command{Use: "failing", RunE: func(*cobra.Command, []string) error { return filepath.ErrBadPattern }}
	e := run(failing, "--json").Error(t, kernel.CodeInternal, cmdutil.ExitInternal)
	assert.Equal(t, filepath.ErrBadPattern.Error(), e["message"])

	panicking := &cobra.Command{Use: "panicking", RunE: func(*cobra.Command, []string) error { panic("boom") }}
	r := run(panicking, "--json")
	r.Error(t, kernel.CodeInternal, cmdutil.ExitInternal)
	assert.Contains(t, r.Stderr, "panic: boom")
	assert.Contains(t, r.Stderr, "badinput_test.go", "the trace says where")

	strict := &cobra.Command{Use: "strict", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }}
	run(strict, "--json", "stray").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	run(strict, "--json", "--bogus").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)

	// A parent without a subcommand prints its help and succeeds.
	parent := &cobra.Command{Use: "parent"}
	parent.AddCommand(&cobra.Command{Use: "child", RunE: func(*cobra.Command, []string) error { return nil }})
	r = run(parent)
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, "child")
	e = run(parent, "chidl", "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Contains(t, e["message"], `unknown command "chidl" for "git-records parent": one of child; did you mean child?`)
}

// TestContractRefusesMalformedFreshness: a request's expires_at or
// ttl_seconds that cannot be read is refused as it is decoded, in the
// contract's terms (MISSING_EVIDENCE, the store's INVALID_RECORD in
// store_code) and naming the field, as before the kernel's inputs were
// typed; nothing is written.
func TestContractRefusesMalformedFreshness(t *testing.T) {
	store := t.TempDir()
	for field, value := range map[string]string{"ttl_seconds": `"abc"`, "expires_at": `"soon"`} {
		r := contractCall(t, store, "create", `{"input":{"type":"concept","title":"T","category":"c","body":"b","provenance":{"agent":"a"},"`+field+`":`+value+`}}`)
		e := requireError(t, r, "MISSING_EVIDENCE", cmdutil.ExitRefused)
		assert.Equal(t, "INVALID_RECORD", e["store_code"])
		assert.Equal(t, field, e["field"])
	}
	assert.Equal(t, map[string]any{"result": []any{}}, jsonOf[map[string]any](t,
		contractCall(t, store, "list-by-type", `{"type":"concept"}`)), "no record was created")
}
