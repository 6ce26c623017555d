// Package importcmd is `git records import <source>`: a folder of notes, a
// Knowledge Kit store or JSONL records, imported in one signed commit.
package importcmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ImportOptions are import's inputs.
type ImportOptions struct {
	IO      *cmdutil.IOStreams
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer

	Source   string
	Import   service.ImportOptions
	Approval cmdutil.ApprovalFlags
}

// NewCmdImport is the import command; runF (nil: importRun) runs it.
func NewCmdImport(f *cmdutil.Factory, runF func(*ImportOptions) error) *cobra.Command {
	opts := &ImportOptions{IO: f.IOStreams, Service: f.Service, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "import <source> --agent A [--format vault|kk|jsonl] [--type T] [--category C] [--strict]",
		Short: "Import a folder of notes, a Knowledge Kit store or JSONL records, in one signed commit",
		Long: `Import reads an Obsidian vault, a zk notebook, a Hugo or Jekyll content tree
(front matter in YAML, TOML or JSON), a Knowledge Kit default store
(records/<id>.md beside graph-index.json) or a JSONL file of contract
records, and creates every record in one signed commit (op import). File
names, titles and aliases become handles: [[Note name]] links are rewritten
to the record's id, and links that name nothing are reported and kept as
written. Importing the same source again brings the notes that changed in
as updates of their records and the new notes as records, in one commit;
a record changed here since its last import is reported as a conflict and
never overwritten.

A note that cannot be read (its front matter does not parse, it is too
large) or that breaks a rule is skipped and named, the rest is imported,
and the command exits 6; with --strict it imports nothing instead.`,
		Example: `  git records import ~/vault --agent alice --category notes
  git records import records.jsonl --agent alice --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Source = args[0]
			if runF != nil {
				return runF(opts)
			}
			return importRun(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Import.Format, "format", "", "source format: vault (a folder of notes), kk (a Knowledge Kit store) or jsonl; default: detected")
	fl.StringVar(&opts.Import.Type, "type", "concept", "type of a note whose front matter names no record type")
	fl.StringVar(&opts.Import.Category, "category", "notes", "category of the notes at the top of the folder; each subfolder adds a segment")
	fl.StringVar(&opts.Import.Note, "note", "", "why: the commit body and each record's create entry")
	fl.StringVar(&opts.Import.Session, "session", "", "session id")
	fl.BoolVar(&opts.Import.Strict, "strict", false, "import nothing when any note cannot be read or breaks a rule (default: skip it, import the rest, exit 6)")
	cmdutil.AgentFlag(c, &opts.Import.Agent)
	opts.Approval.Register(c)
	return c
}

func importRun(opts *ImportOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	approval, err := opts.Approval.Approval()
	if err != nil {
		return err
	}
	p := opts.Printer()
	progress := phases(opts.IO, p.JSONOn)
	rep, err := svc.Import(opts.Source, opts.Import, approval, progress)
	progress("")
	if err != nil {
		return err
	}
	if p.JSONOn {
		err = p.JSON(rep)
	} else {
		printImport(p.Out, rep)
	}
	if err == nil && len(rep.LeftOut()) > 0 {
		return cmdutil.SkippedError
	}
	return err
}

// phases shows import's phase on one line of stderr, rewritten in place,
// on a terminal and without --json; "" clears it.
func phases(io *cmdutil.IOStreams, json bool) func(format string, args ...any) {
	if json || !io.IsStderrTTY() {
		return func(string, ...any) {}
	}
	return func(format string, args ...any) {
		fmt.Fprintf(io.ErrOut, "\r\033[K"+format, args...)
	}
}

func printImport(out io.Writer, rep *service.ImportReport) {
	unchanged, differs := 0, 0
	for _, s := range rep.Skipped {
		switch s.Reason {
		case kernel.SkipUnchanged:
			unchanged++
		case kernel.SkipDiffers:
			differs++
		}
	}
	if rep.Commit == "" {
		fmt.Fprintf(out, "nothing to import from %s: %d records read, %d already in the store as they are", rep.Source, rep.Read, unchanged)
		if differs > 0 {
			fmt.Fprintf(out, ", %d in the store and different", differs)
		}
		fmt.Fprintln(out, "; no commit")
	} else {
		fmt.Fprintf(out, "imported %d records from %s in %s", len(rep.Created), rep.Source, rep.Commit[:12])
		if len(rep.Updated) > 0 {
			fmt.Fprintf(out, ", updated %d whose notes changed", len(rep.Updated))
		}
		if unchanged > 0 {
			fmt.Fprintf(out, " (%d already there)", unchanged)
		}
		fmt.Fprintln(out)
	}
	if differs > 0 {
		fmt.Fprintf(out, "not imported, a record with the same id differs (change it with git records update):\n")
		for _, s := range rep.Skipped {
			if s.Reason == kernel.SkipDiffers {
				fmt.Fprintf(out, "  %s: %s differs in %v\n", s.Origin, s.ID, s.Fields)
			}
		}
	}
	if left := rep.LeftOut(); len(left) > 0 {
		fmt.Fprintf(out, "skipped, not imported (%d):\n", len(left))
		for _, s := range left {
			if s.Reason == kernel.SkipConflict {
				fmt.Fprintf(out, "  %s: conflict: %s %s\n", s.Origin, s.ID, s.Message)
				continue
			}
			fmt.Fprintf(out, "  %s: %s: %s\n", s.Origin, s.Code, s.Message)
		}
	}
	if len(rep.Unresolved) > 0 {
		fmt.Fprintf(out, "unresolved links, kept as written (%d):\n", len(rep.Unresolved))
		for _, u := range rep.Unresolved {
			fmt.Fprintf(out, "  %s: %s: %s\n", u.Origin, u.Link, u.Reason)
		}
	}
	if len(rep.Attachments) > 0 {
		fmt.Fprintf(out, "attachments (%d):\n", len(rep.Attachments))
		for _, at := range rep.Attachments {
			fmt.Fprintf(out, "  %s: %s as record %s, payload %s\n", at.Origin, at.Path, at.ID, at.Payload)
		}
	}
	for _, n := range rep.Notices {
		if n.Origin != "" {
			fmt.Fprintf(out, "note: %s: %s\n", n.Origin, n.Message)
		} else {
			fmt.Fprintf(out, "note: %s\n", n.Message)
		}
	}
}
