package service

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// capabilityWriteOps are the ops whose policy decision resolves a write capability.
var capabilityWriteOps = []kernel.Op{kernel.OpCreate, kernel.OpLink, kernel.OpVerify}

// Capabilities is the Agent Kit's capability resolution for one place, as
// `capabilities --json` prints it.
type Capabilities struct {
	Extension    string                        `json:"extension"`
	Ref          string                        `json:"ref,omitempty"`
	Principal    string                        `json:"principal,omitempty"`
	Capabilities []kernel.CapabilityResolution `json:"capabilities"`
}

// ResolveCapabilities finds out what the rules need, without writing
// anything, and resolves each capability. open opens the service; it
// returns (nil, nil) for a standalone store not created yet (autoInit: it
// will be created on first use). workDir is where the working tree is
// looked for.
func ResolveCapabilities(open func() (*Service, error), autoInit bool, workDir string) *Capabilities {
	f := capabilityFacts(open, autoInit, workDir)
	return &Capabilities{Extension: kernel.ExtensionName, Ref: f.Ref, Principal: f.Principal, Capabilities: kernel.ResolveCapabilities(f)}
}

func capabilityFacts(open func() (*Service, error), autoInit bool, workDir string) kernel.CapabilityFacts {
	f := kernel.CapabilityFacts{Decisions: map[kernel.Op]kernel.Decision{}, AutoInit: autoInit}
	if repo, err := gitdir.Discover(workDir); err == nil && repo.WorkTree != "" {
		f.InWork = true
	}
	svc, err := open()
	if err == nil && svc != nil {
		_, err = svc.needsGit("capabilities")
	}
	if err != nil {
		f.StoreErr, f.StoreMessage = kernel.CodeOf(err), err.Error()
		return f
	}
	if svc == nil { // a standalone store not created yet
		return f
	}
	s := svc.git
	f.Ref = s.Ref()
	tip, err := s.Tip()
	if err != nil {
		f.StoreErr, f.StoreMessage = kernel.CodeOf(err), err.Error()
		return f
	}
	f.HasBranch = !tip.IsZero()
	f.Upstream, f.Behind = upstreamOf(s, tip)

	signer, err := s.Signer()
	if err != nil {
		f.SignerErr, f.SignerMessage = kernel.CodeOf(err), err.Error()
	} else {
		f.SignerFormat = signer.Format()
	}
	_, f.Principal = s.Ident()
	if !f.HasBranch {
		return f
	}
	v, err := s.ViewAt(tip)
	if err != nil {
		f.StoreErr, f.StoreMessage = kernel.CodeOf(err), err.Error()
		return f
	}
	tr, err := v.Trust()
	if err != nil {
		f.StoreErr, f.StoreMessage = kernel.CodeOf(err), err.Error()
		return f
	}
	if signer != nil {
		if p := tr.Principal(signer.Principal()); p != "" {
			f.SignerListed, f.Principal = true, p
		}
	}
	if err := tr.Err(); err != nil {
		f.PolicyErr = err.Error()
	}
	if f.PolicyErr == "" {
		for _, op := range capabilityWriteOps {
			// No type or category: may this principal run the op anywhere?
			f.Decisions[op] = tr.Decide(f.Principal, op, "", "")
		}
	}
	return f
}

// upstreamOf is the remote-tracking branch of the records branch (from
// branch.<name>.remote, else origin) and how many commits it has that tip
// lacks, as of the last fetch: capabilities never goes to the network.
func upstreamOf(s *gitstore.Store, tip plumbing.Hash) (string, int) {
	name := strings.TrimPrefix(s.Ref(), "refs/heads/")
	remote, ok := s.ConfigValue("branch." + name + ".remote")
	if !ok || remote == "" || remote == "." {
		remote = "origin"
	}
	ref := "refs/remotes/" + remote + "/" + name
	up, err := s.ReadRef(ref)
	if err != nil || up.IsZero() {
		return "", 0
	}
	spec := up.String()
	if !tip.IsZero() {
		spec = tip.String() + ".." + spec
	}
	behind, err := s.RevList(spec)
	if err != nil {
		return ref, 0
	}
	return strings.TrimPrefix(ref, "refs/remotes/"), len(behind)
}
