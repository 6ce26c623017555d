package kernel

import (
	"sort"
	"time"
)

// ScopeState is the scoped content as the working tree holds it now.
type ScopeState struct {
	GitHead string
	Hash    string            // changedFilesHash over the scope's files now
	Files   map[string]string // path -> content hash now (absent: file gone)
	Err     error             // the scope cannot be evaluated (not in a repository, …)
}

// Verdict is a record's derived freshness (Agent Kit, Freshness; Addendum J).
type Verdict struct {
	ID           string         `json:"id"`
	State        FreshnessState `json:"state"`
	Reason       string         `json:"reason"`
	ChangedPaths []string       `json:"changed_paths"`
}

// DeriveFreshness decides a record's freshness. Content decides, not commit
// ids: a record is current while its scoped files hash as they did when it
// was written, whatever HEAD is. Order: superseded, expired, no scope,
// scope unreadable, content changed, current.
func DeriveFreshness(r *Record, now time.Time, superseded bool, scope func(*Scope) ScopeState) Verdict {
	v := Verdict{ID: r.ID, ChangedPaths: []string{}}
	switch {
	case superseded:
		v.State, v.Reason = FreshnessSuperseded, "superseded by a newer record"
		return v
	case r.Expired(now):
		exp, _ := r.EffectiveExpiry()
		v.State, v.Reason = FreshnessStale, "expired at "+At(exp).String()
		return v
	case r.Scope == nil || len(r.Scope.Paths) == 0:
		v.State, v.Reason = FreshnessUnknown, "no scope: the record makes no claim about code"
		return v
	}
	now1 := scope(r.Scope)
	if now1.Err != nil {
		v.State, v.Reason = FreshnessUnavailable, now1.Err.Error()
		return v
	}
	if now1.Hash == r.Scope.ChangedFilesHash {
		v.State, v.Reason = FreshnessCurrent, "scoped content unchanged"
		return v
	}
	v.State, v.Reason = FreshnessStale, "scoped content changed"
	v.ChangedPaths = ChangedPaths(r.Scope.Files, now1.Files)
	return v
}

// ChangedPaths lists the paths whose content hash differs between two file
// maps (added, removed or modified), sorted.
func ChangedPaths(before, after map[string]string) []string {
	out := []string{}
	for p, h := range before {
		if after[p] != h {
			out = append(out, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// RecordVerdicts is the verify_record action: it writes each verdict that
// differs from the record's stored freshness, as one commit. Records whose
// verdict did not change are not rewritten; nil when nothing changed.
func RecordVerdicts(v View, verdicts []Verdict, gitHead, filesHash string, ev Evidence, env Env) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	now := At(env.Now)
	var writes []*Record
	states := map[FreshnessState]int{}
	for _, vd := range verdicts {
		cur, err := v.Record(vd.ID)
		if err != nil {
			return nil, err
		}
		if cur == nil {
			return nil, Errorf(CodeNotFound, "record %s does not exist", vd.ID)
		}
		if cur.Freshness != nil && cur.Freshness.State == vd.State {
			continue
		}
		if cur.Freshness == nil && vd.State == FreshnessUnknown {
			continue // no scope and never checked: there is no verdict to keep
		}
		r := cur.Clone()
		r.Freshness = &FreshnessMark{State: vd.State, CheckedAt: now}
		evidence := map[string]any{"state": string(vd.State), "reason": vd.Reason, "gitHead": gitHead}
		if len(vd.ChangedPaths) > 0 {
			evidence["changed_paths"] = vd.ChangedPaths
		}
		r.MutationLog = append(r.MutationLog, MutationEntry{Op: string(OpVerify), At: now, Agent: ev.Agent, Note: ev.Note, Evidence: evidence})
		writes = append(writes, r)
		states[vd.State]++
	}
	if len(writes) == 0 {
		return nil, nil
	}
	title := writes[0].Title
	if len(writes) > 1 {
		title = itoa(len(writes)) + " records"
	}
	m := &Mutation{Op: OpVerify, Type: writes[0].Type, Title: title, Message: ev.Note, Writes: writes}
	m.Trailers = baseTrailers(OpVerify, ev.Agent, ev.SessionID, ids(writes)...)
	m.Trailers = append(m.Trailers, Trailer{TrailerGitHead, gitHead})
	if filesHash != "" {
		m.Trailers = append(m.Trailers, Trailer{TrailerFilesHash, filesHash})
	}
	for _, s := range []FreshnessState{FreshnessCurrent, FreshnessStale, FreshnessSuperseded, FreshnessUnknown, FreshnessUnavailable} {
		if states[s] > 0 {
			m.Trailers = append(m.Trailers, Trailer{TrailerFreshness, string(s) + " " + itoa(states[s])})
		}
	}
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return validated(m)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}
