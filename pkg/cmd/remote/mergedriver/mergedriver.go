// Package mergedriver is `git records merge-driver`: git's merge driver
// for record files (merge.records.driver = git-records merge-driver %O %A
// %B %P), so git merge and git pull of records branches use the same
// record-level merge as sync.
package mergedriver

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
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
	return service.MergeRecordFiles(opts.Base, opts.Ours, opts.Theirs, opts.Agent)
}
