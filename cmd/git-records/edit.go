package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/history"
	"github.com/git-records/git-records/service"
)

// editOptions are what `edit` is asked: the record, and the evidence of
// the op the edit becomes.
type editOptions struct {
	Handle   string
	Evidence kernel.Evidence
}

// editCommand parses the command line into editOptions and hands them to
// runEdit with the editor session it runs.
func (a *app) editCommand() *cobra.Command {
	opts := editOptions{}
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
			s, err := a.openBranch()
			if err != nil {
				return err
			}
			return a.runEdit(opts, s, newEditor(s, a.in, a.err), a.printer())
		},
	}
	a.evidenceFlags(c, &opts.Evidence)
	return c
}

// editor runs the user's editor on a file, as git does.
type editor struct {
	command func() (string, error) // the editor command line, resolved when first needed
	stdin   io.Reader
	stderr  io.Writer
}

func newEditor(s *gitstore.Store, in io.Reader, errw io.Writer) *editor {
	return &editor{command: func() (string, error) { return editorCommand(s.ConfigValue) }, stdin: in, stderr: errw}
}

// editorCommand picks the editor in git's order (git var GIT_EDITOR):
// GIT_EDITOR, core.editor, VISUAL unless the terminal is dumb, EDITOR, vi
// (refused on a dumb terminal, where vi cannot run).
func editorCommand(config func(string) (string, bool)) (string, error) {
	if e := os.Getenv("GIT_EDITOR"); e != "" {
		return e, nil
	}
	if e, ok := config("core.editor"); ok && e != "" {
		return e, nil
	}
	dumb := os.Getenv("TERM") == "" || os.Getenv("TERM") == "dumb"
	if e := os.Getenv("VISUAL"); e != "" && !dumb {
		return e, nil
	}
	if e := os.Getenv("EDITOR"); e != "" {
		return e, nil
	}
	if dumb {
		return "", kernel.Errorf(kernel.CodeUsage, "the terminal is dumb and no editor is set: set GIT_EDITOR, git config core.editor, VISUAL or EDITOR")
	}
	return "vi", nil
}

// errEditorFailed: the editor exited non-zero, which abandons the edit.
var errEditorFailed = errors.New("the editor exited with an error")

// run opens path in the editor and waits for it. The command line goes
// through sh, as git runs it, so "code --wait" and quoted paths work.
func (e *editor) run(path string) error {
	command, err := e.command()
	if err != nil {
		return err
	}
	cmd := exec.Command("sh", "-c", command+` "$@"`, command, path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stderr, e.stderr
	if f, ok := e.stdin.(*os.File); ok {
		cmd.Stdin = f // a terminal editor needs the terminal itself
	}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return errEditorFailed
		}
		return kernel.Wrap(kernel.CodeUsage, err, "run the editor %q (set GIT_EDITOR, core.editor, VISUAL or EDITOR)", command)
	}
	return nil
}

// runEdit is one edit session: open the record's file, read it back, check
// it, and write what changed as one op; reopen on a refusal, write nothing
// when abandoned.
func (a *app) runEdit(opts editOptions, s *gitstore.Store, ed *editor, p printer) error {
	if strings.TrimSpace(opts.Evidence.Agent) == "" {
		return kernel.Errorf(kernel.CodeMissingEvidence, "--agent (or GIT_RECORDS_AGENT) is required: who makes the edit").WithExtra("flag", "--agent")
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
	dir, err := os.MkdirTemp("", "git-records-edit-")
	if err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "make a file to edit")
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, id+".md")

	text, problem := file, ""
	for {
		if err := os.WriteFile(path, withComment(text, problem), 0o600); err != nil {
			return kernel.Wrap(kernel.CodeInternal, err, "write %s", path)
		}
		if err := ed.run(path); err != nil {
			if errors.Is(err, errEditorFailed) {
				return abandoned(p, id, "the editor exited with an error")
			}
			return err
		}
		saved, err := os.ReadFile(path)
		if err != nil {
			return kernel.Wrap(kernel.CodeInternal, err, "read %s back", path)
		}
		edited := stripComment(saved)
		switch {
		case len(bytes.TrimSpace(edited)) == 0:
			return abandoned(p, id, "the file was emptied")
		case bytes.Equal(edited, file):
			return abandoned(p, id, reasonUnchanged)
		case problem != "" && bytes.Equal(edited, text):
			return abandoned(p, id, "saved again without a fix")
		}
		op, err := editOp(orig, edited, opts.Evidence)
		if errors.Is(err, errNoChange) {
			return abandoned(p, id, reasonUnchanged)
		}
		if err == nil {
			var res *service.WriteResult
			if res, err = a.write(op); err == nil {
				return a.printEdit(s, p, id, res.Written)
			}
		}
		if !reopens(err) {
			return err
		}
		text, problem = edited, errorText(err)
		fmt.Fprintf(ed.stderr, "git-records: %s; reopening the editor\n", problem)
	}
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
		return nil, errNoChange // the bytes moved (a newline at the end), the record did not
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
			f.ExpiresAt, _ = json.Marshal(r.ExpiresAt)
		case "ttl_seconds":
			f.TTLSeconds, _ = json.Marshal(r.TTLSeconds)
		case "scope":
			f.Scope = r.Scope
		default:
			how := "no op changes it"
			if fd, ok := kernel.LookupField(name); ok && len(fd.Ops) > 0 {
				how = "only " + strings.Join(names(fd.Ops), ", ") + " change" + map[bool]string{true: "s", false: ""}[len(fd.Ops) == 1] + " it"
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

// errNoChange: the edited file holds the record as it was.
var errNoChange = errors.New("no field changed")

// onlyAddsLinks reports whether an edit changed nothing but the links, by
// appending to them.
func onlyAddsLinks(changed []string, before, after []kernel.Link) bool {
	return len(changed) == 1 && changed[0] == "links" && len(after) > len(before) && slices.Equal(before, after[:len(before)])
}

// reopens reports whether an error is about what the user wrote (the
// editor opens again) rather than about the store or the setup.
func reopens(err error) bool {
	var ke *kernel.Error
	if !errors.As(err, &ke) {
		return false
	}
	switch ke.Code {
	case kernel.CodeInvalidRecord, kernel.CodeMissingEvidence, kernel.CodeSlugConflict, kernel.CodeInvalidID, kernel.CodeNotFound, kernel.CodeAmbiguousID:
		return ke.Extra["flag"] == nil // a missing --agent is not the file's fault
	}
	return false
}

func errorText(err error) string {
	var ke *kernel.Error
	if errors.As(err, &ke) {
		return string(ke.Code) + ": " + ke.Message
	}
	return err.Error()
}

// The comment block edit puts above a refused file, as git commit does.
const commentPrefix = "# "

// withComment puts problem, as comment lines, above the file.
func withComment(file []byte, problem string) []byte {
	if problem == "" {
		return file
	}
	var b bytes.Buffer
	b.WriteString("# git records edit: this edit was refused:\n")
	for _, line := range strings.Split(problem, "\n") {
		b.WriteString(commentPrefix + line + "\n")
	}
	b.WriteString("# Fix it and save, or save it unchanged or empty to give up. Lines starting\n# with '#' above the first '---' are ignored.\n")
	b.Write(file)
	return b.Bytes()
}

// stripComment drops the comment lines above the file's first line. Only
// there: a record file starts with "---", so a '#' line before it can only
// be ours, while one in the body is a Markdown heading.
func stripComment(data []byte) []byte {
	for bytes.HasPrefix(data, []byte("#")) {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	return data
}

// abandoned reports an edit that writes nothing. Saving the file as it was
// is a no-op (exit 0, as an update to the same values); giving up (an
// emptied file, a failing editor, a refused edit saved again unfixed)
// exits 1, as git commit does when it aborts.
func abandoned(p printer, id, why string) error {
	aborted := why != reasonUnchanged && why != reasonSameValues
	var err error
	if p.json {
		err = p.JSON(map[string]any{"id": id, "unchanged": true, "abandoned": aborted, "reason": why})
	} else {
		err = p.Text(func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "%s unchanged: %s; nothing written\n", id, why)
			return err
		})
	}
	if err == nil && aborted {
		err = errSilent
	}
	return err
}

// Why an edit wrote nothing without being given up.
const (
	reasonUnchanged  = "nothing changed"
	reasonSameValues = "the record already holds these values"
)

// printEdit shows what the edit's commit changed, as `git records diff`
// shows it, then the id.
func (a *app) printEdit(s *gitstore.Store, p printer, id string, w *gitstore.Written) error {
	if w.Commit.IsZero() {
		return abandoned(p, id, reasonSameValues)
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
	if p.json {
		return p.JSON(map[string]any{"id": id, "commit": w.Commit.String(), "op": op, "diff": d})
	}
	return p.Text(func(out io.Writer) error {
		history.RenderDiffText(out, d, false)
		_, err := fmt.Fprintf(out, "%s: %s %s\n", op, id, shortHash(w.Commit))
		return err
	})
}

func shortHash(h plumbing.Hash) string { return h.String()[:12] }
