package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// ProposalState is where a proposal stands in its life cycle. Only a
// pending proposal may be applied or rejected.
type ProposalState string

const (
	ProposalPending  ProposalState = "pending"
	ProposalApplied  ProposalState = "applied"
	ProposalRejected ProposalState = "rejected"
	// ProposalWithdrawn is reserved: no op withdraws a proposal yet.
	ProposalWithdrawn ProposalState = "withdrawn"
)

// Proposal is one propose entry of a record's mutation log and what the
// entries after it made of it. Nothing about it is stored apart from the
// log, so it survives merges: its id is derived from the propose entry and
// its state from the apply and reject entries that name it.
type Proposal struct {
	ID         string        `json:"id"`
	ConceptID  string        `json:"concept_id"`
	ProposerID string        `json:"proposer_id"`
	Agent      string        `json:"agent"`
	Text       string        `json:"proposal"`
	At         Timestamp     `json:"at"`
	State      ProposalState `json:"state"`
	ResolvedAt *Timestamp    `json:"resolved_at,omitempty"`
	ResolvedBy string        `json:"resolved_by,omitempty"` // the agent of the apply or reject
}

// proposalIDLength is the hex length of a proposal id: 48 bits is plenty
// within one record's log, and short enough to type.
const proposalIDLength = 12

// ProposalID derives a proposal's id from what its propose entry records.
func ProposalID(conceptID, proposerID string, at Timestamp, text string) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{conceptID, proposerID, at.String(), text}, "\x00")))
	return hex.EncodeToString(sum[:])[:proposalIDLength]
}

func evidenceString(e MutationEntry, key string) string {
	s, _ := e.Evidence[key].(string)
	return s
}

// entryProposalID is the id a propose entry carries, or the derived one for
// entries written before ids existed.
func entryProposalID(conceptID string, e MutationEntry) string {
	if id := evidenceString(e, "proposal_id"); id != "" {
		return id
	}
	return ProposalID(conceptID, evidenceString(e, "proposer_id"), e.At, evidenceString(e, "proposal"))
}

// ProposalFault is an apply or reject entry that acts on no pending
// proposal: the life cycle forbids it.
type ProposalFault struct {
	Index int // in the mutation log
	Err   *Error
}

// Proposals reads the proposals of r from its mutation log, in log order,
// with their states, and the apply/reject entries that broke the life cycle
// (these change no state: the first resolution of a proposal stands).
func Proposals(r *Record) ([]Proposal, []ProposalFault) {
	var out []Proposal
	var faults []ProposalFault
	for i, e := range r.MutationLog {
		switch Op(e.Op) {
		case OpPropose:
			out = append(out, Proposal{ID: entryProposalID(r.ID, e), ConceptID: r.ID, ProposerID: evidenceString(e, "proposer_id"),
				Agent: e.Agent, Text: evidenceString(e, "proposal"), At: e.At, State: ProposalPending})
		case OpApply, OpReject:
			p, err := pickProposal(out, evidenceString(e, "proposal_id"), evidenceString(e, "proposer_id"), r.ID)
			if err != nil {
				faults = append(faults, ProposalFault{Index: i, Err: err})
				continue
			}
			p.State = ProposalApplied
			if Op(e.Op) == OpReject {
				p.State = ProposalRejected
			}
			at := e.At
			p.ResolvedAt, p.ResolvedBy = &at, e.Agent
		}
	}
	return out, faults
}

// pickProposal finds the pending proposal an apply or reject acts on: the
// one its id names, else the latest pending one of the proposer (entries
// written before proposal ids, and the contract's concept_id + proposer_id).
func pickProposal(ps []Proposal, id, proposerID, conceptID string) (*Proposal, *Error) {
	if id != "" {
		for i := range ps {
			if ps[i].ID != id {
				continue
			}
			if ps[i].State != ProposalPending {
				return nil, Errorf(CodeMissingEvidence, "proposal %s on %s is already %s: only a pending proposal can be applied or rejected; propose again to reopen it",
					id, conceptID, ps[i].State).WithExtra("proposal_id", id).WithExtra("state", string(ps[i].State))
			}
			return &ps[i], nil
		}
		return nil, Errorf(CodeNotFound, "no proposal %s on %s: list them with git records proposals %s", id, conceptID, conceptID).WithExtra("proposal_id", id)
	}
	var last *Proposal
	resolved := 0
	for i := range ps {
		if ps[i].ProposerID != proposerID {
			continue
		}
		if ps[i].State == ProposalPending {
			last = &ps[i]
		} else {
			resolved++
		}
	}
	if last != nil {
		return last, nil
	}
	if resolved > 0 {
		return nil, Errorf(CodeMissingEvidence, "%s has no pending proposal for %s: its proposals are already applied or rejected; propose again first", proposerID, conceptID)
	}
	return nil, Errorf(CodeMissingEvidence, "%s has no pending proposal for %s: propose first", proposerID, conceptID)
}

// ResolveProposal is resolveProposal for callers outside the kernel: the CLI
// reads the proposed text to apply when no body is given.
func ResolveProposal(v View, conceptHandle, handle string) (*Record, *Proposal, error) {
	return resolveProposal(v, conceptHandle, handle)
}

// resolveProposal finds the pending proposal that apply or reject acts on.
// handle is a proposal id (or a unique prefix of one, 6+ characters) of
// the concept, or the handle of the proposer record, whose latest pending
// proposal is taken.
func resolveProposal(v View, conceptHandle, handle string) (*Record, *Proposal, error) {
	if err := requireProposer(handle); err != nil {
		return nil, nil, err
	}
	concept, err := mustRecord(v, conceptHandle)
	if err != nil {
		return nil, nil, err
	}
	ps, _ := Proposals(concept)
	if id := matchProposalID(ps, handle); id != "" {
		p, perr := pickProposal(ps, id, "", concept.ID)
		if perr != nil {
			return nil, nil, perr
		}
		return concept, p, nil
	}
	proposer, err := mustRecord(v, handle)
	if err != nil {
		return nil, nil, AboutField(err, "proposer_id")
	}
	p, perr := pickProposal(ps, "", proposer.ID, concept.ID)
	if perr != nil {
		return nil, nil, perr
	}
	return concept, p, nil
}

// requireProposer refuses a proposal op that names no proposer: an empty
// handle would otherwise be looked up and reported as a record "" that
// does not exist.
func requireProposer(handle string) error {
	return requireText("proposer_id", handle, "the proposer record's handle; apply and reject also take a proposal id")
}

// matchProposalID returns the id of the one proposal handle names (the
// whole id, or a prefix of 6+ characters matching exactly one), or "".
func matchProposalID(ps []Proposal, handle string) string {
	if len(handle) < 6 {
		return ""
	}
	found := ""
	for _, p := range ps {
		if p.ID == handle {
			return p.ID
		}
		if strings.HasPrefix(p.ID, handle) && found != p.ID {
			if found != "" {
				return ""
			}
			found = p.ID
		}
	}
	return found
}

// CheckProposalLifecycle judges the apply and reject entries a commit of op
// appended to r (those at index from and after): each must act on a pending
// proposal. A merge commit's entries were judged on their own side, where
// each was legal, so only apply and reject commits are judged here.
func CheckProposalLifecycle(r *Record, from int, op Op) []*Error {
	if op != OpApply && op != OpReject {
		return nil
	}
	_, faults := Proposals(r)
	var out []*Error
	for _, f := range faults {
		if f.Index >= from {
			out = append(out, f.Err)
		}
	}
	return out
}
