package root

import (
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// Shell completion: cobra answers `git-records __complete <args>` for the
// scripts `git-records completion bash|zsh|fish` prints, and git's own
// bash completion reaches it through _git_records (scripts/git-records.bash,
// installed by make install). Handles (ids and aliases), types,
// categories, tags and link kinds complete from the store; a store that
// cannot be read completes nothing, never an error.

// handleCommands take a record handle as their arguments.
var handleCommands = map[string]bool{
	"show": true, "links": true, "graph": true, "edit": true, "update": true, "link": true, "log": true, "blame": true,
	"propose": true, "apply": true, "reject": true, "retire": true, "supersede": true, "conflicts": true,
	"proposals": true, "fresh": true,
}

// handleFlags name a record.
var handleFlags = []string{"to", "proposer", "implemented-by"}

// completer answers completions from the store the Factory opens.
type completer struct{ f *cmdutil.Factory }

// completeMax bounds a completion's answer: a shell shows no more usefully.
const completeMax = 200

// addCompletions wires completion into every command of root.
func addCompletions(f *cmdutil.Factory, root *cobra.Command) {
	comp := completer{f}
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if handleCommands[cmd.Name()] && cmd.Parent() == root {
			cmd.ValidArgsFunction = comp.completeHandles
		}
		for _, name := range handleFlags {
			if cmd.Flags().Lookup(name) != nil && name != "implemented-by" {
				_ = cmd.RegisterFlagCompletionFunc(name, comp.completeHandles)
			}
		}
		register := func(flag string, fn cobra.CompletionFunc) {
			if cmd.Flags().Lookup(flag) != nil {
				_ = cmd.RegisterFlagCompletionFunc(flag, fn)
			}
		}
		register("type", comp.completeFromIndex(func(e service.Entry) []string { return []string{e.Type} }, typeNames()))
		register("category", comp.completeFromIndex(func(e service.Entry) []string { return []string{e.Category} }, nil))
		register("tag", comp.completeFromIndex(func(e service.Entry) []string { return e.Tags }, nil))
		register("status", fixed(cmdutil.Names(kernel.Statuses)))
		register("role", fixed(cmdutil.Names(kernel.Roles)))
		register("authority", fixed(cmdutil.Names(kernel.Authorities)))
		if cmd.Name() == "link" {
			register("kind", fixed(kernel.KnownLinkKinds)) // a link's kind
		} else {
			register("kind", fixed(cmdutil.Names(kernel.Kinds))) // a record's kind
		}
		register("format", fixed(formatsOf(cmd)))
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// formatsOf reads a --format flag's choices from its usage ("a, b or c").
func formatsOf(c *cobra.Command) []string {
	f := c.Flags().Lookup("format")
	if f == nil {
		return nil
	}
	var out []string
	for _, w := range strings.FieldsFunc(f.Usage, func(r rune) bool { return r == ',' || r == ' ' || r == '|' }) {
		if w != "or" && w != "" && strings.ToLower(w) == w && !strings.ContainsAny(w, "()") {
			out = append(out, w)
		}
	}
	if len(out) > 5 {
		return nil // not a list of choices
	}
	return out
}

func typeNames() []string {
	out := make([]string, 0, len(kernel.Types))
	for _, t := range kernel.Types {
		out = append(out, t.Name)
	}
	return out
}

func fixed(values []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completionView is the records branch, or nil when there is none to read.
func (c completer) completionView() *service.View {
	svc, err := c.f.ReadService()
	if err != nil {
		return nil
	}
	v, err := svc.View()
	if err != nil || !v.Exists() || v.Indexed() != nil {
		return nil
	}
	return v
}

// completeHandles completes record ids and aliases, each described by the
// record's title.
func (c completer) completeHandles(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	v := c.completionView()
	if v == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	ids, _ := v.IDsWithPrefix(prefix, completeMax)
	for _, id := range ids {
		out = append(out, cobra.CompletionWithDesc(id, titleOf(v, id)))
	}
	var aliases []cobra.Completion
	_ = v.EachEntry("", func(e service.Entry) bool {
		for _, al := range e.Aliases {
			if strings.HasPrefix(al, prefix) {
				aliases = append(aliases, cobra.CompletionWithDesc(al, service.OneLine(e.Title)))
			}
		}
		return len(aliases) < completeMax
	})
	sort.Strings(aliases)
	return append(out, aliases...), cobra.ShellCompDirectiveNoFileComp
}

func titleOf(v *service.View, id string) string {
	if title, ok := v.Title(id); ok {
		return service.OneLine(title)
	}
	return ""
}

// completeFromIndex completes the values of an index field that the
// store's records hold, and the always-valid ones.
func (c completer) completeFromIndex(values func(service.Entry) []string, always []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		seen := map[string]bool{}
		for _, v := range always {
			seen[v] = true
		}
		if v := c.completionView(); v != nil {
			_ = v.EachEntry("", func(e service.Entry) bool {
				for _, v := range values(e) {
					seen[v] = true
				}
				return true
			})
		}
		var out []cobra.Completion
		for v := range seen {
			if v != "" && strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		slices.Sort(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
