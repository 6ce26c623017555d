package service

import (
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// HistoryEntry is one op as an auditor reads it: one line of
// `log --format jsonl`, one element of `log --json`. The field names are a
// public format (docs/audit.md).
type HistoryEntry struct {
	Commit          string           `json:"commit"`
	Op              string           `json:"op"`
	Records         []string         `json:"records"`
	Agent           string           `json:"agent"`
	Session         string           `json:"session,omitempty"`
	Signer          string           `json:"signer"`         // principal from allowed_signers; "" unless the signature is good
	Signature       string           `json:"signature"`      // good, bad, unknown_key, unsigned, unverifiable
	SignatureCode   string           `json:"signature_code"` // git's %G?: G, B, U, N, E
	SignatureKey    string           `json:"signature_key,omitempty"`
	SignatureDetail string           `json:"signature_detail,omitempty"`
	Signed          bool             `json:"signed"`
	Committer       string           `json:"committer"`
	Time            kernel.Timestamp `json:"time"`
	Subject         string           `json:"subject"`
	Evidence        map[string]any   `json:"evidence"` // Evidence-* trailers by name without the prefix
	ApprovedBy      string           `json:"approved_by,omitempty"`
}

// EvidenceText is a commit's evidence and approval on one line, keys in
// order ("Rationale: shipped; Approved-By: alice"): what log's text lines
// and the web view's history show.
func (e HistoryEntry) EvidenceText() string {
	keys := make([]string, 0, len(e.Evidence))
	for k := range e.Evidence {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys)+1)
	for _, k := range keys {
		switch v := e.Evidence[k].(type) {
		case string:
			parts = append(parts, k+": "+OneLine(v))
		case []string:
			parts = append(parts, k+": "+OneLine(strings.Join(v, ", ")))
		}
	}
	if e.ApprovedBy != "" {
		parts = append(parts, "Approved-By: "+e.ApprovedBy)
	}
	return strings.Join(parts, "; ")
}

// listEvidence are the evidence trailers an op writes once per item (one
// per link, per superseded id, per freshness state): always arrays in JSON,
// so a reader never has to ask whether it got one value or several.
var listEvidence = map[string]bool{"Link": true, "Supersedes": true, "Freshness": true, "Compacted": true, "Retained": true, "Creator": true, "Binding": true}

func newHistoryEntry(e gitstore.HistoryEntry, sig hooks.Signature) HistoryEntry {
	h := HistoryEntry{Commit: e.Commit, Op: e.Op, Records: []string{}, Agent: e.Agent, Signer: sig.Principal,
		Signature: sig.Status, SignatureCode: sig.Code, SignatureKey: sig.Key, SignatureDetail: sig.Detail,
		Signed: e.Signed, Committer: e.Committer, Time: e.Time, Subject: e.Subject, Evidence: map[string]any{}}
	for _, t := range e.Trailers {
		switch {
		case t.Key == kernel.TrailerID:
			h.Records = append(h.Records, t.Value)
		case t.Key == kernel.TrailerSession:
			h.Session = t.Value
		case t.Key == kernel.TrailerApprovedBy:
			h.ApprovedBy = t.Value
		case strings.HasPrefix(t.Key, "Evidence-"):
			name := strings.TrimPrefix(t.Key, "Evidence-")
			switch prev := h.Evidence[name].(type) {
			case nil:
				if listEvidence[name] {
					h.Evidence[name] = []string{t.Value}
				} else {
					h.Evidence[name] = t.Value
				}
			case []string:
				h.Evidence[name] = append(prev, t.Value)
			case string: // a hand-made commit repeating a single-valued trailer: keep both
				h.Evidence[name] = []string{prev, t.Value}
			}
		}
	}
	return h
}

// LogQuery selects history: one record's (Handle) or the store's, newest
// first, at most Limit commits (0: all), only what Since cannot reach.
type LogQuery struct {
	Handle string
	Limit  int
	Since  string // a revision
}

// Log is the history with each commit's signature checked in-process, as
// verify checks it. Never nil.
func (s *Service) Log(q LogQuery) ([]HistoryEntry, error) {
	g, err := s.needsGit("history")
	if err != nil {
		return nil, err
	}
	path := ""
	if q.Handle != "" {
		_, r, err := s.Record(q.Handle)
		if err != nil {
			return nil, err
		}
		path = gitstore.RecordPath(r.Type, r.ID)
	}
	var from plumbing.Hash
	if q.Since != "" {
		var err error
		if from, err = g.ResolveRev(q.Since); err != nil {
			return nil, kernel.AboutField(err, "since_commit")
		}
	}
	h, err := g.HistorySince(path, from, q.Limit)
	if err != nil {
		return nil, err
	}
	checker := hooks.NewSignatureChecker(g)
	entries := make([]HistoryEntry, 0, len(h))
	for _, e := range h {
		sig, err := checker.Check(plumbing.NewHash(e.Commit))
		if err != nil {
			return nil, err
		}
		entries = append(entries, newHistoryEntry(e, sig))
	}
	return entries, nil
}
