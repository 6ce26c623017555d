package root

import "github.com/spf13/cobra"

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
// cobra's "Additional Commands".
func groupHelp(root *cobra.Command) {
	group := map[string]string{}
	for _, g := range helpGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, c := range g.commands {
			group[c] = g.id
		}
	}
	for _, c := range root.Commands() {
		if id, ok := group[c.Name()]; ok {
			c.GroupID = id
		}
	}
}
