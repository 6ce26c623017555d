package root

import (
	"slices"

	"github.com/spf13/cobra"
)

// helpGroups sort the commands of `git records --help` by what they do.
var helpGroups = []struct {
	id, title string
	commands  []string
}{
	{"write", "Write records (each one signed commit):", []string{"init", "create", "update", "edit", "link", "propose", "apply", "reject", "supersede", "retire", "observe", "import", "migrate"}},
	{"read", "Read and browse:", []string{"show", "links", "graph", "serve", "list", "search", "log", "blame", "proposals", "conflicts", "fresh", "watch", "export", "audit"}},
	{"trust", "Verify, review and share:", []string{"verify", "diff", "reindex", "sync", "pull", "push", "merge", "hooks", "policy", "signers", "approve"}},
	{"machine", "For programs:", []string{"contract", "capabilities", "mcp"}},
}

// groupHelp puts each command in its help group; one not listed stays in
// cobra's "Additional Commands". The root of most processes holds one
// command or none, so the groups are searched, not made into a map.
func groupHelp(root *cobra.Command) {
	for _, g := range helpGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
	}
	for _, c := range root.Commands() {
		for _, g := range helpGroups {
			if slices.Contains(g.commands, c.Name()) {
				c.GroupID = g.id
				break
			}
		}
	}
}
