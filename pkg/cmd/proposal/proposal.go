// Package proposal holds what the proposal commands (propose, apply,
// reject, proposals, conflicts) share.
package proposal

import (
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ProposerHelp says what --proposer takes: propose names the proposer
// record; apply and reject also take a proposal id (git records proposals).
const ProposerHelp = "record handle (id, alias or 8+ character prefix) of the proposer; apply and reject also take a proposal id from git records proposals, and otherwise act on the proposer's latest pending proposal"

// Writer is how a proposal command writes: the Factory's Write and
// PrintWritten.
type Writer struct {
	Write        func(*cmdutil.ApprovalFlags, func(*service.Service, kernel.Approval) (*service.WriteResult, error)) (*service.WriteResult, error)
	PrintWritten func(*service.WriteResult) error
}

// NewWriter is the Factory's.
func NewWriter(f *cmdutil.Factory) Writer {
	return Writer{Write: f.Write, PrintWritten: f.PrintWritten}
}

// Run writes one proposal op (service.Propose, Apply or Reject) on in and
// prints the concept's id.
func (w Writer) Run(approval *cmdutil.ApprovalFlags, in service.ProposalInput,
	op func(*service.Service, service.ProposalInput, kernel.Approval) (*service.WriteResult, error)) error {
	res, err := w.Write(approval, func(svc *service.Service, gate kernel.Approval) (*service.WriteResult, error) {
		return op(svc, in, gate)
	})
	if err != nil {
		return err
	}
	return w.PrintWritten(res)
}
