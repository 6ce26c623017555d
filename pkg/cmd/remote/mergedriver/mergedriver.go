// Package mergedriver is `git records merge-driver`: git's merge driver
// for record files (merge.records.driver = git-records merge-driver %O %A
// %B %P), so git merge and git pull of records branches use the same
// record-level merge as sync.
package mergedriver

import (
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
)

// MergeDriverOptions are merge-driver's inputs: the files git hands it.
type MergeDriverOptions struct {
	Base, Ours, Theirs string // %O %A %B; the result is written to Ours
	Path               string // %P, for messages
	Agent              string // GIT_RECORDS_AGENT, else "git merge"
}

// NewCmdMergeDriver is the merge-driver command; runF (nil:
// mergeDriverRun) runs it.
func NewCmdMergeDriver(_ *cmdutil.Factory, runF func(*MergeDriverOptions) error) *cobra.Command {
	opts := &MergeDriverOptions{}
	return &cobra.Command{
		Use:     "merge-driver <base> <ours> <theirs> [<path>]",
		Short:   "Merge one record file three ways (git's merge driver)",
		Example: `  git config merge.records.driver "git-records merge-driver %O %A %B %P"   # git records hooks install sets it`,
		Hidden:  true,
		// git runs it, with paths that may hold any byte.
		Annotations: map[string]string{cmdutil.GitInvoked: "yes"},
		Args:        cobra.RangeArgs(3, 4),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Base, opts.Ours, opts.Theirs = args[0], args[1], args[2]
			if len(args) == 4 {
				opts.Path = args[3]
			}
			if opts.Agent = os.Getenv("GIT_RECORDS_AGENT"); opts.Agent == "" {
				opts.Agent = "git merge"
			}
			if runF != nil {
				return runF(opts)
			}
			return mergeDriverRun(opts)
		},
	}
}

func mergeDriverRun(opts *MergeDriverOptions) error {
	read := func(p string) (*kernel.Record, error) {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, kernel.Wrap(kernel.CodeUsage, err, "read %s", p)
		}
		if len(strings.TrimSpace(string(data))) == 0 {
			return nil, nil // the file does not exist on that side
		}
		return gitstore.DecodeRecord(data)
	}
	base, err := read(opts.Base)
	if err != nil {
		return err
	}
	ours, err := read(opts.Ours)
	if err != nil {
		return err
	}
	theirs, err := read(opts.Theirs)
	if err != nil {
		return err
	}
	oursID, theirsID := sides()
	res := kernel.MergeRecord(base, kernel.Side{Record: ours, Commit: oursID}, kernel.Side{Record: theirs, Commit: theirsID},
		kernel.MergeInfo{At: time.Now().Truncate(time.Second), Agent: opts.Agent, Text: gitstore.MergeText})
	if res.Record == nil {
		return nil
	}
	data, err := gitstore.EncodeRecord(res.Record)
	if err != nil {
		return err
	}
	return os.WriteFile(opts.Ours, data, 0o644)
}

// sides names the two sides of the merge git is running, so a tie between
// equal mutation times goes to the larger commit id exactly as in sync,
// and the log entries name commits: ours is HEAD, theirs the commit git
// announces to merge drivers as GITHEAD_<id>. Outside a merge the sides
// keep the labels "ours" and "theirs".
func sides() (ours, theirs string) {
	ours, theirs = "ours", "theirs"
	if run := gitdir.Run("", "rev-parse", "--verify", "-q", "HEAD"); run.Err == nil {
		ours = strings.TrimSpace(string(run.Stdout))
	}
	var heads []string
	for _, kv := range os.Environ() {
		if name, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(name, "GITHEAD_") && len(name) == len("GITHEAD_")+40 {
			heads = append(heads, strings.ToLower(strings.TrimPrefix(name, "GITHEAD_")))
		}
	}
	if len(heads) == 1 {
		theirs = heads[0]
	}
	return ours, theirs
}
