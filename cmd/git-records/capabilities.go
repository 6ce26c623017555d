package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

func (a *app) capabilitiesCommand() *cobra.Command {
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, _ := os.Getwd()
			res := service.ResolveCapabilities(a.openForFacts, a.storeDir != "", wd)
			if a.jsonOut {
				a.writeJSON(res)
				return nil
			}
			caps := res.Capabilities
			var buf bytes.Buffer
			w := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
			for _, c := range caps {
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
			for _, line := range strings.SplitAfter(buf.String(), "\n") {
				fmt.Fprint(a.out, strings.TrimRight(line, " \n"), strings.Repeat("\n", strings.Count(line, "\n")))
			}
			return nil
		},
	}
}

// openForFacts opens the store like every command does, except that a
// standalone store that is not there yet is left alone (nil, nil): opening
// it would create it.
func (a *app) openForFacts() (*gitstore.Store, error) {
	if a.storeDir == "" {
		return a.open()
	}
	abs, err := filepath.Abs(a.storeDir)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeUsage, err, "store path %q", a.storeDir)
	}
	if _, err := os.Stat(filepath.Join(abs, ".git")); err != nil {
		return nil, nil
	}
	return gitstore.Open(abs, gitstore.Options{Ref: a.ref})
}
