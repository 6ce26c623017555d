//go:build mangen

package root

// `make man` builds the binary with the mangen tag, which adds a hidden
// `man DIR` command that writes a man page per command (cobra/doc, roff
// through go-md2man). The installed binary does not carry it: the pages are
// generated once, at build time, and git-records starts no slower for it.

import (
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
)

func init() {
	extraCommands = append(extraCommands, func(*cmdutil.Factory) *cobra.Command {
		return &cobra.Command{
			Use:    "man DIR",
			Short:  "Write the man pages into DIR",
			Hidden: true,
			Args:   cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				// The pages are Markdown to go-md2man: <handle> would be
				// read as an HTML tag and dropped.
				var escape func(c *cobra.Command)
				escape = func(c *cobra.Command) {
					c.Use = strings.ReplaceAll(c.Use, "<", `\<`)
					c.Short = strings.ReplaceAll(c.Short, "<", `\<`)
					c.Long = strings.ReplaceAll(c.Long, "<", `\<`)
					for _, sub := range c.Commands() {
						escape(sub)
					}
				}
				escape(cmd.Root())
				header := &doc.GenManHeader{Title: "GIT-RECORDS", Section: "1", Source: "git-records " + cmdutil.Version(), Manual: "Git Records Manual"}
				if err := os.MkdirAll(args[0], 0o755); err != nil {
					return kernel.Wrap(kernel.CodeUsage, err, "make %s", args[0])
				}
				if err := doc.GenManTree(cmd.Root(), header, args[0]); err != nil {
					return kernel.Wrap(kernel.CodeInternal, err, "write the man pages into %s", args[0])
				}
				return nil
			},
		}
	})
}
