package gitdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// syncDir fsyncs a directory, making the entries created or renamed in it
// durable. A file's own fsync does not cover its name. Windows cannot open a
// directory for flushing, and NTFS journals names itself.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// mkdirs is os.MkdirAll that also returns the parents of the directories it
// created: their new entries need syncDir to survive a power loss.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	parents := make([]string, len(missing))
	for i, d := range missing {
		parents[i] = filepath.Dir(d)
	}
	return parents, nil
}

// openFile is os.OpenFile that creates missing parent directories; newDirs
// are the directories whose entries that changed.
func openFile(path string, flag int, perm os.FileMode) (f *os.File, newDirs []string, err error) {
	f, err = os.OpenFile(path, flag, perm)
	if !errors.Is(err, fs.ErrNotExist) {
		return f, nil, err
	}
	if newDirs, err = mkdirs(filepath.Dir(path)); err != nil {
		return nil, nil, err
	}
	f, err = os.OpenFile(path, flag, perm)
	return f, newDirs, err
}

// notExist also counts a path that runs through a file or ends at a
// directory as absent: "refs/heads/a/b" when refs/heads/a is a file, or
// "refs/heads" read as a ref.
func notExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR)
}
