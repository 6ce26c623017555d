// Package trust holds what the trust commands (policy, signers, approve,
// hooks, hook) share: the trust in force at the tip, and the policy commit
// that policy set and signers add write.
package trust

import (
	"fmt"
	"io"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// InForce is the trust in force at the tip of the view. A broken one is an
// error here: show and check have nothing true to say about it.
func InForce(view func() (*gitstore.View, error)) (*kernel.Trust, error) {
	v, err := view()
	if err != nil {
		return nil, err
	}
	t, err := v.Trust()
	if err != nil {
		return nil, err
	}
	return t, t.Err()
}

// PolicyWriter is what a policy commit needs from the Factory.
type PolicyWriter struct {
	Mutate       func(*cmdutil.ApprovalFlags, string, gitstore.Decision) (*service.WriteResult, error)
	Store        func() (*gitstore.Store, error)
	PrintWritten func(*service.WriteResult) error
	Out          func() io.Writer
	JSON         func() bool
}

// NewPolicyWriter is a PolicyWriter over f.
func NewPolicyWriter(f *cmdutil.Factory) PolicyWriter {
	return PolicyWriter{Mutate: f.Mutate, Store: f.Store, PrintWritten: f.PrintWritten,
		Out: func() io.Writer { return f.IOStreams.Out }, JSON: func() bool { return f.JSON }}
}

// Write commits the files change returns (decided on the tip, on every
// attempt of the write loop) as a policy commit; unchanged is printed when
// there is nothing to write.
func (p PolicyWriter) Write(approval *cmdutil.ApprovalFlags, change func(v *gitstore.View) (map[string][]byte, error), ev kernel.Evidence, unchanged string) error {
	w, err := p.Mutate(approval, "policy", func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		files, err := change(v.(*gitstore.View))
		if err != nil || len(files) == 0 {
			return nil, err
		}
		return kernel.ChangePolicy(files, ev)
	})
	if err != nil {
		return err
	}
	if s, err := p.Store(); err == nil {
		_ = s.ExportAllowedSigners()
	}
	if w.Unchanged && !p.JSON() {
		fmt.Fprintln(p.Out(), unchanged)
		return nil
	}
	return p.PrintWritten(w)
}
