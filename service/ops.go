package service

import (
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// The ops. Each decides with the kernel's op against the tip the write loop
// hands it (so a lost race re-decides on the new tip) and lands through
// the store's port (write). Approval is what the caller brings for an op the
// policy marks as risky (its own --approve, or an approver's token).

// Create creates a record. A scope given by paths is captured from the
// working tree (HEAD, base and content hashes) before the op is decided.
func (s *Service) Create(in kernel.CreateInput, approval kernel.Approval) (*WriteResult, error) {
	var err error
	if in.Scope, err = gitstore.CaptureScope(s.WorkDir, in.Scope); err != nil {
		return nil, err
	}
	return s.write(in.ID, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Create(v, in, env)
	})
}

// Update changes a record's mutable fields; a scope is re-captured as for Create.
func (s *Service) Update(handle string, f kernel.UpdateFields, ev kernel.Evidence, approval kernel.Approval) (*WriteResult, error) {
	var err error
	if f.Scope, err = gitstore.CaptureScope(s.WorkDir, f.Scope); err != nil {
		return nil, err
	}
	return s.write(handle, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, handle, f, ev, env)
	})
}

// Link adds links from a record (idempotent).
func (s *Service) Link(handle string, links []kernel.Link, ev kernel.Evidence, approval kernel.Approval) (*WriteResult, error) {
	return s.write(handle, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.LinkRecords(v, handle, links, ev, env)
	})
}

// ProposalInput names a proposal op's concept and proposer: the proposer
// record's handle, or (for apply and reject) a proposal id.
type ProposalInput struct {
	Concept  string
	Proposer string
	Evidence kernel.Evidence
	// UseProposedText makes apply replace the body with the proposal's own
	// text, read from the tip the op is decided on.
	UseProposedText bool
}

// Propose proposes a change to a concept.
func (s *Service) Propose(in ProposalInput, approval kernel.Approval) (*WriteResult, error) {
	return s.proposal(kernel.Propose, in, approval)
}

// Apply applies a pending proposal.
func (s *Service) Apply(in ProposalInput, approval kernel.Approval) (*WriteResult, error) {
	return s.proposal(kernel.Apply, in, approval)
}

// Reject rejects a pending proposal.
func (s *Service) Reject(in ProposalInput, approval kernel.Approval) (*WriteResult, error) {
	return s.proposal(kernel.Reject, in, approval)
}

func (s *Service) proposal(op func(v kernel.View, concept, proposer string, ev kernel.Evidence, env kernel.Env) (*kernel.Mutation, error),
	in ProposalInput, approval kernel.Approval) (*WriteResult, error) {
	return s.write(in.Concept, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		ev := in.Evidence
		if in.UseProposedText {
			_, p, err := kernel.ResolveProposal(v, in.Concept, in.Proposer)
			if err != nil {
				return nil, err
			}
			ev.NewBody = p.Text
		}
		return op(v, in.Concept, in.Proposer, ev, env)
	})
}

// Supersede marks records as superseded by a newer one.
func (s *Service) Supersede(newer string, older []string, ev kernel.Evidence, approval kernel.Approval) (*WriteResult, error) {
	return s.write(newer, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Supersede(v, newer, older, ev, env)
	})
}

// Retire retires a record, or marks it implemented.
func (s *Service) Retire(handle string, status kernel.Status, ev kernel.Evidence, approval kernel.Approval) (*WriteResult, error) {
	return s.write(handle, approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Retire(v, handle, status, ev, env)
	})
}

// Observe records a snapshot of an external object with its raw payload
// stored by content hash; re-observing an unchanged one is coalesced: no
// commit, Unchanged, and the ID of the snapshot that already holds it.
func (s *Service) Observe(in kernel.CreateInput, payload []byte, approval kernel.Approval) (*WriteResult, error) {
	var same *kernel.Record
	res, err := s.write("", approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m, prev, err := kernel.Observe(v, in, payload, env)
		same = prev
		return m, err
	})
	if err == nil && res.Unchanged && same != nil {
		res.ID = same.ID
	}
	return res, err
}

// CompactResult is a compaction's outcome: the commit and the plan (the
// rollup, each record rolled up, each kept with the rule that kept it).
type CompactResult struct {
	*WriteResult
	*kernel.CompactPlan
	DryRun bool `json:"dry_run,omitempty"`
}

// Compact rolls the noise created before in.Before up into a rollup
// record and retires it, keeping every decision-bearing record
// (kernel.Compact); dryRun decides on the tip and writes nothing.
func (s *Service) Compact(in kernel.CompactInput, dryRun bool, approval kernel.Approval) (*CompactResult, error) {
	if dryRun {
		v, err := s.View()
		if err != nil {
			return nil, err
		}
		_, plan, err := kernel.Compact(v.snap, in, kernel.Env{Now: time.Now(), NewID: kernel.NewID})
		if err != nil {
			return nil, err
		}
		return &CompactResult{WriteResult: &WriteResult{Unchanged: true}, CompactPlan: plan, DryRun: true}, nil
	}
	var plan *kernel.CompactPlan
	res, err := s.write("", approval, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m, p, err := kernel.Compact(v, in, env)
		plan = p
		return m, err
	})
	if err != nil {
		return nil, err
	}
	return &CompactResult{WriteResult: res, CompactPlan: plan}, nil
}
