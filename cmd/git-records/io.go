package main

import (
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"
)

// The I/O layer people see: colour and a pager on a terminal, as git does,
// and never in a pipe, so what scripts and the golden tests read is the
// same whatever the terminal.

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// colorMode is the colour setting in force: --color when given, else git's
// color.ui, else auto.
func colorMode(flag string, flagSet bool, config func(string) (string, bool)) string {
	if flagSet || flag != "auto" {
		return flag // given, or turned on for the pager
	}
	if config != nil {
		if v, ok := config("color.ui"); ok {
			switch strings.ToLower(v) {
			case "always":
				return "always"
			case "never", "false", "no", "off", "0":
				return "never"
			}
		}
	}
	return "auto"
}

// useColor decides colour for w: always, never, or (auto) on a terminal
// that is not dumb, unless NO_COLOR is set.
func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// colorOn is useColor with this run's --color and the repository's color.ui.
func (a *app) colorOn(cmd *cobra.Command, w io.Writer) bool {
	var config func(string) (string, bool)
	if s, err := a.open(); err == nil {
		config = s.ConfigValue
	}
	return useColor(colorMode(a.color, cmd.Flags().Changed("color"), config), w)
}

// pagerCommand picks the pager in git's order: GIT_PAGER, core.pager,
// PAGER, else less. "" and "cat" mean no pager.
func pagerCommand(config func(string) (string, bool)) string {
	if p, ok := os.LookupEnv("GIT_PAGER"); ok {
		return p
	}
	if config != nil {
		if p, ok := config("core.pager"); ok {
			return p
		}
	}
	if p, ok := os.LookupEnv("PAGER"); ok {
		return p
	}
	return "less"
}

// pagedCommands print what can run past a screen.
var pagedCommands = map[string]bool{"show": true, "list": true, "log": true, "links": true, "graph": true, "diff": true,
	"blame": true, "search": true, "proposals": true, "conflicts": true, "audit": true}

// startPager sends the rest of this run's output through the pager, as git
// does for long output: only on a terminal, never with --json or
// --no-pager. LESS=FRX (and LV=-c) unless set: quit when it fits a screen,
// keep colours, leave the text on screen.
func (a *app) startPager(cmd *cobra.Command) {
	if a.noPager || a.jsonOut || !pagedCommands[cmd.Name()] || cmd.Parent() != cmd.Root() || !isTerminal(a.out) {
		return
	}
	var config func(string) (string, bool)
	if s, err := a.open(); err == nil {
		config = s.ConfigValue
	}
	pager := strings.TrimSpace(pagerCommand(config))
	if pager == "" || pager == "cat" {
		return
	}
	p := exec.Command("sh", "-c", pager)
	p.Stdout, p.Stderr = a.out, a.err
	p.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		p.Env = append(p.Env, "LESS=FRX")
	}
	if _, ok := os.LookupEnv("LV"); !ok {
		p.Env = append(p.Env, "LV=-c")
	}
	in, err := p.StdinPipe()
	if err != nil || p.Start() != nil {
		return // no pager: print as is
	}
	if a.color == "auto" && !cmd.Flags().Changed("color") {
		// The pager shows what a terminal would: keep the colour on.
		a.color = "always"
	}
	a.out = in
	a.pagerDone = func() {
		in.Close()
		_ = p.Wait()
	}
}

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
