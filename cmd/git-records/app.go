package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// Exit codes. Documented in the README; scripts rely on them.
const (
	exitOK       = 0
	exitRefused  = 1 // the op was refused: bad input, missing evidence, not found, ambiguous, conflict of ids
	exitUsage    = 2 // the command line itself is wrong
	exitConflict = 3 // the branch kept moving (compare-and-swap lost too often)
	exitDenied   = 4 // the policy forbids it
	exitSetup    = 5 // no repository / store, no signing key, signing failed
	exitInternal = 70
)

func exitCode(code kernel.Code) int {
	switch code {
	case kernel.CodeUsage:
		return exitUsage
	case kernel.CodeConflict:
		return exitConflict
	case kernel.CodePermissionDenied, kernel.CodeNotOwner:
		return exitDenied
	case kernel.CodeNotAStore, kernel.CodeNotInitialized, kernel.CodeNoSigningKey, kernel.CodeSigningFailed, kernel.CodeFormatTooNew, kernel.CodeFormatOutdated:
		return exitSetup
	case kernel.CodeInternal:
		return exitInternal
	}
	return exitRefused
}

// app holds what every command shares: streams, global flags and the store,
// opened lazily so `--help` and usage errors never touch a repository.
type app struct {
	in       io.Reader
	out, err io.Writer

	jsonOut bool
	color   string // --color: auto, always, never
	noPager bool   // --no-pager
	// pagerDone closes the pager's input and waits for it (nil: no pager).
	pagerDone func()
	storeDir  string
	ref       string

	store *gitstore.Store
	call  gitstore.Call // this run's call, which the audit line of its op names

	approve      bool   // --approve on write commands
	approval     string // --approval TOKEN
	approvalFile string // --approval-file F
	approvedBy   string // --approved-by, refused: a name is not an approval
}

// approvalFlags adds the risk gate's approvals to a write command.
func (a *app) approvalFlags(c *cobra.Command) {
	c.Flags().BoolVar(&a.approve, "approve", false, "approve an op the policy marks as needing approval yourself (your profile must allow it)")
	c.Flags().StringVar(&a.approval, "approval", "", "approval `TOKEN` printed by `git records approve`, run by the approver")
	c.Flags().StringVar(&a.approvalFile, "approval-file", "", "read the approval token from `FILE`")
	c.Flags().StringVar(&a.approvedBy, "approved-by", "", "")
	_ = c.Flags().MarkHidden("approved-by")
}

// gateApproval is the approval this run brings for the store's policy gate.
func (a *app) gateApproval() (kernel.Approval, error) {
	if a.approvedBy != "" {
		return kernel.Approval{}, kernel.Errorf(kernel.CodeUsage, "--approved-by is gone: an approval is the approver's signature, not a name; have %s run `git records approve …` (the refusal without it prints the command) and pass what it prints with --approval", a.approvedBy)
	}
	token := a.approval
	if a.approvalFile != "" {
		if token != "" {
			return kernel.Approval{}, kernel.Errorf(kernel.CodeUsage, "give the approval once: --approval or --approval-file")
		}
		data, err := os.ReadFile(a.approvalFile)
		if err != nil {
			return kernel.Approval{}, kernel.Wrap(kernel.CodeUsage, err, "read --approval-file")
		}
		token = strings.TrimSpace(string(data))
	}
	return kernel.Approval{Approve: a.approve, Token: token}, nil
}

// errSilent ends a command with exit status 1 after the command has said
// all there is to say: verify's report, diff --exit-code's differences,
// fresh --exit-code's stale records, a hook's rejection, a contract error
// envelope already written.
var errSilent = errors.New("exit status 1")

func newApp(in io.Reader, out, err io.Writer) *app { return &app{in: in, out: out, err: err} }

func (a *app) run(args []string) int {
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(a.in)
	root.SetOut(a.out)
	root.SetErr(a.err)
	err := root.Execute()
	if a.pagerDone != nil {
		a.pagerDone()
	}
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errSilent) {
		return exitRefused
	}
	var ke *kernel.Error
	if !errors.As(err, &ke) {
		// cobra's own errors: unknown flags, wrong argument counts.
		ke = &kernel.Error{Code: kernel.CodeUsage, Message: err.Error()}
	}
	if !a.jsonOut {
		// An unknown command, or a bad flag before --json, fails before
		// the flags are parsed: a script that asked for JSON still gets
		// its envelope.
		a.jsonOut = jsonRequested(args)
	}
	a.printError(inCLITerms(ke))
	return exitCode(ke.Code)
}

// flagFor names, for each input field the kernel's errors speak of in the
// contract's terms, what sets it on the command line.
var flagFor = map[string]string{
	"provenance.agent":          "--agent (or GIT_RECORDS_AGENT)",
	"evidence.agent":            "--agent (or GIT_RECORDS_AGENT)",
	"type":                      "--type",
	"title":                     "--title",
	"body":                      "--body",
	"category":                  "--category",
	"expires_at":                "--expires-at",
	"ttl_seconds":               "--ttl-seconds",
	"evidence.proposal":         "--proposal",
	"evidence.new_body":         "--body",
	"evidence.rationale":        "--rationale",
	"evidence.reason":           "--reason",
	"evidence.implementedByRef": "--implemented-by",
	"limit":                     "--limit",
	"evidence.session_id":       "--session",
	"owner":                     "--owner",
}

// inCLITerms rewrites an error about an input field so that it names the
// flag or variable to set, and says which in "flag".
func inCLITerms(e *kernel.Error) *kernel.Error {
	field, _ := e.Extra["field"].(string)
	flag, ok := flagFor[field]
	if !ok {
		return e
	}
	out := *e
	out.Extra = maps.Clone(e.Extra)
	out.Message = strings.Replace(e.Message, field, flag, 1)
	out.Extra["flag"] = strings.Fields(flag)[0]
	return &out
}

// jsonRequested reports whether args hold --json (before any "--"), as
// pflag would read it: --json, or --json=<bool>.
func jsonRequested(args []string) bool {
	on := false
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "--json" {
			on = true
		} else if v, ok := strings.CutPrefix(arg, "--json="); ok {
			on, _ = strconv.ParseBool(v)
		}
	}
	return on
}

func (a *app) printError(e *kernel.Error) {
	if a.jsonOut {
		body := map[string]any{"code": e.Code, "message": e.Message}
		for k, v := range e.Extra {
			body[k] = v
		}
		a.writeJSON(map[string]any{"error": body})
		return
	}
	fmt.Fprintf(a.err, "git-records: %s: %s\n", e.Code, e.Message)
}

func (a *app) writeJSON(v any) { _ = a.printer().JSON(v) }

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "git-records",
		Short: "Signed, linked knowledge records on a git branch",
		Long: `git-records keeps knowledge notes, review findings and decisions as Markdown
records on a git branch (refs/heads/records). Every change is one signed commit
whose trailers carry its evidence; [[wikilinks]] and links form a graph.

Run it as "git records <command>" anywhere inside a repository (worktrees and
bare repositories too), or on a standalone store with --store DIR.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.PersistentFlags().BoolVar(&a.jsonOut, "json", false, "print JSON (errors as {\"error\":{\"code\",\"message\"}})")
	root.PersistentFlags().StringVar(&a.storeDir, "store", "", "use the standalone store in `DIR` (created on first use)")
	root.PersistentFlags().StringVar(&a.ref, "ref", "", "records branch (default: git config records.ref, else refs/heads/records)")
	root.PersistentFlags().StringVar(&a.color, "color", "auto", "colour on a terminal: auto (not in a pipe, not with NO_COLOR; git's color.ui decides when set), always, never")
	root.PersistentFlags().BoolVar(&a.noPager, "no-pager", false, "do not page long output (GIT_PAGER, core.pager, PAGER, less)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		a.call = cliCall(cmd, args)
		if err := oneOf("--color", a.color, []string{"auto", "always", "never"}); err != nil {
			return err
		}
		a.startPager(cmd)
		return nil
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return kernel.Errorf(kernel.CodeUsage, "%v", err)
	})
	root.AddCommand(
		a.initCommand(),
		a.createCommand(), a.updateCommand(), a.editCommand(), a.linkCommand(), a.proposeCommand(), a.applyCommand(),
		a.rejectCommand(), a.proposalsCommand(), a.conflictsCommand(), a.supersedeCommand(), a.retireCommand(),
		a.showCommand(), a.linksCommand(), a.graphCommand(), a.serveCommand(), a.listCommand(), a.logCommand(), a.blameCommand(), a.reindexCommand(), a.verifyCommand(), a.diffCommand(),
		a.searchCommand(), a.watchCommand(),
		a.freshCommand(),
		a.syncCommand("sync", true, true, "Fetch, verify and merge the remote's records branch, then push with a lease"),
		a.syncCommand("pull", true, false, "Fetch, verify and merge the remote's records branch"),
		a.syncCommand("push", false, true, "Push the records branch with a lease (never overwrites a concurrent push)"),
		a.mergeCommand(), a.mergeDriverCommand(),
		a.hooksCommand(), a.hookCommand(), a.policyCommand(), a.signersCommand(), a.approveCommand(),
		a.capabilitiesCommand(), a.contractCommand(), a.auditCommand(), a.observeCommand(), a.compactCommand(), a.migrateCommand(),
		a.importCommand(), a.exportCommand(),
		a.mcpCommand(),
		a.execCommand(), a.continueCommand(), a.bindingsCommand(), a.inspectCommand(),
	)
	for _, extra := range extraCommands {
		root.AddCommand(extra(a))
	}
	a.addCompletions(root)
	groupHelp(root)
	return root
}

// extraCommands are added by files built with a tag (man.go: mangen).
var extraCommands []func(*app) *cobra.Command

// open returns the store: the standalone one with --store, else the
// repository around the working directory.
func (a *app) open() (*gitstore.Store, error) {
	if a.store != nil {
		a.store.SetCall(a.call)
		return a.store, nil
	}
	defer func() {
		if a.store != nil {
			a.store.SetCall(a.call)
		}
	}()
	opts := gitstore.Options{Ref: a.ref}
	var err error
	if a.storeDir != "" {
		a.store, err = gitstore.OpenStandalone(a.storeDir, opts)
	} else {
		var wd string
		if wd, err = os.Getwd(); err == nil {
			a.store, err = gitstore.Open(wd, opts)
		}
	}
	return a.store, err
}

// cliCall is a command line as the audit names it: the command, and as its
// input the arguments and the flags given.
func cliCall(cmd *cobra.Command, args []string) gitstore.Call {
	flags := map[string]string{}
	cmd.Flags().Visit(func(f *pflag.Flag) { flags[f.Name] = f.Value.String() })
	agent := ""
	if f := cmd.Flags().Lookup("agent"); f != nil {
		agent = f.Value.String()
	}
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	return gitstore.Call{Front: "cli", Op: name, Agent: agent, Input: map[string]any{"command": name, "args": args, "flags": flags}}
}

// service is the one implementation of the ops over the store this run
// opened (writes: the store as it is, created on first use with --store).
func (a *app) service() (*service.Service, error) {
	s, err := a.open()
	if err != nil {
		return nil, err
	}
	return service.New(s, ""), nil
}

// readService is the service for a command that reads the records branch
// (see openBranch).
func (a *app) readService() (*service.Service, error) {
	s, err := a.openBranch()
	if err != nil {
		return nil, err
	}
	return service.New(s, ""), nil
}

// write runs one op through the service with this run's approval, and says
// when the branch moved under a checkout of it.
func (a *app) write(op func(*service.Service, kernel.Approval) (*service.WriteResult, error)) (*service.WriteResult, error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	approval, err := a.gateApproval()
	if err != nil {
		return nil, err
	}
	res, err := op(svc, approval)
	if err != nil {
		return nil, err
	}
	a.noteCheckout(res)
	return res, nil
}

// mutate commits a decision with no service op of its own (policy,
// signers, store files) through the same write path.
func (a *app) mutate(handle string, decide gitstore.Decision) (*service.WriteResult, error) {
	return a.write(func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
		return svc.Decide(handle, approval, decide)
	})
}

// noteCheckout says, like git update-ref would not, that the write moved
// the branch under a checkout of it, so a later hand commit does not undo it.
func (a *app) noteCheckout(res *service.WriteResult) {
	if res == nil || res.Commit == "" {
		return
	}
	if where := a.store.CheckedOutIn(); len(where) > 0 {
		c := res.Commit[:12]
		fmt.Fprintf(a.err, "git-records: note: %s is checked out in %s and moved to %s; bring that checkout along (git read-tree -m -u %s^ %s) before committing there by hand\n",
			a.store.Ref(), strings.Join(where, ", "), c, c, c)
	}
}

func (a *app) view() (*gitstore.View, error) {
	s, err := a.openBranch()
	if err != nil {
		return nil, err
	}
	return s.View()
}

// openBranch opens the store for a command that reads the records branch.
// A fresh clone whose remote has a records branch must not look like an
// empty store: the reader is told to pull. Without a records branch anywhere
// the store is simply empty.
func (a *app) openBranch() (*gitstore.Store, error) {
	s, err := a.open()
	if err != nil || a.storeDir != "" {
		return s, err
	}
	if err := s.RequireBranch(); err != nil {
		if e, ok := err.(*kernel.Error); ok && e.Extra["remote"] == nil {
			return s, nil // no branch here or on the default remote: an empty store
		}
		return s, err
	}
	return s, nil
}

// agentFlag adds --agent, defaulting to $GIT_RECORDS_AGENT.
func agentFlag(c *cobra.Command, agent *string) {
	c.Flags().StringVar(agent, "agent", os.Getenv("GIT_RECORDS_AGENT"), "who or what performs the op (default $GIT_RECORDS_AGENT)")
}

// readBody picks the body from --body, --body-file (- for stdin) or a "-" argument.
func (a *app) readBody(body, bodyFile string, dash bool, set bool) (*string, error) {
	count := 0
	for _, b := range []bool{set, bodyFile != "", dash} {
		if b {
			count++
		}
	}
	if count > 1 {
		return nil, kernel.Errorf(kernel.CodeUsage, "give the body once: --body, --body-file or -")
	}
	switch {
	case set:
		return &body, nil
	case bodyFile == "-" || dash:
		data, err := io.ReadAll(a.in)
		if err != nil {
			return nil, kernel.Wrap(kernel.CodeUsage, err, "read body from stdin")
		}
		s := string(data)
		return &s, nil
	case bodyFile != "":
		data, err := os.ReadFile(bodyFile)
		if err != nil {
			return nil, kernel.Wrap(kernel.CodeUsage, err, "read --body-file")
		}
		s := string(data)
		return &s, nil
	}
	return nil, nil
}

// parseLinkFlags turns KIND:TARGET (or a bare TARGET, kind related) into links.
func parseLinkFlags(specs []string) []kernel.Link {
	var out []kernel.Link
	for _, s := range specs {
		kind, target, ok := strings.Cut(s, ":")
		if !ok {
			kind, target = kernel.LinkRelated, s
		}
		out = append(out, kernel.Link{TargetID: target, Kind: kind})
	}
	return out
}

// printWritten reports a mutation: the id (and commit) for people, JSON for machines.
func (a *app) printWritten(res *service.WriteResult) {
	if a.jsonOut {
		a.writeJSON(res)
		return
	}
	if res.Unchanged {
		fmt.Fprintf(a.out, "%s unchanged\n", res.ID)
		return
	}
	fmt.Fprintln(a.out, res.ID)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// version is the module version the binary was built from (go install
// …@v1.2.3), or "devel" for a build from a checkout.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
