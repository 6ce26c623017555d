// Package conflicts is `git records conflicts [<handle>]`: the values that
// lost a merge conflict, kept in mutation logs, with the command that
// restores each.
package conflicts

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ConflictsOptions are conflicts' inputs.
type ConflictsOptions struct {
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Handle string // "" for every record
}

// NewCmdConflicts is the conflicts command; runF (nil: conflictsRun) runs it.
func NewCmdConflicts(f *cmdutil.Factory, runF func(*ConflictsOptions) error) *cobra.Command {
	opts := &ConflictsOptions{ReadService: f.ReadService, Printer: f.Printer}
	return &cobra.Command{
		Use:   "conflicts [<handle>]",
		Short: "List values that lost a merge conflict (kept in mutation logs), with the command that restores each",
		Example: `  git records conflicts
  git records conflicts auth/token-refresh --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Handle = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return conflictsRun(opts)
		},
	}
}

func conflictsRun(opts *ConflictsOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	out, err := svc.Conflicts(opts.Handle)
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(map[string]any{"conflicts": out})
	}
	if len(out) == 0 {
		_, err := fmt.Fprintln(p.Out, "no conflicts")
		return err
	}
	for _, c := range out {
		fmt.Fprintf(p.Out, "%s %s: merge at %s kept %s (from %s), lost %s (from %s)\n", c.ID, c.Field, c.At,
			quoteShort(c.Kept), short12(c.KeptFrom), quoteShort(c.Lost), short12(c.LostFrom))
		if c.Restore != "" {
			fmt.Fprintf(p.Out, "    restore: %s\n", c.Restore)
		} else {
			fmt.Fprintf(p.Out, "    no command restores %s: it is set when a record is created\n", c.Field)
		}
	}
	return nil
}

func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return strconv.Quote(s)
}

func short12(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
