package root

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestCommandTable: each entry of the command table builds the command it
// is named for, and the table holds every command of the root once, so
// NewCmdRootFor finds by name exactly what NewCmdRoot would run.
func TestCommandTable(t *testing.T) {
	f := cmdutil.New(cmdutil.System())
	seen := map[string]bool{}
	for _, c := range commands {
		assert.Equal(t, c.name, c.build(f).Name())
		assert.False(t, seen[c.name], "%s twice", c.name)
		seen[c.name] = true
	}
	for _, c := range NewCmdRoot(f).Commands() {
		assert.True(t, seen[c.Name()], "%s is not in the table", c.Name())
		assert.Empty(t, c.Aliases, "%s: an alias would need a stand-in in commandNamed", c.Name())
	}
	assert.Len(t, NewCmdRoot(f).Commands(), len(commands))
}

// TestRootForRunsAsTheWholeTree: for every command's help, reads, errors,
// suggestions, the root's own help, the version and completion, running
// args on NewCmdRootFor's tree prints the same bytes with the same exit
// status as on the whole tree, and the tree holds one command when args
// name one (none for --version), every command otherwise.
func TestRootForRunsAsTheWholeTree(t *testing.T) {
	st := cmdtest.NewStore(t)
	id := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Token refresh", Aliases: []string{"auth/token-refresh"}})
	f, _, _, _ := st.Factory()
	all := len(NewCmdRoot(f).Commands())

	type tc struct {
		args []string
		size int // commands NewCmdRootFor builds under the root
	}
	cases := []tc{
		{[]string{"--version"}, 0}, {[]string{"-v"}, 0},
		{nil, all}, {[]string{"--help"}, all}, {[]string{"-h"}, all}, {[]string{"help"}, all},
		{[]string{"help", "show"}, all}, {[]string{"shwo", id}, all}, {[]string{"frobnicate"}, all},
		{[]string{"--json", "frobnicate"}, all}, {[]string{"--version", "--json"}, all},
		{[]string{"completion", "bash"}, all}, {[]string{cobra.ShellCompRequestCmd, "sh"}, all},
		{[]string{cobra.ShellCompRequestCmd, "show", id[:6]}, all},
		{[]string{"show", id}, 1}, {[]string{"show", "auth/token-refresh"}, 1}, {[]string{"show", id[:8]}, 1},
		{[]string{"--json", "show", id}, 1}, {[]string{"show", "--json", id}, 1},
		{[]string{"--color", "never", "show", id}, 1}, {[]string{"--color=never", "links", id}, 1},
		{[]string{"--color", "sometimes", "show", id}, 1}, {[]string{"show"}, 1},
		{[]string{"show", "--bogus", id}, 1}, {[]string{"show", "nosuchrecord"}, 1},
		{[]string{"--json", "show", "nosuchrecord"}, 1},
		{[]string{"list"}, 1}, {[]string{"links", id}, 1}, {[]string{"exec"}, 1},
		{[]string{"exec", "frobnicate"}, 1}, {[]string{"show", "--", id}, 1},
		{[]string{"--store", st.Dir, "show", "--help"}, 1},
	}
	// Every command's and subcommand's help.
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			p := append(append([]string(nil), path...), sub.Name())
			cases = append(cases, tc{append(append([]string(nil), p...), "--help"), 1})
			walk(sub, p)
		}
	}
	walk(NewCmdRoot(f), nil)

	for _, c := range cases {
		f1, _, out1, err1 := st.Factory()
		code1 := Run(f1, NewCmdRoot(f1), c.args)
		f2, _, out2, err2 := st.Factory()
		root := NewCmdRootFor(f2, c.args)
		size := 0
		for _, sub := range root.Commands() {
			if sub.Name() != "help" && sub.Name() != "completion" && sub.Name() != cobra.ShellCompRequestCmd {
				size++
			}
		}
		assert.Equal(t, c.size, size, "%q: commands built", c.args)
		code2 := Run(f2, root, c.args)
		assert.Equal(t, code1, code2, "%q: exit", c.args)
		assert.Equal(t, out1.String(), out2.String(), "%q: stdout", c.args)
		assert.Equal(t, err1.String(), err2.String(), "%q: stderr", c.args)
		if c.args != nil && len(c.args) > 1 && c.args[len(c.args)-1] == "--help" {
			require.NotEmpty(t, out1.String(), "%q", c.args)
		}
	}
}

// TestCommandNamedAsAmongEveryStandIn: commandNamed, which tries the
// arguments that name a command one stand-in at a time, finds what a root
// holding a stand-in for every command of the table finds, whatever the
// root's flags and their values (which may name commands too) around it.
func TestCommandNamedAsAmongEveryStandIn(t *testing.T) {
	name := func(b func(*cmdutil.Factory) *cobra.Command) string {
		if b == nil {
			return ""
		}
		return b(cmdutil.New(cmdutil.System())).Name()
	}
	vectors := [][]string{
		nil, {"show"}, {"show", "x"}, {"links", "show"}, {"--store", "show", "links", "x"}, {"--store=show", "links"},
		{"--json", "show", "x"}, {"-C", "list", "show"}, {"--color", "list", "show"}, {"--color=never", "list"},
		{"frobnicate", "show"}, {"--", "show"}, {"show", "--", "list"}, {"--store"}, {"--store", "show"},
		{"--json", "--store", "list", "--color", "show", "links"}, {"help", "show"}, {"completion", "bash"},
		{"-v", "show"}, {"--version"}, {"show", "show"}, {"", "show"}, {"-", "show"}, {"--bogus", "show"},
		{"--bogus", "list", "show"}, {"-x", "list", "show"}, {"list", "--store", "show"},
	}
	for _, args := range vectors {
		require.Equal(t, name(commandNamedAmong(args, commands)), name(commandNamed(args)), "%q", args)
	}
}
