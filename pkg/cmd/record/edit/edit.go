// Package edit is `git records edit <handle>`: the record's file in the
// user's editor, written back as one signed update (or link).
package edit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/history"
	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// EditOptions are edit's inputs.
type EditOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer
	Editor      *cmdutil.Editor

	Handle   string
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdEdit is the edit command; runF (nil: editRun) runs it.
func NewCmdEdit(f *cmdutil.Factory, runF func(*EditOptions) error) *cobra.Command {
	opts := &EditOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer, Editor: f.Editor()}
	c := &cobra.Command{
		Use:   "edit <handle> --agent A [--note N]",
		Short: "Edit a record's Markdown in your editor; commit it as one signed update (or link)",
		Long: `edit opens the record's file (frontmatter and body) in your editor, chosen
as git chooses it: GIT_EDITOR, core.editor, VISUAL, EDITOR, else vi. When
the editor exits, the file is checked with the same rules every write
obeys; what changed is shown, and written as one signed commit: an update,
or a link when all the edit does is add links.

An edit the rules refuse reopens the editor with the reason in comment
lines at the top (as git commit does); save it unchanged, empty it, or
make the editor exit non-zero to give up: nothing is written. Fields that
no op may change (id, type, created_at, provenance, the mutation log) and
the status (retire and supersede change it) are refused.`,
		Example: `  git records edit auth/token-refresh --agent alice --note "typo"
  GIT_EDITOR="code --wait" git records edit k7m2qxw4`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handle = args[0]
			if runF != nil {
				return runF(opts)
			}
			return editRun(opts)
		},
	}
	cmdutil.EvidenceFlags(c, &opts.Evidence, &opts.Approval)
	return c
}

// editRun is one edit session: open the record's file, read it back,
// check it, and write what changed as one op; reopen on a refusal, write
// nothing when abandoned.
func editRun(opts *EditOptions) error {
	if strings.TrimSpace(opts.Evidence.Agent) == "" {
		return kernel.Errorf(kernel.CodeMissingEvidence, "--agent (or GIT_RECORDS_AGENT) is required: who makes the edit").WithExtra("flag", "--agent")
	}
	svc, approval, err := cmdutil.WriteService(opts.ReadService, &opts.Approval)
	if err != nil {
		return err
	}
	orig, file, err := svc.RecordFile(opts.Handle)
	if err != nil {
		return err
	}
	id := orig.ID
	p := opts.Printer()
	session := record.EditSession{Editor: opts.Editor, ErrOut: opts.IO.ErrOut, Name: id + ".md"}
	err = session.Run(file, func(edited []byte) error {
		edit, err := service.EditOf(orig, edited)
		if err != nil {
			return err
		}
		if len(edit.Changed) == 0 {
			// The bytes moved (a newline at the end), the record did not.
			return &record.Abandoned{Reason: record.ReasonUnchanged, Unchanged: true}
		}
		res, err := svc.ApplyEdit(edit, opts.Evidence, approval)
		if err != nil {
			return err
		}
		return printEdit(svc, p, id, res)
	})
	var abandoned *record.Abandoned
	if errors.As(err, &abandoned) {
		return record.PrintAbandoned(p, id, abandoned)
	}
	return err
}

// reasonSameValues: the edit wrote nothing because the record already
// holds what was saved (a concurrent writer got there first).
const reasonSameValues = "the record already holds these values"

// printEdit shows what the edit's commit changed, as `git records diff`
// shows it, then the id.
func printEdit(svc *service.Service, p cmdutil.Printer, id string, res *service.WriteResult) error {
	if res.Unchanged {
		return &record.Abandoned{Reason: reasonSameValues, Unchanged: true}
	}
	d, err := svc.Diff([]string{res.Commit + "^", res.Commit}, false)
	if err != nil {
		return err
	}
	op := ""
	if res.Mutation != nil {
		op = string(res.Mutation.Op)
	}
	if p.JSONOn {
		return p.JSON(map[string]any{"id": id, "commit": res.Commit, "op": op, "diff": d.RecordDiff})
	}
	history.RenderDiffText(p.Out, d.RecordDiff, false)
	_, err = fmt.Fprintf(p.Out, "%s: %s %s\n", op, id, res.Commit[:12])
	return err
}
