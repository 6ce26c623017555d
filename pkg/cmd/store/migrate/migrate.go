// Package migrate is `git records migrate`: the store rewritten to the
// format this git-records writes.
package migrate

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// MigrateOptions are migrate's inputs.
type MigrateOptions struct {
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer

	Agent    string
	Approval cmdutil.ApprovalFlags
}

// NewCmdMigrate is the migrate command; runF (nil: migrateRun) runs it.
func NewCmdMigrate(f *cmdutil.Factory, runF func(*MigrateOptions) error) *cobra.Command {
	opts := &MigrateOptions{Service: f.Service, Printer: f.Printer}
	c := &cobra.Command{
		Use:     "migrate --agent A",
		Short:   "Rewrite the store to the format this git-records writes, in one signed commit (nothing when it is current)",
		Example: `  git records migrate --agent alice`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return migrateRun(opts)
		},
	}
	cmdutil.AgentFlag(c, &opts.Agent)
	opts.Approval.Register(c)
	return c
}

func migrateRun(opts *MigrateOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	approval, err := opts.Approval.Approval()
	if err != nil {
		return err
	}
	res, err := svc.Migrate(opts.Agent, approval)
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(res)
	}
	if res.Unchanged {
		_, err = fmt.Fprintf(p.Out, "the store is in format %d, the current one: nothing to migrate\n", res.Format)
	} else {
		_, err = fmt.Fprintf(p.Out, "migrated to format %d: %d records rewritten (commit %s)\n", res.Format, res.Records, res.Commit[:12])
	}
	return err
}
