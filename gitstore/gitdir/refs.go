package gitdir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Ident is who moved a ref, for the reflog (git uses the committer).
type Ident struct {
	Name, Email string
	When        time.Time // zero: now
}

// RefConflict is UpdateRef's compare-and-swap lost-race signal: the ref was
// not at Expected (it was at Actual), or another process holds its lock
// (Locked; Actual unknown). Callers re-read the ref, re-validate and retry.
//
// A lock that stays Locked may be left by a crashed writer. Like git, this
// package never removes one itself: its age cannot tell a dead writer from
// a slow one, and removing a live lock lets two writers rename over each
// other. The error names the file and tells the user to remove it.
type RefConflict struct {
	Ref              string
	Expected, Actual plumbing.Hash
	Locked           bool
	LockPath         string // the lock file, when Locked
}

func (e *RefConflict) Error() string {
	switch {
	case e.Locked:
		// git's own advice (lockfile.c): a lock can outlive a crashed process,
		// and only a person can tell whether its owner is still running.
		return fmt.Sprintf("cannot lock ref '%s': unable to create '%s': File exists. "+
			"Another git process seems to be running in this repository. "+
			"Please make sure all processes are terminated then try again. "+
			"If it still fails, a git process may have crashed in this repository earlier: "+
			"remove the file manually to continue.", e.Ref, e.LockPath)
	case e.Expected.IsZero():
		return fmt.Sprintf("cannot lock ref '%s': reference already exists (at %s)", e.Ref, e.Actual)
	case e.Actual.IsZero():
		return fmt.Sprintf("cannot lock ref '%s': reference is missing but expected %s", e.Ref, e.Expected)
	default:
		return fmt.Sprintf("cannot lock ref '%s': is at %s but expected %s", e.Ref, e.Actual, e.Expected)
	}
}

// ReadRef returns the value of a ref such as "refs/heads/records": the loose
// file first, then packed-refs, as git reads them. A symbolic ref ("ref: …",
// like HEAD) is followed one level. A missing ref is the zero hash and no
// error.
func (r *Repo) ReadRef(name string) (plumbing.Hash, error) {
	if err := CheckRefName(name); err != nil {
		return plumbing.ZeroHash, err
	}
	h, target, _, err := r.readRef(name)
	if err != nil || target == "" {
		return h, err
	}
	if err := CheckRefName(target); err != nil {
		return h, err
	}
	h, target2, _, err := r.readRef(target)
	if err == nil && target2 != "" {
		return plumbing.ZeroHash, fmt.Errorf(
			"ref %s points to %s, itself symbolic (to %s); only one level is followed", name, target, target2)
	}
	return h, err
}

// readRef reads one ref without following it, the loose file first, then
// packed-refs: its hash, or the target of a symbolic ref. When the ref is
// absent, conflict names a packed ref that would be in the way of creating
// it ("refs/a" for "refs/a/b", or the reverse).
func (r *Repo) readRef(name string) (h plumbing.Hash, target, conflict string, err error) {
	path := r.refPath(name)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		h, target, err = parseLooseRef(name, path, b)
		return h, target, "", err
	case !notExist(err):
		return h, "", "", fmt.Errorf("read ref %s: %w", name, err)
	}
	h, conflict, err = r.readPackedRef(name)
	return h, "", conflict, err
}

// parseLooseRef reads a loose ref file as git does: a hex hash followed by
// nothing or whitespace, or "ref: <target>".
func parseLooseRef(name, path string, b []byte) (plumbing.Hash, string, error) {
	if target, ok := bytes.CutPrefix(b, []byte("ref:")); ok {
		return plumbing.ZeroHash, string(bytes.TrimSpace(target)), nil
	}
	if len(b) >= 40 && isHexHash(b[:40]) && (len(b) == 40 || isSpace(b[40])) {
		return plumbing.NewHash(string(b[:40])), "", nil
	}
	// git reports such a ref as broken too; an empty one is what go-git's
	// truncate-in-place update leaves after a crash.
	return plumbing.ZeroHash, "", fmt.Errorf(
		"ref %s is broken: %s holds %q; restore it with git update-ref %s <commit> (see git reflog %s)",
		name, path, truncate(b, 60), name, name)
}

// readPackedRef looks name up in packed-refs, noting a conflicting ref.
func (r *Repo) readPackedRef(name string) (h plumbing.Hash, conflict string, err error) {
	b, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if notExist(err) {
		return h, "", nil
	}
	if err != nil {
		return h, "", fmt.Errorf("read packed-refs: %w", err)
	}
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		// Skip the "# pack-refs with:" header and the "^<hash>" peeled value
		// of the annotated tag on the line before.
		if len(line) < 42 || line[0] == '#' || line[0] == '^' || line[40] != ' ' {
			continue
		}
		ref := string(bytes.TrimRight(line[41:], "\r"))
		switch {
		case ref == name:
			if !isHexHash(line[:40]) {
				return h, "", fmt.Errorf("packed-refs has a broken line for %s: %q", name, line)
			}
			h = plumbing.NewHash(string(line[:40]))
		case strings.HasPrefix(name, ref+"/") || strings.HasPrefix(ref, name+"/"):
			conflict = ref
		}
	}
	return h, conflict, nil
}

// refBase is the directory that owns a ref: GitDir for per-worktree refs
// (HEAD and other pseudo-refs, refs/bisect, refs/worktree, refs/rewritten),
// CommonDir for shared ones. Its loose file and its reflog live there.
func (r *Repo) refBase(name string) string {
	if !strings.HasPrefix(name, "refs/") ||
		strings.HasPrefix(name, "refs/bisect/") ||
		strings.HasPrefix(name, "refs/worktree/") ||
		strings.HasPrefix(name, "refs/rewritten/") {
		return r.GitDir
	}
	return r.CommonDir
}

func (r *Repo) refPath(name string) string {
	return filepath.Join(r.refBase(name), filepath.FromSlash(name))
}

func (r *Repo) reflogPath(name string) string {
	return filepath.Join(r.refBase(name), "logs", filepath.FromSlash(name))
}

// UpdateRef moves name from old to new the way git's files backend does, so
// that git and other processes using git's protocol are excluded:
//
//  1. create "<ref>.lock" exclusively (O_CREAT|O_EXCL); a lock held by someone
//     else is retried for LockTimeout, then reported as RefConflict{Locked};
//  2. holding the lock, read the current value (loose, else packed-refs) and
//     compare it to old (zero old: the ref must not exist); a mismatch is a
//     *RefConflict;
//  3. write "<hex>\n" to the lock and fsync it;
//  4. append the reflog entry (logs/<ref>, and logs/HEAD when HEAD points at
//     the ref), still under the lock, as git does;
//  5. rename the lock over the ref, then fsync the ref's directory.
//
// A crash at any point leaves the ref at old or new, never truncated; the
// lock is removed on every failure this process survives. The objects new
// refers to must already be written and synced (ObjectWriter.Sync); unlike
// git update-ref, UpdateRef does not look them up. It does not delete refs,
// and does not write through symbolic refs.
//
// UpdateRef is LockRef (steps 1-3) then RefLock.Commit (4-5); a writer
// that runs steps 1-3 while its objects' last fsync round is in flight
// (ObjectWriter.SyncAlongside) calls them apart.
func (r *Repo) UpdateRef(name string, new, old plumbing.Hash, ident Ident, msg string) error {
	l, err := r.LockRef(name, new, old)
	if err != nil {
		return err
	}
	return l.Commit(ident, msg)
}

// RefLock is a ref held under its "<ref>.lock", checked to be at old, with
// the new value written to the lock and fsynced: steps 1-3 of UpdateRef.
// The ref itself has not moved. Commit moves it; Abort gives the lock up.
// Until one of them runs, every other writer of the ref (git included)
// waits or fails on the lock.
type RefLock struct {
	r        *Repo
	name     string
	new, old plumbing.Hash
	path     string
	lockPath string
	newDirs  []string
	finished bool // Move or Abort ran
	moved    bool // Move renamed the lock over the ref
}

// LockRef runs steps 1-3 of UpdateRef: it takes name's lock, compares the
// ref to old and makes new durable in the lock file. It writes nothing a
// reader of the ref sees: a crash or an Abort leaves the ref at old (a
// crash leaves the lock file too, as it would git's).
func (r *Repo) LockRef(name string, new, old plumbing.Hash) (*RefLock, error) {
	if err := CheckRefName(name); err != nil {
		return nil, err
	}
	if new.IsZero() {
		return nil, fmt.Errorf("UpdateRef %s: deleting a ref is not supported", name)
	}
	// git refuses too (tmp-objdir): objects pushed into the quarantine are
	// discarded unless the push is accepted, so a ref moved now could dangle.
	if os.Getenv("GIT_QUARANTINE_PATH") != "" {
		return nil, refused(
			"cannot update ref %s: ref updates are forbidden inside git's quarantine environment (a pre-receive hook)", name)
	}

	path := r.refPath(name)
	lockPath := path + ".lock"
	lock, newDirs, err := r.lockRef(name, lockPath, old)
	if err != nil {
		return nil, err
	}
	held := false
	defer func() {
		if !held {
			lock.Close()
			os.Remove(lockPath)
		}
	}()

	cur, err := r.currentValue(name)
	if err != nil {
		return nil, err
	}
	if cur != old {
		return nil, &RefConflict{Ref: name, Expected: old, Actual: cur}
	}

	if _, err := lock.WriteString(new.String() + "\n"); err != nil {
		return nil, fmt.Errorf("write %s: %w", lockPath, err)
	}
	if err := lock.Sync(); err != nil {
		return nil, fmt.Errorf("fsync %s: %w", lockPath, err)
	}
	if err := lock.Close(); err != nil {
		return nil, fmt.Errorf("close %s: %w", lockPath, err)
	}
	held = true
	return &RefLock{r: r, name: name, new: new, old: old, path: path, lockPath: lockPath, newDirs: newDirs}, nil
}

// Abort gives up a lock that Commit has not moved the ref with: the ref
// stays at old. It is a no-op after Commit.
func (l *RefLock) Abort() {
	if l == nil || l.finished {
		return
	}
	l.finished = true
	os.Remove(l.lockPath)
}

// Commit runs steps 4-5 of UpdateRef: Move, then Sync.
func (l *RefLock) Commit(ident Ident, msg string) error {
	if err := l.Move(ident, msg); err != nil {
		return err
	}
	return l.Sync()
}

// Move appends the reflog entry and renames the lock over the ref: the ref
// is at new for every reader, and Sync makes that survive a power loss.
// The objects the new value names must be durable before it is called. On
// an error the lock is given up and the ref stays at old.
func (l *RefLock) Move(ident Ident, msg string) error {
	if l.finished {
		return fmt.Errorf("ref lock %s used twice", l.lockPath)
	}
	l.finished = true
	if err := l.r.appendReflogs(l.name, reflogLine(l.old, l.new, ident, msg)); err != nil {
		os.Remove(l.lockPath)
		return err
	}
	if err := os.Rename(l.lockPath, l.path); err != nil {
		os.Remove(l.lockPath)
		return fmt.Errorf("rename %s into place: %w", l.lockPath, err)
	}
	l.moved = true
	return nil
}

// Sync fsyncs the ref's directory (and any it created) after Move, so the
// move survives a power loss. No one may be told the ref moved before it
// returns. A failure is reported, but the ref is not at old any more.
func (l *RefLock) Sync() error {
	if !l.moved {
		return fmt.Errorf("ref %s: Sync before Move", l.name)
	}
	for _, d := range append([]string{filepath.Dir(l.path)}, l.newDirs...) {
		if err := syncDir(d); err != nil {
			return fmt.Errorf("ref %s moved to %s but fsync of %s failed: %w", l.name, l.new, d, err)
		}
	}
	return nil
}

// lockRef creates lockPath exclusively, creating the ref's directories if
// needed (newDirs are the directories whose new entries need an fsync).
func (r *Repo) lockRef(name, lockPath string, old plumbing.Hash) (lock *os.File, newDirs []string, err error) {
	deadline := time.Now().Add(r.LockTimeout)
	for attempt := 1; ; attempt++ {
		var made []string
		lock, made, err = openFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		newDirs = append(newDirs, made...)
		switch {
		case err == nil:
			return lock, newDirs, nil
		case errors.Is(err, fs.ErrNotExist) && attempt <= 3:
			continue // git pack-refs pruned the emptied directory under us
		case !errors.Is(err, fs.ErrExist):
			return nil, nil, fmt.Errorf("create %s: %w", lockPath, err)
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return nil, nil, &RefConflict{Ref: name, Expected: old, Locked: true, LockPath: lockPath}
		}
		// git's lockfile backoff: growing waits with jitter, so that waiters
		// do not wake in lockstep.
		wait := time.Duration(float64(attempt*attempt)*(0.75+rand.Float64()/2)) * time.Millisecond
		time.Sleep(min(wait, remaining))
	}
}

// currentValue reads the ref under its lock. Symbolic refs are not written
// through, and a packed ref in the way of a new one is refused, as by git.
func (r *Repo) currentValue(name string) (plumbing.Hash, error) {
	h, target, conflict, err := r.readRef(name)
	switch {
	case err != nil:
		return h, err
	case target != "":
		return h, fmt.Errorf(
			"cannot update %s: it is a symbolic ref to %s; update %s instead", name, target, target)
	case conflict != "" && h.IsZero():
		return h, fmt.Errorf("cannot create ref %s: ref %s exists", name, conflict)
	}
	return h, nil
}

// appendReflogs appends line to logs/<name>, and to logs/HEAD when HEAD
// points at name, as git does for a checked-out branch. One write per file
// keeps concurrent appenders from interleaving. Like git by default, the
// reflog is not fsynced: it is history for people, not the ref's value.
func (r *Repo) appendReflogs(name, line string) error {
	logs := []string{name}
	if head, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD")); err == nil &&
		strings.TrimSpace(string(head)) == "ref: "+name {
		logs = append(logs, "HEAD")
	}
	for _, ref := range logs {
		path := r.reflogPath(ref)
		if _, err := os.Stat(path); err != nil && !r.createsReflog(ref) {
			continue // git would not start a reflog for this ref here
		}
		f, _, err := openFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err != nil {
			return fmt.Errorf("open reflog %s: %w", path, err)
		}
		_, err = f.WriteString(line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("append to reflog %s: %w", path, err)
		}
	}
	return nil
}

// createsReflog says whether git starts a reflog for ref, as
// core.logAllRefUpdates decides: "always" for every ref, "true" for
// branches, remote-tracking refs, notes and HEAD, and by default true in a
// repository with a working tree and false in a bare one. An existing
// reflog is always appended to.
func (r *Repo) createsReflog(ref string) bool {
	mode := "true"
	if r.Bare {
		mode = "false"
	}
	if cfg, err := r.Config(); err == nil {
		if v, ok := cfg.Get("core.logAllRefUpdates"); ok {
			mode = strings.ToLower(strings.TrimSpace(v))
		}
	}
	switch mode {
	case "always":
		return true
	case "true", "yes", "on", "1", "":
		return ref == "HEAD" || strings.HasPrefix(ref, "refs/heads/") || strings.HasPrefix(ref, "refs/remotes/") || strings.HasPrefix(ref, "refs/notes/")
	}
	return false
}

// reflogLine formats one reflog entry as git writes it:
// "<old> <new> Name <email> <unix> <+hhmm>\t<msg>\n", the tab and message
// only when there is a message.
func reflogLine(old, new plumbing.Hash, id Ident, msg string) string {
	when := id.When
	if when.IsZero() {
		when = time.Now()
	}
	_, offset := when.Zone()
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	line := fmt.Sprintf("%s %s %s <%s> %d %c%02d%02d", old, new,
		identPart(id.Name), identPart(id.Email), when.Unix(), sign, offset/3600, offset%3600/60)
	if msg = reflogMessage(msg); msg != "" {
		line += "\t" + msg
	}
	return line + "\n"
}

// identPart drops what would break the ident's syntax, as git's fmt_ident
// does with "crud".
func identPart(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '<' || r == '>' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// reflogMessage is git's copy_reflog_msg: leading whitespace dropped, every
// whitespace run (newlines included) collapsed to one space, trailing space
// trimmed, so an entry is always one line.
func reflogMessage(msg string) string {
	var b strings.Builder
	wasSpace := true
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if isSpace(c) {
			if !wasSpace {
				b.WriteByte(' ')
			}
			wasSpace = true
			continue
		}
		wasSpace = false
		b.WriteByte(c)
	}
	return strings.TrimRight(b.String(), " ")
}

// isSpace is git's isspace: space, tab, LF, CR.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// CheckRefName applies git's check-ref-format rules, which also keep a ref
// name from escaping the refs directory. Names are "HEAD" or under "refs/".
func CheckRefName(name string) error {
	bad := func(why string) error {
		return refused("invalid ref name %q: %s", name, why)
	}
	if name == "HEAD" {
		return nil
	}
	if !strings.HasPrefix(name, "refs/") {
		return bad("must be HEAD or start with refs/")
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, "/") {
		return bad("must not end with '.' or '/'")
	}
	if strings.Contains(name, "..") || strings.Contains(name, "@{") {
		return bad("must not contain '..' or '@{'")
	}
	for _, c := range []byte(name) {
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return bad(fmt.Sprintf("must not contain %q", c))
		}
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part[0] == '.' || strings.HasSuffix(part, ".lock") {
			return bad("no component may be empty, start with '.' or end with '.lock'")
		}
	}
	return nil
}

// RefFiles are the files whose change can move ref name: its loose file
// and packed-refs (a follower watches their directories).
func (r *Repo) RefFiles(name string) []string {
	return []string{r.refPath(name), filepath.Join(r.CommonDir, "packed-refs")}
}
