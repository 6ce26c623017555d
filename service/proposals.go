package service

import "github.com/git-records/git-records/kernel"

// ProposalStates are the states a proposal can be asked for in.
var ProposalStates = []kernel.ProposalState{kernel.ProposalPending, kernel.ProposalApplied, kernel.ProposalRejected, kernel.ProposalWithdrawn}

// Proposals lists the proposals of one record (handle) or of every record,
// in id order and then log order, only those in state when one is given.
// Never nil. The view is the tip they were read from.
func (s *Service) Proposals(handle string, state kernel.ProposalState) ([]kernel.Proposal, *View, error) {
	v, err := s.View()
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	if handle != "" {
		id, err := v.Resolve(handle)
		if err != nil {
			return nil, nil, err
		}
		if id == "" {
			return nil, nil, notFound(handle)
		}
		ids = []string{id}
	} else if ids, err = v.IDs(); err != nil {
		return nil, nil, err
	}
	out := []kernel.Proposal{}
	for _, id := range ids {
		r, err := v.Record(id)
		if err != nil {
			return nil, nil, err
		}
		if r == nil {
			continue
		}
		ps, _ := kernel.Proposals(r)
		for _, p := range ps {
			if state == "" || p.State == state {
				out = append(out, p)
			}
		}
	}
	return out, v, nil
}
