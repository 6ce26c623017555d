// Package root is the git-records command: every command registered under
// it, the global flags (cmdutil), grouped help and completion.
package root

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmd/agent/capabilities"
	"github.com/git-records/git-records/pkg/cmd/agent/contract"
	"github.com/git-records/git-records/pkg/cmd/agent/mcp"
	execcmd "github.com/git-records/git-records/pkg/cmd/exec"
	"github.com/git-records/git-records/pkg/cmd/exec/await"
	"github.com/git-records/git-records/pkg/cmd/exec/continuecmd"
	"github.com/git-records/git-records/pkg/cmd/exec/endrun"
	"github.com/git-records/git-records/pkg/cmd/exec/endsession"
	execlist "github.com/git-records/git-records/pkg/cmd/exec/list"
	"github.com/git-records/git-records/pkg/cmd/exec/manage"
	"github.com/git-records/git-records/pkg/cmd/exec/retiresandbox"
	"github.com/git-records/git-records/pkg/cmd/exec/start"
	"github.com/git-records/git-records/pkg/cmd/extension/bindings"
	"github.com/git-records/git-records/pkg/cmd/extension/inspect"
	"github.com/git-records/git-records/pkg/cmd/history/audit"
	"github.com/git-records/git-records/pkg/cmd/history/blame"
	"github.com/git-records/git-records/pkg/cmd/history/diff"
	logcmd "github.com/git-records/git-records/pkg/cmd/history/log"
	"github.com/git-records/git-records/pkg/cmd/history/watch"
	"github.com/git-records/git-records/pkg/cmd/link/graph"
	linkcmd "github.com/git-records/git-records/pkg/cmd/link/link"
	"github.com/git-records/git-records/pkg/cmd/link/links"
	"github.com/git-records/git-records/pkg/cmd/proposal/apply"
	"github.com/git-records/git-records/pkg/cmd/proposal/conflicts"
	"github.com/git-records/git-records/pkg/cmd/proposal/proposals"
	"github.com/git-records/git-records/pkg/cmd/proposal/propose"
	"github.com/git-records/git-records/pkg/cmd/proposal/reject"
	"github.com/git-records/git-records/pkg/cmd/record/create"
	"github.com/git-records/git-records/pkg/cmd/record/edit"
	"github.com/git-records/git-records/pkg/cmd/record/fresh"
	"github.com/git-records/git-records/pkg/cmd/record/list"
	"github.com/git-records/git-records/pkg/cmd/record/observe"
	"github.com/git-records/git-records/pkg/cmd/record/retire"
	"github.com/git-records/git-records/pkg/cmd/record/search"
	"github.com/git-records/git-records/pkg/cmd/record/show"
	"github.com/git-records/git-records/pkg/cmd/record/supersede"
	"github.com/git-records/git-records/pkg/cmd/record/update"
	"github.com/git-records/git-records/pkg/cmd/remote/merge"
	"github.com/git-records/git-records/pkg/cmd/remote/mergedriver"
	synccmd "github.com/git-records/git-records/pkg/cmd/remote/sync"
	"github.com/git-records/git-records/pkg/cmd/store/compact"
	"github.com/git-records/git-records/pkg/cmd/store/export"
	importcmd "github.com/git-records/git-records/pkg/cmd/store/import"
	initcmd "github.com/git-records/git-records/pkg/cmd/store/init"
	"github.com/git-records/git-records/pkg/cmd/store/migrate"
	"github.com/git-records/git-records/pkg/cmd/store/reindex"
	"github.com/git-records/git-records/pkg/cmd/store/serve"
	"github.com/git-records/git-records/pkg/cmd/store/verify"
	"github.com/git-records/git-records/pkg/cmd/trust/approve"
	"github.com/git-records/git-records/pkg/cmd/trust/hook"
	"github.com/git-records/git-records/pkg/cmd/trust/hooks"
	"github.com/git-records/git-records/pkg/cmd/trust/policy"
	"github.com/git-records/git-records/pkg/cmd/trust/signers"
	"github.com/git-records/git-records/pkg/cmdutil"
)

// NewCmdRoot is the git-records command with every command under it. more
// are further commands (tests add probes).
func NewCmdRoot(f *cmdutil.Factory, more ...*cobra.Command) *cobra.Command {
	root := newRoot(f)
	for _, c := range commands {
		root.AddCommand(c.build(f))
	}
	root.AddCommand(more...)
	for _, extra := range extraCommands {
		root.AddCommand(extra(f))
	}
	groupHelp(root)
	return root
}

// NewCmdRootFor is the root for running args: the same as NewCmdRoot,
// except that when args name one command only that command is built
// under it. Building all ~50 commands (their flags above all) was about a
// tenth of a show's or a --version's CPU, and a command never looks at
// its siblings while it runs. Whatever may show other commands gets the
// whole tree: the root's own help (no command, help, -h), an unknown
// command (its suggestions), completion, and the man-page generator.
// `git-records --version` alone builds none.
func NewCmdRootFor(f *cmdutil.Factory, args []string) *cobra.Command {
	if len(extraCommands) > 0 || completing(args) {
		return NewCmdRoot(f)
	}
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		root := newRoot(f)
		groupHelp(root)
		return root
	}
	build := commandNamed(args)
	if build == nil {
		return NewCmdRoot(f)
	}
	root := newRoot(f)
	// What runs is a command of the table, never cobra's completion
	// command (not in the table: its args get the whole tree), which
	// Execute would otherwise build each time with its four shells' help.
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(build(f))
	groupHelp(root)
	return root
}

// commandNamed is the constructor of the command args run, found the way
// cobra finds it (the root's flags skipped with their values); nil when
// args run no command of the table or cobra would refuse them.
//
// cobra takes the first argument left once the root's flags and their
// values are skipped, and looks it up among the root's commands. So a
// stand-in is found in a root holding it alone exactly when it is that
// argument: the arguments that name a command of the table are tried in
// turn, each as the one stand-in, rather than building a stand-in for
// every command of the table (about 10 page faults of every process).
func commandNamed(args []string) func(*cmdutil.Factory) *cobra.Command {
	if cobra.EnablePrefixMatching || cobra.EnableCaseInsensitive {
		return commandNamedAmong(args, commands) // another argument could match: every stand-in
	}
	probe := newRoot(new(cmdutil.Factory))
	for i, a := range args {
		c, ok := tableCommand(a)
		if !ok || slices.Contains(args[:i], a) {
			continue
		}
		standIn := &cobra.Command{Use: c.name, Run: func(*cobra.Command, []string) {}}
		probe.AddCommand(standIn)
		found, _, err := probe.Find(args)
		if err == nil && found == standIn {
			return c.build
		}
		probe.RemoveCommand(standIn)
	}
	return nil
}

// tableCommand is the command of the table named name.
func tableCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandNamedAmong is commandNamed over a root holding a stand-in for
// each of cmds.
func commandNamedAmong(args []string, cmds []command) func(*cmdutil.Factory) *cobra.Command {
	probe := newRoot(new(cmdutil.Factory))
	byName := make(map[string]func(*cmdutil.Factory) *cobra.Command, len(cmds))
	for _, c := range cmds {
		byName[c.name] = c.build
		probe.AddCommand(&cobra.Command{Use: c.name, Run: func(*cobra.Command, []string) {}})
	}
	found, _, err := probe.Find(args)
	if err != nil || found == probe || found.Parent() != probe {
		return nil
	}
	return byName[found.Name()]
}

// newRoot is the root command alone, with the global flags.
func newRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "git-records",
		Short: "Signed, linked knowledge records on a git branch",
		Long: `git-records keeps knowledge notes, review findings and decisions as Markdown
records on a git branch (refs/heads/records). Every change is one signed commit
whose trailers carry its evidence; [[wikilinks]] and links form a graph.

Run it as "git records <command>" anywhere inside a repository (worktrees and
bare repositories too), or on a standalone store with --store DIR.`,
		Version: cmdutil.Version(),
	}
	f.BindGlobalFlags(root)
	return root
}

// command is one command under the root: its name (cobra's Name(), which
// TestCommandTable holds to what build returns) and its constructor.
type command struct {
	name  string
	build func(*cmdutil.Factory) *cobra.Command
}

// commands are the commands under the root, in the order they are added.
var commands = []command{
	// record
	{"show", func(f *cmdutil.Factory) *cobra.Command { return show.NewCmdShow(f, nil) }},
	{"list", func(f *cmdutil.Factory) *cobra.Command { return list.NewCmdList(f, nil) }},
	{"fresh", func(f *cmdutil.Factory) *cobra.Command { return fresh.NewCmdFresh(f, nil) }},
	{"search", func(f *cmdutil.Factory) *cobra.Command { return search.NewCmdSearch(f, nil) }},
	{"create", func(f *cmdutil.Factory) *cobra.Command { return create.NewCmdCreate(f, nil) }},
	{"update", func(f *cmdutil.Factory) *cobra.Command { return update.NewCmdUpdate(f, nil) }},
	{"edit", func(f *cmdutil.Factory) *cobra.Command { return edit.NewCmdEdit(f, nil) }},
	{"retire", func(f *cmdutil.Factory) *cobra.Command { return retire.NewCmdRetire(f, nil) }},
	{"supersede", func(f *cmdutil.Factory) *cobra.Command { return supersede.NewCmdSupersede(f, nil) }},
	{"observe", func(f *cmdutil.Factory) *cobra.Command { return observe.NewCmdObserve(f, nil) }},
	// proposal
	{"propose", func(f *cmdutil.Factory) *cobra.Command { return propose.NewCmdPropose(f, nil) }},
	{"apply", func(f *cmdutil.Factory) *cobra.Command { return apply.NewCmdApply(f, nil) }},
	{"reject", func(f *cmdutil.Factory) *cobra.Command { return reject.NewCmdReject(f, nil) }},
	{"proposals", func(f *cmdutil.Factory) *cobra.Command { return proposals.NewCmdProposals(f, nil) }},
	{"conflicts", func(f *cmdutil.Factory) *cobra.Command { return conflicts.NewCmdConflicts(f, nil) }},
	// remote
	{"sync", func(f *cmdutil.Factory) *cobra.Command { return synccmd.NewCmdSync(f, nil) }},
	{"pull", func(f *cmdutil.Factory) *cobra.Command { return synccmd.NewCmdPull(f, nil) }},
	{"push", func(f *cmdutil.Factory) *cobra.Command { return synccmd.NewCmdPush(f, nil) }},
	{"merge", func(f *cmdutil.Factory) *cobra.Command { return merge.NewCmdMerge(f, nil) }},
	{"merge-driver", func(f *cmdutil.Factory) *cobra.Command { return mergedriver.NewCmdMergeDriver(f, nil) }},
	// trust
	{"hooks", func(f *cmdutil.Factory) *cobra.Command { return hooks.NewCmdHooks(f, nil) }},
	{"hook", func(f *cmdutil.Factory) *cobra.Command { return hook.NewCmdHook(f, nil) }},
	{"policy", func(f *cmdutil.Factory) *cobra.Command { return policy.NewCmdPolicy(f, nil) }},
	{"signers", func(f *cmdutil.Factory) *cobra.Command { return signers.NewCmdSigners(f, nil) }},
	{"approve", func(f *cmdutil.Factory) *cobra.Command { return approve.NewCmdApprove(f, nil) }},
	// extension
	{"bindings", func(f *cmdutil.Factory) *cobra.Command { return bindings.NewCmdBindings(f, nil) }},
	{"inspect", func(f *cmdutil.Factory) *cobra.Command { return inspect.NewCmdInspect(f, nil) }},
	// exec
	{"exec", func(f *cmdutil.Factory) *cobra.Command {
		return execcmd.NewCmdExec(start.NewCmdStart(f, nil), execlist.NewCmdList(f, nil), await.NewCmdAwait(f, nil),
			manage.NewCmdCancel(f, nil), manage.NewCmdClose(f, nil), endrun.NewCmdEndRun(f, nil),
			endsession.NewCmdEndSession(f, nil), retiresandbox.NewCmdRetireSandbox(f, nil))
	}},
	{"continue", func(f *cmdutil.Factory) *cobra.Command { return continuecmd.NewCmdContinue(f, nil) }},
	// link
	{"link", func(f *cmdutil.Factory) *cobra.Command { return linkcmd.NewCmdLink(f, nil) }},
	{"links", func(f *cmdutil.Factory) *cobra.Command { return links.NewCmdLinks(f, nil) }},
	{"graph", func(f *cmdutil.Factory) *cobra.Command { return graph.NewCmdGraph(f, nil) }},
	// history
	{"log", func(f *cmdutil.Factory) *cobra.Command { return logcmd.NewCmdLog(f, nil) }},
	{"blame", func(f *cmdutil.Factory) *cobra.Command { return blame.NewCmdBlame(f, nil) }},
	{"audit", func(f *cmdutil.Factory) *cobra.Command { return audit.NewCmdAudit(f, nil) }},
	{"watch", func(f *cmdutil.Factory) *cobra.Command { return watch.NewCmdWatch(f, nil) }},
	{"diff", func(f *cmdutil.Factory) *cobra.Command { return diff.NewCmdDiff(f, nil) }},
	// agent
	{"mcp", func(f *cmdutil.Factory) *cobra.Command { return mcp.NewCmdMCP(f, nil) }},
	{"contract", func(f *cmdutil.Factory) *cobra.Command { return contract.NewCmdContract(f, nil) }},
	{"capabilities", func(f *cmdutil.Factory) *cobra.Command { return capabilities.NewCmdCapabilities(f, nil) }},
	// store
	{"reindex", func(f *cmdutil.Factory) *cobra.Command { return reindex.NewCmdReindex(f, nil) }},
	{"verify", func(f *cmdutil.Factory) *cobra.Command { return verify.NewCmdVerify(f, nil) }},
	{"export", func(f *cmdutil.Factory) *cobra.Command { return export.NewCmdExport(f, nil) }},
	{"serve", func(f *cmdutil.Factory) *cobra.Command { return serve.NewCmdServe(f, nil) }},
	{"init", func(f *cmdutil.Factory) *cobra.Command { return initcmd.NewCmdInit(f, nil) }},
	{"migrate", func(f *cmdutil.Factory) *cobra.Command { return migrate.NewCmdMigrate(f, nil) }},
	{"compact", func(f *cmdutil.Factory) *cobra.Command { return compact.NewCmdCompact(f, nil) }},
	{"import", func(f *cmdutil.Factory) *cobra.Command { return importcmd.NewCmdImport(f, nil) }},
}

// extraCommands are added by files built with a tag (man.go: mangen).
var extraCommands []func(*cmdutil.Factory) *cobra.Command

// Main runs the command args name as the binaries do, under the root
// NewCmdRootFor builds for args, and returns the exit status. Both mains
// call it, and so do the tests that run commands in-process
// (cmdtest.InProcess): what such a test runs is what the binary runs.
func Main(f *cmdutil.Factory, args []string) int { return Run(f, NewCmdRootFor(f, args), args) }

// Run runs root with args and returns the exit status (cmdutil.Execute).
// Completion is wired in only when the shell asks for it (cobra's
// __complete): walking every command to register its completion functions
// was a fifth of building the command tree, which every show or --version
// pays.
func Run(f *cmdutil.Factory, root *cobra.Command, args []string) int {
	if completing(args) {
		addCompletions(f, root)
	}
	return cmdutil.Execute(f, root, args)
}

// completing reports whether args ask for shell completion. Any argument
// naming cobra's completion command counts: registering the completion
// functions for a command that turns out not to complete costs only time.
func completing(args []string) bool {
	for _, a := range args {
		if a == cobra.ShellCompRequestCmd || a == cobra.ShellCompNoDescRequestCmd {
			return true
		}
	}
	return false
}
