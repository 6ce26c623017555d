// Package list is `git records exec list`: the execution records your
// key owns in a session.
package list

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	execcmd "github.com/git-records/git-records/pkg/cmd/exec"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ListOptions are exec list's inputs.
type ListOptions struct {
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Owner string
	All   bool
}

// NewCmdList is the exec list command; runF (nil: listRun) runs it.
func NewCmdList(f *cmdutil.Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{ReadService: f.ReadService, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "list --owner S [--all]",
		Short: "List the execution records your key owns in a session (open ones; --all for closed ones too)",
		Example: `  git records exec list --owner s-42
  git records exec list --owner s-42 --all --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return listRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Owner, "owner", "", "owner session key")
	c.Flags().BoolVar(&opts.All, "all", false, "closed records too")
	return c
}

func listRun(opts *ListOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	rs, err := svc.ExecutionRecords(opts.Owner, opts.All)
	if err != nil {
		return err
	}
	shown := []map[string]any{}
	var lines []string
	for _, r := range rs {
		shown = append(shown, execcmd.JSON(r))
		lines = append(lines, fmt.Sprintf("%s  %-15s %-12s %s", r.ID, strings.TrimPrefix(r.Type, "execution."), r.Execution.State, r.Title))
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(map[string]any{"owner": opts.Owner, "records": shown})
	}
	if len(lines) == 0 {
		fmt.Fprintf(p.Out, "session %s owns no open execution records\n", opts.Owner)
	}
	for _, l := range lines {
		fmt.Fprintln(p.Out, l)
	}
	return nil
}
