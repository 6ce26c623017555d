// Package root is the git-records command: every command registered under
// it, the global flags (cmdutil), grouped help and completion.
package root

import (
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
	root.AddCommand(
		// record
		show.NewCmdShow(f, nil), list.NewCmdList(f, nil), fresh.NewCmdFresh(f, nil), search.NewCmdSearch(f, nil),
		create.NewCmdCreate(f, nil), update.NewCmdUpdate(f, nil), edit.NewCmdEdit(f, nil),
		retire.NewCmdRetire(f, nil), supersede.NewCmdSupersede(f, nil), observe.NewCmdObserve(f, nil),
		// proposal
		propose.NewCmdPropose(f, nil), apply.NewCmdApply(f, nil), reject.NewCmdReject(f, nil),
		proposals.NewCmdProposals(f, nil), conflicts.NewCmdConflicts(f, nil),
		// remote
		synccmd.NewCmdSync(f, nil), synccmd.NewCmdPull(f, nil), synccmd.NewCmdPush(f, nil),
		merge.NewCmdMerge(f, nil), mergedriver.NewCmdMergeDriver(f, nil),
		// trust
		hooks.NewCmdHooks(f, nil), hook.NewCmdHook(f, nil), policy.NewCmdPolicy(f, nil), signers.NewCmdSigners(f, nil), approve.NewCmdApprove(f, nil),
		// extension
		bindings.NewCmdBindings(f, nil), inspect.NewCmdInspect(f, nil),
		// exec
		execcmd.NewCmdExec(start.NewCmdStart(f, nil), execlist.NewCmdList(f, nil), await.NewCmdAwait(f, nil),
			manage.NewCmdCancel(f, nil), manage.NewCmdClose(f, nil), endrun.NewCmdEndRun(f, nil),
			endsession.NewCmdEndSession(f, nil), retiresandbox.NewCmdRetireSandbox(f, nil)),
		continuecmd.NewCmdContinue(f, nil),
		// link
		linkcmd.NewCmdLink(f, nil), links.NewCmdLinks(f, nil), graph.NewCmdGraph(f, nil),
		// history
		logcmd.NewCmdLog(f, nil), blame.NewCmdBlame(f, nil), audit.NewCmdAudit(f, nil), watch.NewCmdWatch(f, nil), diff.NewCmdDiff(f, nil),
		// agent
		mcp.NewCmdMCP(f, nil), contract.NewCmdContract(f, nil), capabilities.NewCmdCapabilities(f, nil),
		// store
		reindex.NewCmdReindex(f, nil), verify.NewCmdVerify(f, nil), export.NewCmdExport(f, nil), serve.NewCmdServe(f, nil),
		initcmd.NewCmdInit(f, nil), migrate.NewCmdMigrate(f, nil), compact.NewCmdCompact(f, nil), importcmd.NewCmdImport(f, nil),
	)
	root.AddCommand(more...)
	for _, extra := range extraCommands {
		root.AddCommand(extra(f))
	}
	groupHelp(root)
	return root
}

// extraCommands are added by files built with a tag (man.go: mangen).
var extraCommands []func(*cmdutil.Factory) *cobra.Command

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
