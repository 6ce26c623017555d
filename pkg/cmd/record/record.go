// Package record holds what the record commands (pkg/cmd/record/…) share:
// list's filter flags, how a link's other end is described, and the edit
// session edit and create --edit run.
package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ListFilter is list's filter flags, which every command that selects
// records the way list does shares (list, search).
type ListFilter struct{ service.Selection }

// Register adds the filter flags to c.
func (lf *ListFilter) Register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&lf.Type, "type", "", "only this type")
	fl.StringVar(&lf.Category, "category", "", "only this category")
	fl.BoolVar(&lf.CategoryPrefix, "prefix", false, "with --category: include its descendants")
	fl.StringVar(&lf.Tag, "tag", "", "only records with this tag")
	fl.StringVar(&lf.Status, "status", "", "only this status: active, implemented, retired")
	fl.StringVar(&lf.Kind, "kind", "", "only this kind")
	fl.StringVar(&lf.Role, "role", "", "only this role")
	fl.StringVar(&lf.Authority, "authority", "", "only this authority")
	fl.BoolVar(&lf.IncludeRetired, "include-retired", false, "include retired records")
	fl.BoolVar(&lf.Stale, "stale", false, "only stale records, as fresh judges them: past their expiry, or their scoped files changed in the working tree")
	fl.BoolVar(&lf.Live, "live", false, "leave out records that are stale, superseded or retired (checks scopes against the working tree)")
}

// Resolve checks each flag's value against its vocabulary and returns the selection.
func (lf *ListFilter) Resolve() (service.ListQuery, error) { return lf.Query() }

// DescribeEnd is what a link line says of the record at its other end:
// its labels, its title (the title of its first edge's end, from the
// links), or that no
// record answers to the handle (a dangling link).
func DescribeEnd(title service.EndTitle, l service.LinkLine) string {
	var b strings.Builder
	WriteEnd(&b, title, l)
	return b.String()
}

// WriteEnd writes DescribeEnd(titles, l) to w without building it: a
// hub's 10,000 link lines are written, not concatenated first.
func WriteEnd(w io.StringWriter, title service.EndTitle, l service.LinkLine) {
	if len(l.Labels) > 0 {
		w.WriteString(" (")
		for i, label := range l.Labels {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteString(label)
		}
		w.WriteString(")")
	}
	if title.OK {
		w.WriteString("  ")
		w.WriteString(service.OneLine(title.Text))
		return
	}
	w.WriteString("  (no such record)")
}

// LabelSuffix is a link's label as a link line shows it.
func LabelSuffix(l string) string {
	if l == "" {
		return ""
	}
	return " (" + l + ")"
}

// EditSession is a file a person edits until what they save is accepted:
// the loop edit and create --edit share, as git commit's. A refused file
// opens again with the reason in comment lines on top; giving up writes
// nothing.
type EditSession struct {
	Editor *cmdutil.Editor
	ErrOut io.Writer // where "reopening the editor" is said
	Name   string    // the file's name, in a private temporary directory
	// Header is comment lines ("# …\n") shown above the file on every
	// open: what to write (create's instructions).
	Header string
}

// Abandoned is an edit session that ended with nothing written.
type Abandoned struct {
	Reason string
	// Unchanged: saved as it was opened, which is a no-op rather than
	// giving up for an edit of an existing record.
	Unchanged bool
}

func (a *Abandoned) Error() string { return "nothing written: " + a.Reason }

// Run opens text in the editor and hands try each file as saved (the
// comment lines above it dropped) until try accepts it. An error of try's
// about what was written (Reopens) opens the editor again with it; any
// other ends the session. Giving up (an emptied file, an editor exiting
// non-zero, the file saved as opened, a refused file saved again unfixed)
// returns *Abandoned.
func (s *EditSession) Run(text []byte, try func(edited []byte) error) error {
	dir, err := os.MkdirTemp("", "git-records-edit-")
	if err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "make a file to edit")
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, s.Name)
	opened, current, problem := text, text, ""
	for {
		if err := os.WriteFile(path, withComment(s.Header, current, problem), 0o600); err != nil {
			return kernel.Wrap(kernel.CodeInternal, err, "write %s", path)
		}
		if err := s.Editor.Run(path); err != nil {
			if errors.Is(err, cmdutil.ErrEditorFailed) {
				return &Abandoned{Reason: "the editor exited with an error"}
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
			return &Abandoned{Reason: "the file was emptied"}
		case bytes.Equal(edited, opened):
			return &Abandoned{Reason: ReasonUnchanged, Unchanged: true}
		case problem != "" && bytes.Equal(edited, current):
			return &Abandoned{Reason: "saved again without a fix"}
		}
		err = try(edited)
		if err == nil || !Reopens(err) {
			return err
		}
		current, problem = edited, errorText(err)
		fmt.Fprintf(s.ErrOut, "git-records: %s; reopening the editor\n", problem)
	}
}

// ReasonUnchanged: the file was saved as it was opened.
const ReasonUnchanged = "nothing changed"

// Reopens reports whether an error is about what the user wrote (the
// editor opens again) rather than about the store or the setup.
func Reopens(err error) bool {
	var ke *kernel.Error
	if !errors.As(err, &ke) {
		return false
	}
	switch ke.Code {
	case kernel.CodeInvalidRecord, kernel.CodeMissingEvidence, kernel.CodeSlugConflict, kernel.CodeInvalidID, kernel.CodeNotFound, kernel.CodeAmbiguousID, kernel.CodeIDConflict:
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

// withComment puts problem, as comment lines, and the header above the
// file, as git commit does.
func withComment(header string, file []byte, problem string) []byte {
	var b bytes.Buffer
	if problem != "" {
		b.WriteString("# git records: this was refused:\n")
		for _, line := range strings.Split(problem, "\n") {
			b.WriteString("# " + line + "\n")
		}
		b.WriteString("# Fix it and save, or save it unchanged or empty to give up. Lines starting\n# with '#' above the first '---' are ignored.\n")
	}
	b.WriteString(header)
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

// PrintAbandoned reports an edit session that wrote nothing. One saved as
// it was opened, or holding what the record already holds, is a no-op
// (exit 0); giving up exits 1, as git commit does when it aborts.
func PrintAbandoned(p cmdutil.Printer, id string, a *Abandoned) error {
	aborted := !a.Unchanged
	var err error
	if p.JSONOn {
		err = p.JSON(map[string]any{"id": id, "unchanged": true, "abandoned": aborted, "reason": a.Reason})
	} else {
		_, err = fmt.Fprintf(p.Out, "%s unchanged: %s; nothing written\n", id, a.Reason)
	}
	if err == nil && aborted {
		err = cmdutil.SilentError
	}
	return err
}
