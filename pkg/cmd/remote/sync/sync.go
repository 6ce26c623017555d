// Package sync is `git records sync|pull|push [<remote>]`: one mechanism
// (service.Sync), three directions.
package sync

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
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
	RetryFor   time.Duration // how long a push that lost a race is retried
}

// NewCmdSync is sync: fetch, verify, replay ours on the remote's tip, then
// push with a lease.
func NewCmdSync(f *cmdutil.Factory, runF func(*SyncOptions) error) *cobra.Command {
	return newCmd(f, runF, "sync", true, true, "Fetch and verify the remote's records branch, replay our commits on it, push with a lease",
		`  git records sync
  git records sync upstream --json
  git records sync --retry-for 10m`)
}

// NewCmdPull is pull: fetch, verify, and fast-forward or replay ours on it.
func NewCmdPull(f *cmdutil.Factory, runF func(*SyncOptions) error) *cobra.Command {
	return newCmd(f, runF, "pull", true, false, "Fetch and verify the remote's records branch, and replay our commits on it",
		`  git records pull
  git records pull origin --agent ci`)
}

// NewCmdPush is push: our commits on the remote's tip, with a lease.
func NewCmdPush(f *cmdutil.Factory, runF func(*SyncOptions) error) *cobra.Command {
	return newCmd(f, runF, "push", false, true, "Publish our commits on the remote's records branch with a lease (never overwrites a concurrent push)",
		`  git records push
  git records push origin --retry-for 30s`)
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
	if push {
		c.Flags().DurationVar(&opts.RetryFor, "retry-for", service.DefaultRetryFor, "how long to keep retrying a push that lost a race with another writer's before CONFLICT")
	}
	return c
}

func syncRun(opts *SyncOptions) error {
	if opts.Push && opts.RetryFor <= 0 {
		return cmdutil.AboutFlag("--retry-for", kernel.Errorf(kernel.CodeUsage, "--retry-for must be a positive duration, such as 30s or 2m"))
	}
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	approval, err := opts.Approval.Approval()
	if err != nil {
		return err
	}
	meter := opts.ProgressMeter("Verifying commits")
	req := service.SyncRequest{Remote: opts.Remote, Pull: opts.Pull, Push: opts.Push, Agent: opts.Agent, Approval: approval, RetryFor: opts.RetryFor, Progress: meter.Func()}
	res, refused, err := svc.Sync(req)
	meter.Stop()
	p := opts.Printer()
	if refused != nil && !p.JSONOn {
		remoteName := opts.Remote
		if res != nil {
			remoteName = res.Remote
		}
		service.WriteRejection(opts.IO.ErrOut, "sync from "+remoteName, refused)
	}
	if err != nil {
		if res != nil && len(res.Kept) > 0 && !p.JSONOn {
			// What was published is reported; the error names what was not.
			remote.PrintSync(p.Out, res)
		}
		return err
	}
	if p.JSONOn {
		return p.JSON(res)
	}
	remote.PrintSync(p.Out, res)
	return nil
}
