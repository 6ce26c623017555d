// Package update is `git records update <handle>`: change a record's
// mutable fields in one signed commit.
package update

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// UpdateOptions are update's inputs.
type UpdateOptions struct {
	IO           *cmdutil.IOStreams
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error

	Handle   string
	Fields   kernel.UpdateFields // only the fields given are set
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdUpdate is the update command; runF (nil: updateRun) runs it.
func NewCmdUpdate(f *cmdutil.Factory, runF func(*UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{IO: f.IOStreams, Service: f.Service, PrintWritten: f.PrintWritten}
	var title, category, body, bodyFile, expires, ttl string
	var tags, scope []string
	c := &cobra.Command{
		Use:   "update <handle> --agent A [--title X] [--body TEXT | --body-file F] [--category C] [--tag t]… [--alias a]…",
		Short: "Change a record's mutable fields (one signed commit)",
		Example: `  git records update auth/token-refresh --title "Token refresh and rotation" --agent alice
  git records update k7m2qxw4 --body-file notes.md --tag auth --tag tokens --agent alice --note "rewrote the summary"
  git records update k7m2qxw4 --ttl-seconds "" --agent alice   # clear the ttl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handle = args[0]
			f := &opts.Fields
			fl := cmd.Flags()
			if fl.Changed("title") {
				f.Title = &title
			}
			if fl.Changed("category") {
				f.Category = &category
			}
			if fl.Changed("tag") {
				f.Tags = &tags
			}
			b, err := cmdutil.ReadBody(opts.IO.In, body, bodyFile, false, fl.Changed("body"))
			if err != nil {
				return err
			}
			f.Body = b
			if len(scope) > 0 {
				f.Scope = &kernel.Scope{Paths: scope}
			}
			// Given empty, each clears its field.
			if fl.Changed("expires-at") {
				if f.ExpiresAt, err = kernel.ParseExpiryInput(expires); err != nil {
					return err
				}
			}
			if fl.Changed("ttl-seconds") {
				if f.TTLSeconds, err = kernel.ParseTTLInput(ttl); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return updateRun(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&title, "title", "", "new title")
	fl.StringVar(&category, "category", "", "new category")
	fl.StringVar(&body, "body", "", "new body")
	fl.StringVar(&bodyFile, "body-file", "", "read the new body from `FILE` (- for stdin)")
	fl.StringArrayVar(&tags, "tag", nil, "replace the tags (repeatable)")
	fl.StringArrayVar(&opts.Fields.Aliases, "alias", nil, "add a slug alias (repeatable; aliases are never removed)")
	fl.StringVar(&expires, "expires-at", "", "new expiry (empty clears it)")
	fl.StringVar(&ttl, "ttl-seconds", "", "new ttl in seconds (empty clears it)")
	fl.StringArrayVar(&scope, "scope", nil, "re-capture the scope over `PATH` (repeatable)")
	cmdutil.EvidenceFlags(c, &opts.Evidence, &opts.Approval)
	return c
}

func updateRun(opts *UpdateOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Update(opts.Handle, opts.Fields, opts.Evidence, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
