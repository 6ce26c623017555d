// Package export is `git records export <dir>`: every record as a vault
// Obsidian and zk open, or as JSONL.
package export

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ExportOptions are export's inputs.
type ExportOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Dest   string // a directory, a JSONL file, or - for stdout
	Format string // vault or jsonl
}

// NewCmdExport is the export command; runF (nil: exportRun) runs it.
func NewCmdExport(f *cmdutil.Factory, runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "export <dir> [--format vault|jsonl]",
		Short: "Write every record out as a vault Obsidian, zk, Foam or Dendron open, or as JSONL",
		Long: `Export writes every record (retired ones too) into a new or empty directory
as a vault for the tool most imported notes came from (Obsidian, zk, Foam,
Dendron, Hugo, Jekyll): each imported note where its source had it, with
its front matter, body and links as the source wrote them, each attachment
as the file it was, and the file that tool keeps at its root. Every other
record is one Markdown file with its frontmatter as the store keeps it, in
folders by category, named by alias or title (unique without regard to
case), with [[wikilinks]] rewritten from ids to those names; so is an
imported note changed here in a way its front matter cannot say. With
--format jsonl it writes one record JSON per line to the file <dir> names
(- for stdout). git records import of an export gives the same records
back.`,
		Example: `  git records export ~/vault
  git records export records.jsonl --format jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dest = args[0]
			if opts.Dest == "-" && f.JSON {
				return kernel.Errorf(kernel.CodeUsage, "export - writes the records to stdout: leave out --json")
			}
			if runF != nil {
				return runF(opts)
			}
			return exportRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "vault", "vault (a folder of Markdown notes) or jsonl")
	return c
}

func exportRun(opts *ExportOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	p := opts.Printer()
	rep, err := svc.Export(opts.Dest, opts.Format, p.Out)
	if err != nil {
		return err
	}
	if n := len(rep.UnsafeAliases); n > 0 {
		shown := rep.UnsafeAliases[:min(n, 5)]
		fmt.Fprintf(opts.IO.ErrOut, "warning: %d aliases are not plain relative paths (%q%s): their records' files are named by title\n",
			n, shown, map[bool]string{true: " …"}[n > len(shown)])
	}
	switch {
	case p.JSONOn:
		return p.JSON(rep)
	case opts.Dest != "-":
		_, err = fmt.Fprintf(p.Out, "exported %d records to %s (%s)\n", rep.Records, rep.Path, rep.Format)
		if err == nil && rep.Kind != "" && rep.Notes+rep.Attachments+len(rep.AsRecords) > 0 {
			err = printVault(p, rep)
		}
	}
	return err
}

// printVault says what was written as the source had it and what not.
func printVault(p cmdutil.Printer, rep *service.ExportReport) error {
	if _, err := fmt.Fprintf(p.Out, "for %s: %d notes and %d attachments as their source wrote them\n", rep.Kind, rep.Notes, rep.Attachments); err != nil {
		return err
	}
	if len(rep.AsRecords) == 0 {
		return nil
	}
	fmt.Fprintf(p.Out, "written as record files, with every field (%d):\n", len(rep.AsRecords))
	for i, a := range rep.AsRecords {
		if i == 20 {
			_, err := fmt.Fprintf(p.Out, "  … %d more (--json lists them all)\n", len(rep.AsRecords)-i)
			return err
		}
		if _, err := fmt.Fprintf(p.Out, "  %s: %s\n", a.Path, a.Reason); err != nil {
			return err
		}
	}
	return nil
}
