// Package edit is `git records edit <handle>`: the record's file in the
// user's editor, written back as one signed update (or link).
package edit

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/history"
	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// EditOptions are edit's inputs.
type EditOptions struct {
	IO      *cmdutil.IOStreams
	Branch  func() (*gitstore.Store, error)
	Write   func(*cmdutil.ApprovalFlags, func(*service.Service, kernel.Approval) (*service.WriteResult, error)) (*service.WriteResult, error)
	Printer func() cmdutil.Printer
	Editor  *cmdutil.Editor

	Handle   string
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdEdit is the edit command; runF (nil: editRun) runs it.
func NewCmdEdit(f *cmdutil.Factory, runF func(*EditOptions) error) *cobra.Command {
	opts := &EditOptions{IO: f.IOStreams, Branch: f.Branch, Write: f.Write, Printer: f.Printer, Editor: f.Editor()}
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
	s, err := opts.Branch()
	if err != nil {
		return err
	}
	v, err := s.View()
	if err != nil {
		return err
	}
	id, err := v.Resolve(opts.Handle)
	if err != nil {
		return err
	}
	if id == "" {
		return kernel.Errorf(kernel.CodeNotFound, "no record matches %q: check the id, alias or 8+ character prefix (git records list)", opts.Handle)
	}
	orig, err := v.Record(id) // as stored: body links stay in the body
	if err != nil {
		return err
	}
	file, err := gitstore.EncodeRecord(orig)
	if err != nil {
		return err
	}
	p := opts.Printer()
	session := record.EditSession{Editor: opts.Editor, ErrOut: opts.IO.ErrOut, Name: id + ".md"}
	err = session.Run(file, func(edited []byte) error {
		op, err := editOp(orig, edited, opts.Evidence)
		if err != nil {
			return err
		}
		res, err := opts.Write(&opts.Approval, op)
		if err != nil {
			return err
		}
		return printEdit(s, p, id, res.Written)
	})
	var abandoned *record.Abandoned
	if errors.As(err, &abandoned) {
		return record.PrintAbandoned(p, id, abandoned)
	}
	return err
}

// editOp turns an edited file into the op that writes it: the fields it
// changes against the record as it was opened, so a concurrent change to
// another field is kept. An edit that only adds links is the service's
// link op; anything else its update, which the kernel checks as every
// update.
func editOp(orig *kernel.Record, edited []byte, ev kernel.Evidence) (func(*service.Service, kernel.Approval) (*service.WriteResult, error), error) {
	r, err := gitstore.DecodeRecord(edited)
	if err != nil {
		return nil, err
	}
	changed := kernel.ChangedFields(orig, r)
	if len(changed) == 0 {
		// The bytes moved (a newline at the end), the record did not.
		return nil, &record.Abandoned{Reason: record.ReasonUnchanged, Unchanged: true}
	}
	var f kernel.UpdateFields
	for _, name := range changed {
		switch name {
		case "title":
			f.Title = &r.Title
		case "body":
			f.Body = &r.Body
		case "category":
			f.Category = &r.Category
		case "tags":
			f.Tags = &r.Tags
		case "links":
			f.Links = &r.Links
		case "aliases":
			for _, al := range orig.Aliases {
				if !slices.Contains(r.Aliases, al) {
					return nil, kernel.Errorf(kernel.CodeInvalidRecord, "alias %q cannot be removed: aliases are only added, so a handle once given keeps naming the record", al)
				}
			}
			f.Aliases = r.Aliases
		case "expires_at":
			f.ExpiresAt = kernel.ExpiryInput{Set: true, At: r.ExpiresAt}
		case "ttl_seconds":
			f.TTLSeconds = kernel.TTLInput{Set: true, Seconds: r.TTLSeconds}
		case "scope":
			f.Scope = r.Scope
		case "properties":
			f.Properties = &r.Properties
		case "written_as":
			f.WrittenAs = &r.WrittenAs
		default:
			how := "no op changes it"
			if fd, ok := kernel.LookupField(name); ok && len(fd.Ops) > 0 {
				how = "only " + strings.Join(cmdutil.Names(fd.Ops), ", ") + " change" + map[bool]string{true: "s", false: ""}[len(fd.Ops) == 1] + " it"
			}
			return nil, kernel.Errorf(kernel.CodeInvalidRecord, "%s cannot be edited: %s", name, how).WithExtra("field", name)
		}
	}
	if onlyAddsLinks(changed, orig.Links, r.Links) {
		added := r.Links[len(orig.Links):]
		return func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
			return svc.Link(orig.ID, added, ev, approval)
		}, nil
	}
	return func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
		return svc.Update(orig.ID, f, ev, approval)
	}, nil
}

// onlyAddsLinks reports whether an edit changed nothing but the links, by
// appending to them.
func onlyAddsLinks(changed []string, before, after []kernel.Link) bool {
	return len(changed) == 1 && changed[0] == "links" && len(after) > len(before) && slices.Equal(before, after[:len(before)])
}

// reasonSameValues: the edit wrote nothing because the record already
// holds what was saved (a concurrent writer got there first).
const reasonSameValues = "the record already holds these values"

// printEdit shows what the edit's commit changed, as `git records diff`
// shows it, then the id.
func printEdit(s *gitstore.Store, p cmdutil.Printer, id string, w *gitstore.Written) error {
	if w.Commit.IsZero() {
		return &record.Abandoned{Reason: reasonSameValues, Unchanged: true}
	}
	parent, err := s.ResolveRev(w.Commit.String() + "^")
	if err != nil {
		return err
	}
	d, err := s.Diff(parent, w.Commit)
	if err != nil {
		return err
	}
	op := ""
	if w.Mutation != nil {
		op = string(w.Mutation.Op)
	}
	if p.JSONOn {
		return p.JSON(map[string]any{"id": id, "commit": w.Commit.String(), "op": op, "diff": d})
	}
	history.RenderDiffText(p.Out, d, false)
	_, err = fmt.Fprintf(p.Out, "%s: %s %s\n", op, id, w.Commit.String()[:12])
	return err
}
