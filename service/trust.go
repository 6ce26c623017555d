package service

import (
	"strings"
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// Trust: who may sign and what each signer may do, as the branch holds it
// (.records/allowed_signers and .records/policy.yaml), the policy ops that
// change them, and what a committer or an approver signs with.

// TrustInForce is the trust in force at the tip. A broken one is an error
// here: there is nothing true to say about it.
func (s *Service) TrustInForce() (*kernel.Trust, error) {
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	t, err := v.Trust()
	if err != nil {
		return nil, err
	}
	return t, t.Err()
}

// SetPolicy is the policy op replacing .records/policy.yaml with data,
// which must parse as a policy.
func (s *Service) SetPolicy(data []byte, ev kernel.Evidence, approval kernel.Approval) (*WriteResult, error) {
	if _, err := kernel.ParsePolicy(data); err != nil {
		return nil, err
	}
	return s.changePolicy(approval, ev, func(kernel.Snapshot) (map[string][]byte, error) {
		return map[string][]byte{kernel.PolicyPath: data}, nil
	})
}

// AllowedSignersLine is the .records/allowed_signers entry that lets key
// (a public key, "TYPE BASE64 [comment]") sign as principal, refused when
// it does not parse.
func AllowedSignersLine(principal, key string) (string, error) {
	line := signing.AllowedSignersLine(principal, key)
	if _, err := gitstore.ParseAllowedSigners([]byte(line + "\n")); err != nil {
		return "", err
	}
	return line, nil
}

// AddSigner is the policy op appending an allowed-signers line
// (AllowedSignersLine); Unchanged when the branch has it already.
func (s *Service) AddSigner(line string, ev kernel.Evidence, approval kernel.Approval) (*WriteResult, error) {
	// Read on the tip the op is decided on, every time: a run that loses
	// the race appends to the winner's file, not to a stale one.
	return s.changePolicy(approval, ev, func(v kernel.Snapshot) (map[string][]byte, error) {
		cur, err := v.ReadFile(kernel.AllowedSignersPath)
		if err != nil || strings.Contains(string(cur), line) {
			return nil, err
		}
		return map[string][]byte{kernel.AllowedSignersPath: append(append([]byte(nil), cur...), []byte(line+"\n")...)}, nil
	})
}

// changePolicy writes the files change returns, decided on each tip the
// write loop tries, as one policy commit (nothing when it returns none),
// then exports the signers for git verify-commit.
func (s *Service) changePolicy(approval kernel.Approval, ev kernel.Evidence, change func(kernel.Snapshot) (map[string][]byte, error)) (*WriteResult, error) {
	res, err := s.write("policy", approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		snap, err := snapshotOf(v)
		if err != nil {
			return nil, err
		}
		files, err := change(snap)
		if err != nil || len(files) == 0 {
			return nil, err
		}
		return kernel.ChangePolicy(files, ev)
	})
	if err == nil && s.git != nil {
		_ = s.git.ExportAllowedSigners()
	}
	return res, err
}

// AuditLog is the local audit log: one line per op that reached the write
// path, and how many lines did not parse (torn by a crash).
type AuditLog struct {
	Lines   []kernel.AuditLine
	Skipped int
}

// ReadAudit reads the audit log's lines written at or after since (zero: all).
func (s *Service) ReadAudit(since time.Time) (*AuditLog, error) {
	g, err := s.needsGit("the audit log")
	if err != nil {
		return nil, err
	}
	log, err := g.ReadAudit(since)
	if err != nil {
		return nil, err
	}
	return &AuditLog{Lines: log.Lines, Skipped: log.Skipped}, nil
}

// SignApproval signs an approval statement (kernel.ApprovalRequest's) with
// the configured signing key, or with the SSH private key in keyFile.
func (s *Service) SignApproval(statement []byte, keyFile string) (string, error) {
	g, err := s.needsGit("an approval")
	if err != nil {
		return "", err
	}
	signer, err := g.Signer()
	if keyFile != "" {
		name, email := g.Ident()
		signer, err = signing.FromConfig(keyConfig{base: g.ConfigGetter(), key: keyFile}, name, email)
	}
	if err != nil {
		return "", gitstore.FromSigning(err)
	}
	sig, err := signing.SignApproval(signer, statement)
	return sig, gitstore.FromSigning(err)
}

// keyConfig is the git config as signing reads it, with the signing key
// replaced by a key file.
type keyConfig struct {
	base signing.ConfigGetter
	key  string
}

func (c keyConfig) Get(key string) (string, bool) {
	switch key {
	case "records.signingkey":
		return c.key, true
	case "records.signingformat":
		return signing.FormatSSH, true
	}
	return c.base.Get(key)
}

var _ signing.ConfigGetter = keyConfig{}
