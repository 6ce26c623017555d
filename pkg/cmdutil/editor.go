package cmdutil

import (
	"errors"
	"io"
	"os"
	"os/exec"

	"github.com/git-records/git-records/kernel"
)

// Editor runs the user's editor on a file, as git does.
type Editor struct {
	Command func() (string, error) // the editor command line, resolved when first needed
	In      io.Reader
	ErrOut  io.Writer
}

// Editor is the editor of this run: git's choice (EditorCommand) over the
// repository's configuration, on the run's streams.
func (f *Factory) Editor() *Editor {
	return &Editor{
		Command: func() (string, error) { return EditorCommand(f.Config()) },
		In:      f.IOStreams.In, ErrOut: f.IOStreams.ErrOut,
	}
}

// EditorCommand picks the editor in git's order (git var GIT_EDITOR):
// GIT_EDITOR, core.editor, VISUAL unless the terminal is dumb, EDITOR, vi
// (refused on a dumb terminal, where vi cannot run).
func EditorCommand(config func(string) (string, bool)) (string, error) {
	if e := os.Getenv("GIT_EDITOR"); e != "" {
		return e, nil
	}
	if config != nil {
		if e, ok := config("core.editor"); ok && e != "" {
			return e, nil
		}
	}
	dumb := os.Getenv("TERM") == "" || os.Getenv("TERM") == "dumb"
	if e := os.Getenv("VISUAL"); e != "" && !dumb {
		return e, nil
	}
	if e := os.Getenv("EDITOR"); e != "" {
		return e, nil
	}
	if dumb {
		return "", kernel.Errorf(kernel.CodeUsage, "the terminal is dumb and no editor is set: set GIT_EDITOR, git config core.editor, VISUAL or EDITOR")
	}
	return "vi", nil
}

// ErrEditorFailed: the editor exited non-zero, which gives up the edit.
var ErrEditorFailed = errors.New("the editor exited with an error")

// Run opens path in the editor and waits for it. The command line goes
// through sh, as git runs it, so "code --wait" and quoted paths work.
func (e *Editor) Run(path string) error {
	command, err := e.Command()
	if err != nil {
		return err
	}
	cmd := exec.Command("sh", "-c", command+` "$@"`, command, path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.In, e.ErrOut, e.ErrOut
	if f, ok := e.In.(*os.File); ok {
		cmd.Stdin = f // a terminal editor needs the terminal itself
	}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return ErrEditorFailed
		}
		return kernel.Wrap(kernel.CodeUsage, err, "run the editor %q (set GIT_EDITOR, core.editor, VISUAL or EDITOR)", command)
	}
	return nil
}
