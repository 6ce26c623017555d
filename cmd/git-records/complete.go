package main

import (
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
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

// completeMax bounds a completion's answer: a shell shows no more usefully.
const completeMax = 200

// addCompletions wires completion into every command of root.
func (a *app) addCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if handleCommands[c.Name()] && c.Parent() == root {
			c.ValidArgsFunction = a.completeHandles
		}
		for _, name := range handleFlags {
			if c.Flags().Lookup(name) != nil && name != "implemented-by" {
				_ = c.RegisterFlagCompletionFunc(name, a.completeHandles)
			}
		}
		register := func(flag string, fn cobra.CompletionFunc) {
			if c.Flags().Lookup(flag) != nil {
				_ = c.RegisterFlagCompletionFunc(flag, fn)
			}
		}
		register("type", a.completeFromIndex(func(e *gitstore.IndexEntry) []string { return []string{e.Type} }, typeNames()))
		register("category", a.completeFromIndex(func(e *gitstore.IndexEntry) []string { return []string{e.Category} }, nil))
		register("tag", a.completeFromIndex(func(e *gitstore.IndexEntry) []string { return e.Tags }, nil))
		register("status", fixed(names(kernel.Statuses)))
		register("role", fixed(names(kernel.Roles)))
		register("authority", fixed(names(kernel.Authorities)))
		if c.Name() == "link" {
			register("kind", fixed(kernel.KnownLinkKinds)) // a link's kind
		} else {
			register("kind", fixed(names(kernel.Kinds))) // a record's kind
		}
		register("format", fixed(formatsOf(c)))
		for _, sub := range c.Commands() {
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

// completionIndex is the store's index, or nil when there is none to read.
func (a *app) completionIndex() *gitstore.Index {
	v, err := a.view()
	if err != nil || !v.Exists() {
		return nil
	}
	ix, err := v.Index()
	if err != nil {
		return nil
	}
	return ix
}

// completeHandles completes record ids and aliases, each described by the
// record's title.
func (a *app) completeHandles(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	ix := a.completionIndex()
	if ix == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, id := range ix.IDsWithPrefix(prefix, completeMax) {
		out = append(out, cobra.CompletionWithDesc(id, titleOf(ix, id)))
	}
	var aliases []cobra.Completion
	ix.Each(func(e *gitstore.IndexEntry) bool {
		for _, al := range e.Aliases {
			if strings.HasPrefix(al, prefix) {
				aliases = append(aliases, cobra.CompletionWithDesc(al, oneLine(e.Title)))
			}
		}
		return len(aliases) < completeMax
	})
	sort.Strings(aliases)
	return append(out, aliases...), cobra.ShellCompDirectiveNoFileComp
}

func titleOf(ix *gitstore.Index, id string) string {
	if e := ix.Entry(id); e != nil {
		return oneLine(e.Title)
	}
	return ""
}

// completeFromIndex completes the values of an index field that the
// store's records hold, and the always-valid ones.
func (a *app) completeFromIndex(values func(*gitstore.IndexEntry) []string, always []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		seen := map[string]bool{}
		for _, v := range always {
			seen[v] = true
		}
		if ix := a.completionIndex(); ix != nil {
			ix.Each(func(e *gitstore.IndexEntry) bool {
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
