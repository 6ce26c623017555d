// Package await is `git records exec await <handle>`: wait until an
// execution record you own reaches a state.
package await

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// AwaitOptions are exec await's inputs.
type AwaitOptions struct {
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer
	ErrOut      io.Writer

	Handle   string
	Session  string
	States   []string // --state, split; none: any closed state
	Timeout  time.Duration
	Interval time.Duration
}

// NewCmdAwait is the exec await command; runF (nil: awaitRun) runs it.
func NewCmdAwait(f *cmdutil.Factory, runF func(*AwaitOptions) error) *cobra.Command {
	opts := &AwaitOptions{ReadService: f.ReadService, Printer: f.Printer}
	var states string
	c := &cobra.Command{
		Use:     "await <handle> --session S [--state completed,failed] [--timeout 30s]",
		Short:   "Wait until an execution record you own reaches a state (default: any closed state)",
		Example: `  git records exec await 01hx3k9m --session s-42 --timeout 5m`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handle = args[0]
			opts.ErrOut = f.IOStreams.ErrOut
			opts.States = nil
			if states != "" {
				opts.States = strings.Split(states, ",")
				for _, s := range opts.States {
					if err := cmdutil.OneOf("--state", s, cmdutil.Names(kernel.ExecStates)); err != nil {
						return err
					}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return awaitRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Session, "session", "", "your session key: only the owner awaits")
	c.Flags().StringVar(&states, "state", "", "comma-separated states to wait for (default: any closed state)")
	c.Flags().DurationVar(&opts.Timeout, "timeout", 0, "how long to wait (0: check once)")
	c.Flags().DurationVar(&opts.Interval, "interval", 500*time.Millisecond, "how often to look")
	return c
}

func awaitRun(opts *AwaitOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	p := opts.Printer()
	deadline := time.Now().Add(opts.Timeout)
	for {
		r, err := svc.ExecutionState(opts.Handle, opts.Session)
		if err != nil {
			return err
		}
		reached := (len(opts.States) == 0 && !r.IsOpen()) || slices.Contains(opts.States, string(r.Execution.State))
		if reached || !time.Now().Before(deadline) {
			if p.JSONOn {
				_ = p.JSON(map[string]any{"id": r.ID, "state": r.Execution.State, "reached": reached})
			} else {
				fmt.Fprintf(p.Out, "%s %s\n", r.ID, r.Execution.State)
			}
			if !reached {
				fmt.Fprintf(opts.ErrOut, "git-records: %s is still %s after %s\n", r.ID, r.Execution.State, opts.Timeout)
				return cmdutil.SilentError
			}
			return nil
		}
		time.Sleep(opts.Interval)
	}
}
