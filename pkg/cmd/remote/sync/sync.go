// Package sync is `git records sync|pull|push [<remote>]`: one mechanism
// (service.Sync), three directions.
package sync

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/pkg/cmd/remote"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// SyncOptions are the inputs of sync, pull and push.
type SyncOptions struct {
	IO            *cmdutil.IOStreams
	Service       func() (*service.Service, error)
	Printer       func() cmdutil.Printer
	ProgressMeter func(title string) *cmdutil.ProgressMeter

	Remote     string // "" for the default remote
	Pull, Push bool   // which directions: the command's
	Agent      string
	Approval   cmdutil.ApprovalFlags
}

// NewCmdSync is sync: fetch, verify and merge, then push with a lease.
func NewCmdSync(f *cmdutil.Factory, runF func(*SyncOptions) error) *cobra.Command {
	return newCmd(f, runF, "sync", true, true, "Fetch, verify and merge the remote's records branch, then push with a lease",
		`  git records sync
  git records sync upstream --json`)
}

// NewCmdPull is pull: fetch, verify and merge.
func NewCmdPull(f *cmdutil.Factory, runF func(*SyncOptions) error) *cobra.Command {
	return newCmd(f, runF, "pull", true, false, "Fetch, verify and merge the remote's records branch",
		`  git records pull
  git records pull origin --agent ci`)
}

// NewCmdPush is push: the records branch with a lease.
func NewCmdPush(f *cmdutil.Factory, runF func(*SyncOptions) error) *cobra.Command {
	return newCmd(f, runF, "push", false, true, "Push the records branch with a lease (never overwrites a concurrent push)",
		`  git records push
  git records push origin`)
}

func newCmd(f *cmdutil.Factory, runF func(*SyncOptions) error, use string, pull, push bool, short, example string) *cobra.Command {
	opts := &SyncOptions{IO: f.IOStreams, Service: f.Service, Printer: f.Printer, ProgressMeter: f.ProgressMeter, Pull: pull, Push: push}
	c := &cobra.Command{
		Use:     use + " [<remote>]",
		Short:   short,
		Example: example,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Remote = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return syncRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Agent, "agent", os.Getenv("GIT_RECORDS_AGENT"), "agent recorded on merge commits (default: user.email)")
	if pull {
		opts.Approval.Register(c)
	}
	return c
}

func syncRun(opts *SyncOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	approval, err := opts.Approval.Approval()
	if err != nil {
		return err
	}
	meter := opts.ProgressMeter("Verifying commits")
	req := service.SyncRequest{Remote: opts.Remote, Pull: opts.Pull, Push: opts.Push, Agent: opts.Agent, Approval: approval, Progress: meter.Func()}
	res, refused, err := svc.Sync(req)
	meter.Stop()
	p := opts.Printer()
	if refused != nil && !p.JSONOn {
		remoteName := opts.Remote
		if res != nil {
			remoteName = res.Remote
		}
		hooks.WriteRejection(opts.IO.ErrOut, "sync from "+remoteName, refused)
	}
	if err != nil {
		return err
	}
	if p.JSONOn {
		return p.JSON(res)
	}
	remote.PrintSync(p.Out, res)
	return nil
}
