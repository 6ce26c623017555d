package transfer

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-records/git-records/kernel"
)

// maxOpenDirs bounds the directory handles an export keeps open; past it
// they are closed and reopened (and checked again) when next needed.
const maxOpenDirs = 64

// confinedDir creates new files under one directory, the target the user
// named, and nowhere else. Every path is checked to be a relative path of
// plain segments; directories are made here, one segment at a time, and
// entered by handle (os.Root: openat with O_NOFOLLOW), so a symlink planted
// on the way is neither followed out of the target nor written through;
// files are created exclusively, so nothing that exists is replaced.
type confinedDir struct {
	dest string   // as the user named it, for messages
	top  *os.Root // the target itself
	made map[string]bool
	open map[string]*os.Root // directories made here, by slash path
}

// openConfined opens dest (made when absent) for an export, which needs
// it empty: its own entries would be files the export did not write.
func openConfined(dest string) (*confinedDir, error) {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, kernel.Errorf(kernel.CodeUsage, "cannot create %s: %v", dest, err)
	}
	top, err := os.OpenRoot(dest)
	if err != nil {
		return nil, kernel.Errorf(kernel.CodeUsage, "cannot open %s: %v", dest, err)
	}
	// Read through the handle every write goes through, not the name.
	d, err := top.Open(".")
	if err == nil {
		var entries []fs.DirEntry
		entries, err = d.ReadDir(1)
		d.Close()
		if len(entries) > 0 {
			top.Close()
			return nil, kernel.Errorf(kernel.CodeUsage, "%s is not empty: export a vault into a new or empty directory", dest)
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		top.Close()
		return nil, kernel.Errorf(kernel.CodeUsage, "cannot read %s: %v", dest, err)
	}
	return &confinedDir{dest: dest, top: top, made: map[string]bool{}, open: map[string]*os.Root{}}, nil
}

// Close releases every handle.
func (c *confinedDir) Close() error {
	c.closeDirs()
	return c.top.Close()
}

func (c *confinedDir) closeDirs() {
	for k, r := range c.open {
		r.Close()
		delete(c.open, k)
	}
}

// create writes data to a new file at rel, a slash-separated path inside
// the target.
func (c *confinedDir) create(rel string, data []byte) error {
	segs, err := c.segments(rel)
	if err != nil {
		return err
	}
	dir, err := c.dir(segs[:len(segs)-1])
	if err != nil {
		return err
	}
	name := segs[len(segs)-1]
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return c.refuse(rel, "already exists: export writes only new files and never replaces or follows one it did not write")
		}
		return kernel.Wrap(kernel.CodeInternal, err, "export %s", filepath.Join(c.dest, filepath.FromSlash(rel)))
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "export %s", filepath.Join(c.dest, filepath.FromSlash(rel)))
	}
	return nil
}

// segments splits rel into names that each stay where they are joined:
// no empty, "." or ".." segment, nothing absolute, no separator of this
// system inside a segment.
func (c *confinedDir) segments(rel string) ([]string, error) {
	segs := strings.Split(rel, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || strings.ContainsRune(s, filepath.Separator) || strings.ContainsRune(s, 0) {
			return nil, c.refuse(rel, "is not a path inside the target")
		}
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, c.refuse(rel, "is not a path inside the target")
	}
	return segs, nil
}

// dir is the handle of the directory at segs, made by this export.
func (c *confinedDir) dir(segs []string) (*os.Root, error) {
	parent := c.top
	for i, seg := range segs {
		key := strings.Join(segs[:i+1], "/")
		if r := c.open[key]; r != nil {
			parent = r
			continue
		}
		err := parent.Mkdir(seg, 0o755)
		switch {
		case err == nil:
			c.made[key] = true
		case errors.Is(err, fs.ErrExist) && c.made[key]:
			// Made earlier, its handle since closed: entered again below.
		case errors.Is(err, fs.ErrExist):
			return nil, c.refuse(key, "already exists and this export did not make it: it may be a link out of the target")
		default:
			return nil, kernel.Wrap(kernel.CodeInternal, err, "export: make %s", filepath.Join(c.dest, filepath.FromSlash(key)))
		}
		sub, err := c.enter(parent, seg, key)
		if err != nil {
			return nil, err
		}
		if len(c.open) >= maxOpenDirs {
			c.closeDirs()
		}
		c.open[key] = sub
		parent = sub
	}
	return parent, nil
}

// enter opens the directory seg of parent and checks that what it opened
// is the real directory this export made there, not a symlink put in its
// place: Lstat sees the entry itself, and it must be the opened directory.
func (c *confinedDir) enter(parent *os.Root, seg, key string) (*os.Root, error) {
	sub, err := parent.OpenRoot(seg)
	if err != nil {
		return nil, c.refuse(key, "cannot be entered as the directory this export made ("+err.Error()+")")
	}
	entry, lerr := parent.Lstat(seg)
	opened, serr := sub.Stat(".")
	if lerr != nil || serr != nil || !entry.IsDir() || entry.Mode()&fs.ModeSymlink != 0 || !os.SameFile(entry, opened) {
		sub.Close()
		return nil, c.refuse(key, "was replaced while exporting: export never follows a link it did not make")
	}
	return sub, nil
}

func (c *confinedDir) refuse(rel, why string) error {
	return kernel.Errorf(kernel.CodeUnsafePath, "export to %s: %q %s", c.dest, rel, why).WithExtra("path", rel)
}
