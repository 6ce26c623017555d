// Package gitstore keeps records on a git branch: the codec (record ⇄
// file), the layout, the commit writer (trailers, signing), the
// compare-and-swap write loop, reads, history and the derived index.
package gitstore

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/search"
)

// DefaultRef is the branch records live on unless records.ref says otherwise.
const DefaultRef = "refs/heads/records"

// Files on the branch besides records.
const (
	FormatPath         = kernel.FormatPath
	AllowedSignersPath = kernel.AllowedSignersPath
	PolicyPath         = kernel.PolicyPath
	AttributesPath     = kernel.AttributesPath // routes record files to the records merge driver
)

// Attributes is the .gitattributes the records branch carries, so plain
// git merge and git pull use the record-level merge driver.
const Attributes = "records/** merge=records\n"

// Options tune a Store; the zero value is right for normal use.
type Options struct {
	Ref        string           // branch ref; default records.ref or DefaultRef
	Now        func() time.Time // clock; default time.Now
	NewID      func() string    // id source; default kernel.NewID
	MaxRetries int              // compare-and-swap attempts before CONFLICT; default 64
	Signer     signing.Signer   // default: from git config
	// Ungated writes without the policy gate and its audit: what a client
	// that skips the gate (an old or modified binary) writes. For tests
	// that play one; verify and the server hooks judge such commits as
	// any other, which is what keeps the branch trustworthy.
	Ungated bool
	// AuditMaxBytes is the size at which the audit log rotates; default
	// DefaultAuditMaxBytes.
	AuditMaxBytes int64
	// deltaLimit overrides maxDelta, so tests reach merges in a few ops;
	// catchUpLimit overrides maxCatchUp.
	deltaLimit, catchUpLimit int
}

// Store is a record store on one branch of one repository.
type Store struct {
	repo    *gitdir.Repo
	config  *gitdir.Config
	ref     string
	opts    Options
	objects storer.EncodedObjectStorer
	signer  signing.Signer
	index   *Index // the last index this process caught up, possibly behind the tip
	// searchBase is the mapped base segment of the search index, built at
	// searchBaseTip: kept so a long-lived process maps it once.
	searchBase       []byte
	searchBaseTip    [20]byte
	searchBaseMapped bool     // searchBase is a mapping of its file, to unmap when replaced
	searchBaseFile   *os.File // the file searchBase maps, for the search's point reads; nil in memory
	// search is the search index this process last caught up, and
	// searchDeltaStat its delta file as last read or written here.
	search          *search.Index
	searchDeltaStat os.FileInfo
	// observers are told every change the index applies (ObserveIndex).
	observers []IndexObserver
	// graphFile is graph-index.json of a standalone store (--store DIR),
	// which the write loop keeps in step with every commit (contract
	// protocol rule 1); "" for a repository's store.
	graphFile string
	call      Call // the front-end's call, for the audit line of ops that name none
	// formatChecked is the last tip whose format this process checked.
	formatChecked plumbing.Hash
	// incoming lists a merge's incoming commits for its judgment
	// (JudgeIncomingWith).
	incoming IncomingFacts

	// Group commit (group.go): shared is the lock a front-end serving
	// concurrent requests holds around its calls (nil: ops are written one
	// at a time); queue holds the ops waiting for the writer, writing says
	// a writer is at work, groupDone wakes the waiters.
	shared    sync.Locker
	groupDone *sync.Cond
	queue     []*writeRequest
	writing   bool
	// groupSynced, set by tests, runs once a group's objects are written
	// and renamed (their directories' fsyncs in flight), before its ref is
	// locked and moved, with the shared lock released.
	groupSynced func()
	// groupPacks are the packs this process's commit groups wrote, oldest
	// first, consolidated as they come (grouppacks.go).
	groupPacks []groupPack
	// carried is the tip the last group landed, as its writer knew it:
	// the next group starts there without reading it back (group.go).
	carried *View
	// merge is the index merge this store started off the write path
	// (indexmerge.go); mergeHold, set by tests, runs first on its goroutine.
	merge     *indexMerge
	mergeHold func()
	// maintenance is git's auto maintenance this process started, if any
	// (maintenance.go): started once, its done closed when it exits.
	maintenance *maintenanceRun
}

// GraphFile is the graph-index.json the store keeps current ("" when it
// keeps none: only a standalone store does).
func (s *Store) GraphFile() string { return s.graphFile }

// writeGraphFile rewrites graph-index.json from the tip, when the store keeps one.
func (s *Store) writeGraphFile() error {
	if s.graphFile == "" {
		return nil
	}
	v, err := s.View()
	if err != nil {
		return err
	}
	ix, err := v.Index()
	if err != nil {
		return err
	}
	return ix.Graph().WriteFile(s.graphFile)
}

// Open opens the store of the repository that contains dir.
func Open(dir string, opts Options) (*Store, error) {
	repo, err := gitdir.Discover(dir)
	if err != nil {
		return nil, fromGitdir(err)
	}
	return OpenRepo(repo, opts)
}

// OpenRepo opens the store of a discovered repository.
func OpenRepo(repo *gitdir.Repo, opts Options) (*Store, error) {
	cfg, err := repo.Config()
	if err != nil {
		return nil, err
	}
	if opts.Ref == "" {
		opts.Ref = DefaultRef
		if v, ok := cfg.Get("records.ref"); ok && v != "" {
			opts.Ref = v
		}
	}
	opts.Ref = qualifyRef(opts.Ref)
	// Checked here, once, so that a bad --ref or records.ref is refused as
	// such before anything reads or writes through it.
	if err := gitdir.CheckRefName(opts.Ref); err != nil {
		return nil, kernel.Errorf(kernel.CodeUsage, "ref: %s", kernel.MessageOf(err)).WithField("ref")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = kernel.NewID
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 64
	}
	s := &Store{repo: repo, config: cfg, ref: opts.Ref, opts: opts, signer: opts.Signer}
	s.openObjects()
	return s, nil
}

func qualifyRef(ref string) string {
	if strings.HasPrefix(ref, "refs/") {
		return ref
	}
	return "refs/heads/" + ref
}

// openObjects picks how the store reads objects, once: views share it, so
// it is never replaced under them. Both kinds find objects a concurrent git
// gc or repack moved (freshObjects reloads its packs, git cat-file rescans).
func (s *Store) openObjects() {
	if needsGitObjects(s.repo.CommonDir) {
		if c, err := newCatFileObjects(s.repo.GitDir); err == nil {
			s.objects = c
			return
		}
	}
	s.objects = newFreshObjects(s.repo.CommonDir)
}

// Close releases what the store holds open (a git cat-file process, when
// it reads objects through git).
func (s *Store) Close() error {
	if m := s.merge; m != nil {
		// A merge in flight writes beside the index: let it finish, and
		// remove its file when nothing installed it.
		<-m.done
		if !m.installed && m.result != nil {
			m.result.written.drop()
		}
	}
	if c, ok := s.objects.(*catFileObjects); ok {
		s.objects = nil
		return c.Close()
	}
	return nil
}

// Ref is the full name of the records branch.
func (s *Store) Ref() string { return s.ref }

// Tip is the commit the records branch points at (zero when it has none yet).
func (s *Store) Tip() (plumbing.Hash, error) { return s.repo.ReadRef(s.ref) }

// dataDir is where this repository keeps git-records' local state.
func (s *Store) dataDir() string { return filepath.Join(s.repo.CommonDir, "records") }

// Signer returns the signer from the git configuration, loaded once.
func (s *Store) Signer() (signing.Signer, error) {
	if s.signer != nil {
		return s.signer, nil
	}
	name, email := s.Ident()
	sg, err := signing.FromConfig(s.config, name, email)
	if err != nil {
		return nil, FromSigning(err)
	}
	s.signer = sg
	return sg, nil
}

// Ident is the committer identity: the environment as git reads it, then
// user.name / user.email, cleaned as git's fmt_ident cleans them (identPart)
// so that the commit and reflog lines written with it are ones git and we
// read back as written.
func (s *Store) Ident() (name, email string) {
	name, email = os.Getenv("GIT_COMMITTER_NAME"), os.Getenv("GIT_COMMITTER_EMAIL")
	if name == "" {
		name, _ = s.config.Get("user.name")
	}
	if email == "" {
		email, _ = s.config.Get("user.email")
	}
	return identPart(name), identPart(email)
}

// identPart is git's strbuf_addstr_without_crud (ident.c): "crud" (control
// characters, space, and , : ; < > " \ ') trimmed from both ends, and the
// line's delimiters '\n', '<' and '>' dropped from the rest. Without it a
// user.name such as "Ann <ann@example.com>" wrote an author line that git
// fsck rejects (pushes to a server with receive.fsckObjects fail), that our
// decoder and git split at different '<' (another name and email in log),
// and a newline in GIT_COMMITTER_NAME wrote a header of the caller's choosing.
func identPart(v string) string {
	crud := func(c byte) bool { return c <= ' ' || strings.IndexByte(",:;<>\"\\'", c) >= 0 }
	i, j := 0, len(v)
	for i < j && crud(v[i]) {
		i++
	}
	for j > i && crud(v[j-1]) {
		j--
	}
	v = v[i:j]
	if !strings.ContainsAny(v, "\n<>") {
		return v
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '<' || r == '>' {
			return -1
		}
		return r
	}, v)
}

// commit reads a commit object.
func (s *Store) commit(h plumbing.Hash) (*Commit, error) {
	o, err := s.objects.EncodedObject(plumbing.CommitObject, h)
	if err == nil && o.Type() != plumbing.CommitObject {
		err = errUnsupportedObject
	}
	var raw []byte
	if err == nil {
		raw, err = objectData(o)
	}
	var c *Commit
	if err == nil {
		c, err = decodeCommit(o.Hash(), raw)
	}
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "read commit %s", h)
	}
	return c, nil
}

// blob reads the content of a blob.
func (s *Store) blob(h plumbing.Hash) ([]byte, error) {
	data, err := s.blobShared(h)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(data), nil
}

// blobShared is blob for a reader that only reads the bytes: they may be
// the object reader's own.
func (s *Store) blobShared(h plumbing.Hash) ([]byte, error) {
	data, _, err := s.blobOwned(h)
	return data, err
}

// blobOwned is blobShared, saying whether the bytes are this read's alone:
// a reader that is done with owned bytes (and keeps nothing of them) may
// give them back with recycleBlob.
func (s *Store) blobOwned(h plumbing.Hash) ([]byte, bool, error) {
	o, err := s.objects.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, false, kernel.Wrap(kernel.CodeInternal, err, "read blob %s", h)
	}
	if so, ok := o.(*storedObject); ok {
		return so.data, so.owned, nil
	}
	data, err := readAllSized(o)
	return data, false, err
}

// readAllSized reads o whole into a buffer of its size.
func readAllSized(o plumbing.EncodedObject) ([]byte, error) {
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, 0, o.Size())
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return buf, nil
			}
			return nil, err
		}
	}
}

// backoff sleeps a little longer after each lost race, with jitter so that
// racing processes spread out.
func backoff(attempt int) {
	d := time.Duration(1+attempt*attempt) * 200 * time.Microsecond
	if d > 50*time.Millisecond {
		d = 50 * time.Millisecond
	}
	time.Sleep(d/2 + rand.N(d))
}

func ioReadFull(r io.Reader, buf []byte) (int, error) { return io.ReadFull(r, buf) }

func joinKeys(m map[string][]byte) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
