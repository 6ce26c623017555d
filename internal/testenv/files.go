package testenv

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CopyTree copies the directory src into dst (created if missing), as a
// cheap way to give a test its own copy of repositories built once (a seeded
// store, a remote with hooks, its clones) instead of building them again
// with a dozen processes. File modes are kept (hooks stay executable,
// signing keys private). A repository names itself by absolute path in its
// config (records.signingKey, gpg.ssh.allowedSignersFile, remote URLs) and
// in FETCH_HEAD or reflogs, so src's path is rewritten to dst's in every
// file but git's objects (compressed: they never hold a path as bytes).
func CopyTree(src, dst string) error {
	from, to := []byte(src), []byte(dst)
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "objects") {
			data = bytes.ReplaceAll(data, from, to)
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}

// RefValue reads a ref as git stores it, without running git: the loose
// file under gitDir, else its line in packed-refs; "" when there is none.
// Tests that ask after every command save a process each time.
func RefValue(gitDir, ref string) string {
	if b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(b))
	}
	packed, _ := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	for _, line := range strings.Split(string(packed), "\n") {
		if h, name, ok := strings.Cut(line, " "); ok && name == ref {
			return h
		}
	}
	return ""
}
