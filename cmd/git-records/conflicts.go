package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// conflictView is a logged conflict with the command that restores the
// losing value ("" when no command can: the field is set at create).
type conflictView struct {
	kernel.LoggedConflict
	Restore string `json:"restore,omitempty"`
}

// conflictsCommand lists the losing values merges kept in mutation logs.
func (a *app) conflictsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "conflicts [<handle>]",
		Short: "List values that lost a merge conflict (kept in mutation logs), with the command that restores each",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.view()
			if err != nil {
				return err
			}
			out, err := listConflicts(v, args)
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(map[string]any{"conflicts": out})
				return nil
			}
			if len(out) == 0 {
				fmt.Fprintln(a.out, "no conflicts")
				return nil
			}
			for _, c := range out {
				fmt.Fprintf(a.out, "%s %s: merge at %s kept %s (from %s), lost %s (from %s)\n", c.ID, c.Field, c.At,
					quoteShort(c.Kept), short12(c.KeptFrom), quoteShort(c.Lost), short12(c.LostFrom))
				if c.Restore != "" {
					fmt.Fprintf(a.out, "    restore: %s\n", c.Restore)
				} else {
					fmt.Fprintf(a.out, "    no command restores %s: it is set when a record is created\n", c.Field)
				}
			}
			return nil
		},
	}
}

// listConflicts reads the logged conflicts of the record args names, or of
// every record, each with the command that restores its losing value.
func listConflicts(v *gitstore.View, args []string) ([]conflictView, error) {
	var ids []string
	var err error
	if len(args) == 1 {
		id, err := v.Resolve(args[0])
		if err != nil {
			return nil, err
		}
		if id == "" {
			return nil, kernel.Errorf(kernel.CodeNotFound, "no record matches %q: check the id, alias or 8+ character prefix (git records list)", args[0])
		}
		ids = []string{id}
	} else if ids, err = v.IDs(); err != nil {
		return nil, err
	}
	out := []conflictView{}
	for _, id := range ids {
		r, err := v.Record(id)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		for _, c := range kernel.LoggedConflicts(r) {
			out = append(out, conflictView{c, restoreCommand(c)})
		}
	}
	return out, nil
}

// restoreCommand is the update that puts the losing value back.
func restoreCommand(c kernel.LoggedConflict) string {
	base := "git records update " + c.ID + " --agent A "
	switch c.Field {
	case "title", "category", "expires_at", "ttl_seconds":
		return base + "--" + strings.ReplaceAll(c.Field, "_", "-") + " " + shellQuote(c.Lost)
	case "body":
		return base + "--body-file F   (F: the lost body, git records conflicts " + c.ID + " --json prints it)"
	}
	return ""
}

func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return strconv.Quote(s)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
