package kernel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"
)

// AuditLine is one line of the audit log (the Audit Log of the kernel
// contract's non-negotiables: every op that reaches the store's one write
// path, allowed or denied, from the CLI, the contract or MCP, appends one).
// It is JSONL: one object per line, fields only ever added (with defaults),
// so a newer tool reads every older line.
type AuditLine struct {
	Time      string `json:"time"`
	Op        string `json:"op"`
	Front     string `json:"front,omitempty"` // the front-end that called: cli, contract, mcp ("" for a library caller)
	Principal string `json:"principal"`
	Agent     string `json:"agent,omitempty"`
	Risk      Risk   `json:"risk,omitempty"`
	// InputDigest and OutputDigest are "sha256:<hex>" of the canonical JSON
	// of what the caller asked for and of what the op answered (AuditDigest):
	// the log proves what went in and out without holding it.
	InputDigest  string  `json:"input_digest,omitempty"`
	OutputDigest string  `json:"output_digest,omitempty"`
	DurationMS   float64 `json:"duration_ms"`
	// ApprovedBy is the approver of an op the policy marks as needing
	// approval; Approval says how: "self" (--approve) or "token".
	ApprovedBy   string       `json:"approved_by,omitempty"`
	Approval     string       `json:"approval,omitempty"`
	EvidenceRefs EvidenceRefs `json:"evidence_refs"`
	// Result is allowed (a commit landed), unchanged (the op had nothing to
	// write), denied (the policy gate refused it) or failed (any other
	// refusal or error); Code is OK or the error's code.
	Result string `json:"result"`
	Code   string `json:"code"`
	Rule   string `json:"rule,omitempty"`   // the policy rule that decided
	Reason string `json:"reason,omitempty"` // the rule's reason, or the error's message
	// Record and Commit are the fields of lines written before
	// evidence_refs existed; ParseAuditLine moves them there.
	Record string `json:"record,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// EvidenceRefs is where an audit line's evidence lives: the commit the op
// wrote and the records it names.
type EvidenceRefs struct {
	Commit  string   `json:"commit,omitempty"`
	Records []string `json:"records,omitempty"`
}

// Audit results.
const (
	AuditAllowed   = "allowed"
	AuditUnchanged = "unchanged"
	AuditDenied    = "denied"
	AuditFailed    = "failed"
	AuditCodeOK    = "OK"
)

// maxAuditReason bounds the reason a line carries, so a line stays small
// enough for one write(2) whatever message an error had.
const maxAuditReason = 1024

// AuditDigest is "sha256:<hex>" over v's JSON encoding, or over v itself
// when it is bytes (a request as it was read); "" for nil.
func AuditDigest(v any) string {
	if v == nil {
		return ""
	}
	data, ok := v.([]byte)
	if !ok {
		var err error
		if data, err = json.Marshal(v); err != nil {
			return ""
		}
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// AuditOutcome fills the result, code and reason of l from the error an op
// ended with (nil: committed, or unchanged when commit is "").
func (l *AuditLine) AuditOutcome(err error, commit string) {
	l.EvidenceRefs.Commit = commit
	switch {
	case err == nil && commit == "":
		l.Result, l.Code = AuditUnchanged, AuditCodeOK
	case err == nil:
		l.Result, l.Code = AuditAllowed, AuditCodeOK
	default:
		l.Result, l.Code = AuditFailed, string(CodeInternal)
		var e *Error
		if errors.As(err, &e) {
			l.Code = string(e.Code)
			if l.Reason == "" {
				l.Reason = e.Message
			}
		} else if l.Reason == "" {
			l.Reason = err.Error()
		}
		if l.Code == string(CodePermissionDenied) {
			l.Result = AuditDenied
		}
	}
	if len(l.Reason) > maxAuditReason {
		l.Reason = truncateUTF8(l.Reason, maxAuditReason) + "…"
	}
	out := map[string]any{"code": l.Code, "commit": commit, "records": l.EvidenceRefs.Records}
	l.OutputDigest = AuditDigest(out)
}

// EncodeAuditLine is l as one line of JSON ending in a newline.
func EncodeAuditLine(l AuditLine) ([]byte, error) {
	data, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ParseAuditLine reads one line of any version of the log. Lines from
// before results existed recorded denials only; their record and commit
// move to evidence_refs.
func ParseAuditLine(line []byte) (AuditLine, error) {
	var l AuditLine
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&l); err != nil {
		return l, err
	}
	if dec.More() {
		return l, errors.New("more than one JSON value on the line")
	}
	if l.Result == "" {
		l.Result = AuditDenied
	}
	if l.Code == "" {
		l.Code = AuditCodeOK
		if l.Result == AuditDenied {
			l.Code = string(CodePermissionDenied)
		}
	}
	if l.EvidenceRefs.Commit == "" {
		l.EvidenceRefs.Commit = l.Commit
	}
	if len(l.EvidenceRefs.Records) == 0 && l.Record != "" {
		l.EvidenceRefs.Records = []string{l.Record}
	}
	l.Record, l.Commit = "", ""
	if l.Risk == "" {
		if spec, ok := opSpecs[Op(l.Op)]; ok {
			l.Risk = spec.Risk
		}
	}
	return l, nil
}

// AuditSince reports whether l was written at or after since (the zero
// time: always). A line whose time does not parse is kept: a filter must
// not hide what it cannot read.
func (l AuditLine) AuditSince(since time.Time) bool {
	if since.IsZero() {
		return true
	}
	t, err := ParseTimestamp(l.Time)
	if err != nil {
		return true
	}
	return !t.Before(since)
}
