package service

import (
	"strings"

	"github.com/git-records/git-records/kernel"
)

// InitRequest says how init sets a store up.
type InitRequest struct {
	// GenerateKey makes the store a signing key of its own, refused when
	// git already has one configured that is not the store's.
	GenerateKey bool
	Agent       string // recorded on the init commit; "" for user.email
}

// InitResult is what init did: the branch, the commit that created it
// ("" when it existed already), and the signing key it made.
type InitResult struct {
	Ref    string
	Commit string
	// SignerLine is the allowed-signers entry of the key this store signs
	// with ("" when that key cannot say its public half), and
	// SignerAllowed whether the branch already trusts it.
	SignerLine    string
	SignerAllowed bool
	Email         string // the committer's
	// SigningKey and AllowedSigners are the files of a generated key and
	// of the signers exported for git ("" without GenerateKey).
	SigningKey     string
	AllowedSigners string
}

// Init creates the records branch, its first allowed signer the key this
// store signs with (the user's own git signing key, or one generated for
// it): the creator of a store is its trust root. On a branch that exists
// it writes nothing.
func (s *Service) Init(req InitRequest) (*InitResult, error) {
	g, err := s.needsGit("init")
	if err != nil {
		return nil, err
	}
	_, email := g.Ident()
	res := &InitResult{Ref: g.Ref(), Email: email}
	if req.GenerateKey {
		if _, err := g.Signer(); err == nil && !s.keyIsOurs() {
			return nil, kernel.Errorf(kernel.CodeUsage, "git already has a signing key configured (user.signingkey); drop --generate-key to use it").WithExtra("flag", "--generate-key")
		}
		if email == "" {
			return nil, kernel.Errorf(kernel.CodeUsage, "no committer identity: set git config user.name and user.email first")
		}
		if res.SignerLine, err = g.GenerateSigningKey(email); err != nil {
			return nil, err
		}
		res.SigningKey, res.AllowedSigners = g.SigningKeyPath(), g.AllowedSignersExport()
	} else if res.SignerLine, err = g.SignerLine(email); err != nil {
		return nil, err // the user's own key is the store's first signer
	}
	agent := req.Agent
	if agent == "" {
		agent = email
	}
	w, err := g.Init(agent, res.SignerLine)
	if err != nil {
		return nil, err
	}
	res.Commit = revision(w.Commit)
	if res.Commit == "" && res.SignerLine != "" {
		res.SignerAllowed, _ = g.SignerAllowed(res.SignerLine)
	}
	return res, nil
}

// SignerKey is the public key of an allowed-signers line ("ssh-ed25519 AAAA…").
func SignerKey(line string) string {
	if i := strings.Index(line, "ssh-"); i >= 0 {
		return strings.TrimSpace(line[i:])
	}
	return strings.TrimSpace(line)
}

// keyIsOurs reports whether the configured signing key is the one a store
// generated for itself.
func (s *Service) keyIsOurs() bool {
	k, ok := s.git.ConfigValue("records.signingKey")
	return ok && k == s.git.SigningKeyPath()
}
