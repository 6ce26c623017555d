// Package capabilities is `git records capabilities`: which Agent Kit
// capabilities this store offers here, and why not when it cannot.
package capabilities

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// CapabilitiesOptions are capabilities' inputs.
type CapabilitiesOptions struct {
	IO      *cmdutil.IOStreams
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer

	StoreDir string // --store: a standalone store that may not exist yet
	Ref      string
	WorkDir  string
}

// NewCmdCapabilities is the capabilities command; runF (nil:
// capabilitiesRun) runs it.
func NewCmdCapabilities(f *cmdutil.Factory, runF func(*CapabilitiesOptions) error) *cobra.Command {
	opts := &CapabilitiesOptions{IO: f.IOStreams, Service: f.Service, Printer: f.Printer}
	return &cobra.Command{
		Use:   "capabilities",
		Short: "Say which Agent Kit capabilities this store offers here, and why not when it cannot",
		Long: `capabilities answers the Agent Kit's capability resolution for this place:
for record.read/write/query, relation.read/write/query, observe.records,
execute.action verify_record, transform.normalize and subscribe.changes, the
state (available, blocked, unconfigured, unsupported, stale, denied,
errored), the reason, the requirements, the risk and a suggested recovery.
It reads and never writes: a --store DIR that does not exist yet is reported
as set up on first use, not created.

subscribe.changes is pushed: git records watch --format jsonl prints each
commit as it lands; restart it with --since <the last commit printed>.`,
		Example: `  git records capabilities
  git records --store ~/notes capabilities --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.StoreDir, opts.Ref, opts.WorkDir = f.StoreDir, f.Ref, f.WorkDir
			if runF != nil {
				return runF(opts)
			}
			return capabilitiesRun(opts)
		},
	}
}

func capabilitiesRun(opts *CapabilitiesOptions) error {
	wd := opts.WorkDir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	res := service.ResolveCapabilities(func() (*service.Service, error) { return openForFacts(opts) }, opts.StoreDir != "", wd)
	return opts.Printer().Result(res, func(out io.Writer) error {
		var buf bytes.Buffer
		w := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
		for _, c := range res.Capabilities {
			name := c.Capability
			if c.Action != "" {
				name += " " + c.Action
			}
			note := c.Reason
			if c.Mode != "" {
				note = c.Mode
			}
			if c.SuggestedRecovery != "" {
				note += ": " + c.SuggestedRecovery
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", name, c.State, c.Risk, strings.TrimPrefix(note, ": "))
		}
		if err := w.Flush(); err != nil {
			return err
		}
		// tabwriter pads the last column too: no trailing blanks.
		for _, line := range strings.SplitAfter(buf.String(), "\n") {
			fmt.Fprint(out, strings.TrimRight(line, " \n"), strings.Repeat("\n", strings.Count(line, "\n")))
		}
		return nil
	})
}

// openForFacts opens the store like every command does, except that a
// standalone store that is not there yet is left alone (nil, nil): opening
// it would create it.
func openForFacts(opts *CapabilitiesOptions) (*service.Service, error) {
	if opts.StoreDir == "" {
		return opts.Service()
	}
	return service.OpenStandaloneIfPresent(opts.StoreDir, service.Options{Ref: opts.Ref}, opts.WorkDir)
}
