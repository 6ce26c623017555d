package service

import (
	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// Execution ownership and continuation: the ops of execution records
// (kernel/execution.go). The gate judges each commit with
// kernel.CheckExecution, so a manager who is not the owner is refused
// (NOT_OWNER) and audited like any denial.

// Every op of a run is written under its bindings: its commit carries the
// binding manifest (kernel.Resolve with the run's BindOptions) when the
// store declares extension slots.

// runOp commits one op of a run through the gated write path, under the
// run's bindings.
func (s *Service) runOp(handle string, opts BindOptions, approval kernel.Approval, decide kernel.DecideFunc) (*WriteResult, error) {
	decide, err := s.underBindings(opts, decide)
	if err != nil {
		return nil, err
	}
	return s.write(handle, approval, decide)
}

// StartExecution starts an execution record owned by the signer.
func (s *Service) StartExecution(in kernel.StartInput, opts BindOptions, approval kernel.Approval) (*WriteResult, error) {
	return s.runOp(in.ID, opts, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Start(v, in, env)
	})
}

// ManageExecution cancels or closes one record by its owner.
func (s *Service) ManageExecution(op kernel.Op, handle string, in kernel.ManageInput, opts BindOptions, approval kernel.Approval) (*WriteResult, error) {
	return s.runOp(handle, opts, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Manage(v, op, handle, in, env)
	})
}

// EndRun is the run-end cleanup policy: the run's open descendants that
// clean up on run end are terminated in one commit (nil when none), then
// the run is closed in state runState.
func (s *Service) EndRun(run string, runState kernel.ExecState, in kernel.ManageInput, opts BindOptions, approval kernel.Approval) (cleanup, closed *WriteResult, err error) {
	cleanup, err = s.runOp(run, opts, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.EndRun(v, run, in, env)
	})
	if err != nil {
		return nil, nil, err
	}
	in.State, in.Reason = runState, ""
	closed, err = s.ManageExecution(kernel.OpClose, run, in, opts, approval)
	return cleanup, closed, err
}

// EndSession is the session-close cleanup policy: every open record the
// signer owns in the session is terminated or archived (in.State), a receipt each.
func (s *Service) EndSession(in kernel.ManageInput, opts BindOptions, approval kernel.Approval) (*WriteResult, error) {
	return s.runOp("", opts, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.EndSession(v, in, env)
	})
}

// RetireSandbox retires a sandbox record; with force, its open records
// are force-closed with a receipt each in the same commit.
func (s *Service) RetireSandbox(handle string, force bool, in kernel.ManageInput, opts BindOptions, approval kernel.Approval) (*WriteResult, error) {
	return s.runOp(handle, opts, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.RetireSandbox(v, handle, force, in, env)
	})
}

// Closed is what a manage op reports: the execution records its commit
// closed, and the state it closed them in.
type Closed struct {
	Closed []string `json:"closed"`
	State  string   `json:"state,omitempty"`
	Commit string   `json:"commit,omitempty"`
}

// ClosedBy reads a manage op's result (nil: nothing was written).
func ClosedBy(res *WriteResult) Closed {
	out := Closed{Closed: []string{}}
	if res == nil || res.Mutation == nil {
		return out
	}
	m := res.Mutation
	out.State, out.Commit = kernel.TrailerValue(m.Trailers, kernel.TrailerExecState), res.Commit
	for _, r := range m.Writes {
		if kernel.IsExecutionType(r.Type) {
			out.Closed = append(out.Closed, r.ID)
		}
	}
	return out
}

// ownerView is the view the reads of execution records answer from, and
// the principal asking: who this store's signing key is under the
// branch's trust, the identity that would sign the records' manage ops.
func (s *Service) ownerView() (*gitstore.View, string, error) {
	g, err := s.needsGit("execution records")
	if err != nil {
		return nil, "", err
	}
	v, err := g.View()
	if err != nil {
		return nil, "", err
	}
	tr, err := v.Trust()
	if err != nil {
		return nil, "", err
	}
	principal, err := g.PrincipalAt(tr)
	return v, principal, err
}

// ExecutionRecords lists the execution records the signer owns in
// session owner: the open ones, or all with all.
func (s *Service) ExecutionRecords(owner string, all bool) ([]*kernel.Record, error) {
	if owner == "" {
		return nil, kernel.Errorf(kernel.CodeUsage, "owner is required: records are listed by owner session").WithField("owner")
	}
	v, principal, err := s.ownerView()
	if err != nil {
		return nil, err
	}
	rs, err := v.ExecutionRecords()
	if err != nil {
		return nil, err
	}
	out := []*kernel.Record{}
	for _, r := range rs {
		if r.Owner.ManagedBy(principal, owner) && (all || r.IsOpen()) {
			out = append(out, r)
		}
	}
	return out, nil
}

// ExecutionState reads one execution record for its owner (what await
// polls): NOT_OWNER for another signer or session.
func (s *Service) ExecutionState(handle, session string) (*kernel.Record, error) {
	v, principal, err := s.ownerView()
	if err != nil {
		return nil, err
	}
	r, err := v.Get(handle)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, notFound(handle)
	}
	return r, kernel.CheckAwait(r, principal, session)
}

// Continue is the carry-over of the signer's session owner.
func (s *Service) Continue(owner string) (*kernel.CarryOver, error) {
	v, principal, err := s.ownerView()
	if err != nil {
		return nil, err
	}
	return kernel.Continue(v, principal, owner)
}

var _ kernel.ExecutionLister = (*gitstore.View)(nil)
