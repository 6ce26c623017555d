package gitstore

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// SigningKeyPath is where `init --generate-key` puts the store's key: inside
// the git dir, so it never lands in a commit or a working tree.
func (s *Store) SigningKeyPath() string { return filepath.Join(s.dataDir(), "signing_key") }

// AllowedSignersExport is the on-disk copy of the branch's allowed signers
// that git reads (gpg.ssh.allowedSignersFile) for verify-commit and
// log --show-signature.
func (s *Store) AllowedSignersExport() string { return filepath.Join(s.dataDir(), "allowed_signers") }

// GenerateSigningKey creates an ed25519 key for this store and points
// records.signingKey at it; gpg.ssh.allowedSignersFile is set to the export
// only when the user has none, so their own setup is never overridden. It
// returns the allowed-signers line for the key's principal.
func (s *Store) GenerateSigningKey(principal string) (string, error) {
	path := s.SigningKeyPath()
	var pub string
	if data, err := os.ReadFile(path + ".pub"); err == nil {
		pub = strings.TrimSpace(string(data)) // keep an existing key: its signatures are already trusted
	} else {
		if pub, err = signing.GenerateSSHKey(path, principal); err != nil {
			return "", FromSigning(err)
		}
	}
	for k, v := range map[string]string{"records.signingKey": path, "records.signingFormat": "ssh"} {
		if err := s.repo.SetLocal(k, v); err != nil {
			return "", err
		}
	}
	if _, ok := s.config.Get("gpg.ssh.allowedSignersFile"); !ok {
		if err := s.repo.SetLocal("gpg.ssh.allowedSignersFile", s.AllowedSignersExport()); err != nil {
			return "", err
		}
	}
	return s.reloadConfig(signing.AllowedSignersLine(principal, pub))
}

func (s *Store) reloadConfig(passThrough string) (string, error) {
	cfg, err := s.repo.Config()
	if err != nil {
		return "", err
	}
	s.config, s.signer = cfg, nil
	return passThrough, nil
}

// Init sets the store up: the records branch with .records/format and, when
// signersLine is given, that line as the first entry of
// .records/allowed_signers: the creator of a store is its trust root, and
// the commit that creates the branch is pinned as records.trustRoot (when
// nothing is pinned yet) so verify accepts no other root. On a branch that
// exists Init writes nothing — adding a signer to a store others trust is a
// policy op for a maintainer (git records signers add), not something a new
// key can grant itself. It exports the allowed signers for git either way.
func (s *Store) Init(agent, signersLine string) (*Written, error) {
	extra := map[string][]byte{}
	if signersLine != "" {
		extra[AllowedSignersPath] = []byte(signersLine + "\n")
	}
	// Decided again on every tip the write tries: an init that loses the
	// race to another must not rewrite the winner's trust root.
	decide := initFiles(agent, extra, true)
	w, _, err := s.write(s.callFor(kernel.OpInit, agent), func(v *View, env kernel.Env) (*plannedWrite, error) {
		m, err := decide(v, env)
		if err != nil || m == nil {
			return nil, err
		}
		return &plannedWrite{m: m}, nil
	}, kernel.Approval{}, true)
	if err != nil {
		return nil, err
	}
	if !w.Commit.IsZero() {
		if err := s.pinTrustRoot(w.Commit); err != nil {
			return nil, err
		}
	}
	return w, s.ExportAllowedSigners()
}

// pinTrustRoot sets records.trustRoot to the root commit init wrote, unless
// the repository already pins one.
func (s *Store) pinTrustRoot(root plumbing.Hash) error {
	if pinned, ok := s.config.Get("records.trustRoot"); ok && pinned != "" {
		return nil
	}
	if err := s.repo.SetLocal("records.trustRoot", root.String()); err != nil {
		return err
	}
	cfg, err := s.repo.Config()
	if err == nil {
		s.config = cfg
	}
	return err
}

// SignerLine is the allowed-signers entry for the configured signer under
// principal ("" when the signer is not an SSH key that knows its public half).
func (s *Store) SignerLine(principal string) (string, error) {
	sg, err := s.Signer()
	if err != nil {
		return "", err
	}
	if pk, ok := sg.(signing.PublicKeyer); ok && sg.Format() == signing.FormatSSH && pk.PublicKeyLine() != "" {
		return signing.AllowedSignersLine(principal, pk.PublicKeyLine()), nil
	}
	return "", nil
}

// SignerAllowed reports whether an allowed-signers line is already on the branch.
func (s *Store) SignerAllowed(signersLine string) (bool, error) {
	v, err := s.View()
	if err != nil {
		return false, err
	}
	cur, err := v.ReadFile(AllowedSignersPath)
	return strings.Contains(string(cur), strings.TrimSpace(signersLine)), err
}

// ExportAllowedSigners copies the branch's allowed signers to the file git reads.
func (s *Store) ExportAllowedSigners() error {
	v, err := s.View()
	if err != nil {
		return err
	}
	data, err := v.ReadFile(AllowedSignersPath)
	if err != nil || data == nil {
		return err
	}
	if err := os.MkdirAll(s.dataDir(), 0o755); err != nil {
		return err
	}
	return os.WriteFile(s.AllowedSignersExport(), data, 0o644)
}

// graphFileName is the graph index a standalone store keeps next to its
// repository (contract protocol rule 1).
const graphFileName = "graph-index.json"

// OpenStandalone opens the store kept in dir for `--store DIR`, setting it
// up on first use as the contract protocol requires: a git repository, a
// committer identity and a signing key of its own when the user's git
// configuration provides none, and the records branch. Its commits are
// signed and verifiable like any other.
func OpenStandalone(dir string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeUsage, err, "store path %q", dir)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, kernel.Wrap(kernel.CodeNotAStore, err, "create store directory %s", abs)
	}
	if s := openReady(abs, opts); s != nil {
		s.graphFile = filepath.Join(abs, graphFileName)
		return s, nil
	}
	// First use. Adapters sharing a fresh directory may all get here at
	// once: one sets the store up (git init, identity, key, the branch)
	// while the others wait, then find it ready. Unserialized, they raced
	// on git init, the config lock and the key file.
	unlock, err := lockDir(abs)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeNotAStore, err, "lock store directory %s", abs)
	}
	defer unlock()
	var repo *gitdir.Repo
	if isRepoRoot(abs) {
		repo, err = gitdir.Discover(abs)
	} else {
		repo, err = gitdir.Init(abs)
	}
	if err != nil {
		return nil, fromGitdir(err)
	}
	s, err := OpenRepo(repo, opts)
	if err != nil {
		return nil, err
	}
	s.graphFile = filepath.Join(abs, graphFileName)
	if tip, err := s.Tip(); err != nil || !tip.IsZero() {
		return s, err
	}
	if _, email := s.Ident(); email == "" {
		for k, v := range map[string]string{"user.name": "git-records", "user.email": "git-records@localhost"} {
			if err := repo.SetLocal(k, v); err != nil {
				return nil, fromGitdir(err)
			}
		}
		if _, err := s.reloadConfig(""); err != nil {
			return nil, err
		}
	}
	_, email := s.Ident()
	line, err := s.SignerLine(email)
	if kernel.IsCode(err, kernel.CodeNoSigningKey) {
		if line, err = s.GenerateSigningKey(email); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	if _, err := s.Init("git-records", line); err != nil {
		return nil, err
	}
	return s, nil
}

// openReady opens the store in abs if it is set up (its branch has a
// commit), else returns nil; errors are left for the setup path to report.
func openReady(abs string, opts Options) *Store {
	if !isRepoRoot(abs) {
		return nil
	}
	repo, err := gitdir.Discover(abs)
	if err != nil {
		return nil
	}
	s, err := OpenRepo(repo, opts)
	if err != nil {
		return nil
	}
	if tip, err := s.Tip(); err != nil || tip.IsZero() {
		return nil
	}
	return s
}

func isRepoRoot(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

// CheckedOutIn lists the working trees whose HEAD is the records branch.
// Moving a branch under a checkout leaves that checkout's files and index
// behind (git update-ref does the same), so writers refuse instead.
func (s *Store) CheckedOutIn() []string {
	var out []string
	check := func(gitDir, workTree string) {
		head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
		if err == nil && strings.TrimSpace(string(head)) == "ref: "+s.ref {
			out = append(out, workTree)
		}
	}
	if !s.config.Bool("core.bare", s.repo.Bare) {
		check(s.repo.CommonDir, filepath.Dir(s.repo.CommonDir)) // the main working tree
	}
	entries, _ := os.ReadDir(filepath.Join(s.repo.CommonDir, "worktrees"))
	for _, e := range entries {
		dir := filepath.Join(s.repo.CommonDir, "worktrees", e.Name())
		wt := dir
		if data, err := os.ReadFile(filepath.Join(dir, "gitdir")); err == nil {
			wt = filepath.Dir(strings.TrimSpace(string(data)))
		}
		check(dir, wt)
	}
	return out
}
