package cmdutil

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/term"
)

// IOStreams are a run's standard streams, and the I/O layer people see:
// colour and a pager on a terminal, as git does, and never in a pipe, so
// what scripts and the golden tests read is the same whatever the terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // the pager's input while a pager runs
	ErrOut io.Writer

	colorForced bool // a pager runs: auto colour is on
	pagerDone   func()
}

// System are the process's streams.
func System() *IOStreams { return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr} }

// Test are streams over buffers, for in-process tests: stdin, stdout, stderr.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsTerminal reports whether w is a terminal. It asks the terminal driver
// (isatty), as git does: a character device is not enough, /dev/null is one,
// and output thrown away there must not start a pager (two more processes).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// IsStdoutTTY reports whether what the command prints reaches a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return IsTerminal(s.Out) }

// IsStderrTTY reports whether progress on stderr reaches a terminal.
func (s *IOStreams) IsStderrTTY() bool { return IsTerminal(s.ErrOut) }

// ColorMode is the colour setting in force: --color when given (or
// anything but auto), else git's color.ui, else auto.
func ColorMode(flag string, flagSet bool, config func(string) (string, bool)) string {
	if flagSet || flag != "auto" {
		return flag
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

// UseColor decides colour for w: always, never, or (auto) on a terminal
// that is not dumb, unless NO_COLOR is set.
func UseColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return IsTerminal(w)
}

// PagerCommand picks the pager in git's order: GIT_PAGER, core.pager,
// PAGER, else less. "" and "cat" mean no pager.
func PagerCommand(config func(string) (string, bool)) string {
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

// StartPager sends the rest of the run's output through pager (a shell
// command). LESS=FRX (and LV=-c) unless set: quit when it fits a screen,
// keep colours, leave the text on screen. A pager that does not start
// leaves the output as it is.
func (s *IOStreams) StartPager(pager string) {
	pager = strings.TrimSpace(pager)
	if pager == "" || pager == "cat" {
		return
	}
	p := exec.Command("sh", "-c", pager)
	p.Stdout, p.Stderr = s.Out, s.ErrOut
	p.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		p.Env = append(p.Env, "LESS=FRX")
	}
	if _, ok := os.LookupEnv("LV"); !ok {
		p.Env = append(p.Env, "LV=-c")
	}
	in, err := p.StdinPipe()
	if err != nil || p.Start() != nil {
		return
	}
	// The pager shows what a terminal would: colour stays on.
	s.colorForced = true
	s.Out = in
	s.pagerDone = func() {
		in.Close()
		_ = p.Wait()
	}
}

// StopPager closes the pager's input and waits for it to exit.
func (s *IOStreams) StopPager() {
	if s.pagerDone != nil {
		s.pagerDone()
		s.pagerDone = nil
	}
}
