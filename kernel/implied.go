package kernel

import (
	"fmt"
	"sort"
	"strings"
)

// evidenceTrailers maps mutation-log evidence keys to the trailers that
// carry them, so a hand commit's trailers say what its log entries say.
var evidenceTrailers = map[string]string{
	"proposer_id": TrailerProposer, "proposal": TrailerProposal, "rationale": TrailerRationale,
	"reason": TrailerReason, "targetStatus": TrailerTargetStatus, "implementedByRef": TrailerImplementedBy,
	"supersededByRef": TrailerSupersededBy,
}

// ImpliedTrailers are the trailers a commit written by hand on a checked-out
// records branch implies, for a message that has none (the commit-msg
// hook); the commit is then judged by JudgeCommit like any other. files are
// the staged changes. A merge (mergedFrom, the other side's tip, is set:
// git merge, git pull) names the records it writes on top of HEAD, the
// merged-from commit and each conflict the merge driver resolved (a merge
// entry it appended). Any other commit takes its op, agent and evidence from
// the log entries its records append, which must all name one op; agent,
// when set, names the agent instead. problem says why no trailers can be
// derived ("" with no trailers: nothing to derive).
func ImpliedTrailers(files []FileChange, mergedFrom, agent string) (trailers []Trailer, problem string) {
	if mergedFrom != "" {
		return mergeTrailers(files, mergedFrom, agent)
	}
	var op, entryAgent string
	var ids []string
	evidence := map[string]string{}
	var fields []string
	for _, c := range files {
		if !c.IsRecord || c.Deleted {
			continue
		}
		if c.NewErr != nil {
			return nil, fmt.Sprintf("%s does not parse: %v", c.Path, c.NewErr)
		}
		r, old := c.New, c.Old
		start := 0
		if old != nil {
			start = len(old.MutationLog)
		}
		if start >= len(r.MutationLog) {
			return nil, fmt.Sprintf("record %s changes without a new mutation_log entry: append one (op, at, agent) saying what you changed", r.ID)
		}
		ids = append(ids, r.ID)
		for _, e := range r.MutationLog[start:] {
			eop := e.Op
			if eop == OpSupersededBy {
				eop = string(OpSupersede)
			}
			if op != "" && op != eop {
				return nil, fmt.Sprintf("the staged records append %s and %s entries: commit one op at a time", op, eop)
			}
			op, entryAgent = eop, e.Agent
			if op == string(OpUpdate) && e.Evidence["fields"] == nil && old != nil {
				// A hand edit's entry rarely lists the fields it changed:
				// the diff says, as update's own evidence would.
				fields = append(fields, ChangedContent(old, r)...)
			}
			for k, v := range e.Evidence {
				if key, ok := evidenceTrailers[k]; ok {
					evidence[key] = fmt.Sprint(v)
				}
				if k == "fields" {
					if list, ok := v.([]any); ok {
						for _, f := range list {
							fields = append(fields, fmt.Sprint(f))
						}
					}
				}
			}
		}
	}
	if op == "" {
		return nil, ""
	}
	if agent == "" {
		agent = entryAgent
	}
	ts := []Trailer{{Key: TrailerOp, Value: op}}
	for _, id := range ids {
		ts = append(ts, Trailer{Key: TrailerID, Value: id})
	}
	ts = append(ts, Trailer{Key: TrailerAgent, Value: agent}, Trailer{Key: TrailerFormat, Value: FormatVersion})
	if len(fields) > 0 {
		evidence[TrailerFields] = strings.Join(dedupe(fields), ",")
	}
	keys := make([]string, 0, len(evidence))
	for k := range evidence {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ts = append(ts, Trailer{Key: k, Value: evidence[k]})
	}
	for _, req := range OpSpecs()[Op(op)].RequiredTrailers {
		if evidence[req] == "" {
			return nil, fmt.Sprintf("%s needs evidence %s: put it in the mutation_log entry's evidence or add the trailer to the message", op, req)
		}
	}
	return ts, ""
}

// mergeTrailers are ImpliedTrailers of a merge made with plain git.
func mergeTrailers(files []FileChange, mergedFrom, agent string) ([]Trailer, string) {
	ts := []Trailer{{Key: TrailerOp, Value: string(OpMerge)}}
	var conflicts []Trailer
	for _, c := range files {
		if !c.IsRecord || c.Deleted {
			continue
		}
		if c.NewErr != nil {
			return nil, c.Path + " does not parse: " + c.NewErr.Error()
		}
		ts = append(ts, Trailer{Key: TrailerID, Value: c.ID})
		var old []MutationEntry
		if c.Old != nil {
			old = c.Old.MutationLog
		}
		hadEntry := NewEntrySet(old)
		for _, e := range c.New.MutationLog {
			if e.Op != string(OpMerge) || hadEntry.Has(e) {
				continue
			}
			field, _ := e.Evidence["field"].(string)
			kept, _ := e.Evidence["kept_from"].(string)
			conflicts = append(conflicts, Trailer{Key: TrailerConflict, Value: c.ID + " " + field + " kept " + kept})
		}
	}
	ts = append(ts, Trailer{Key: TrailerAgent, Value: agent}, Trailer{Key: TrailerFormat, Value: FormatVersion},
		Trailer{Key: TrailerMergedFrom, Value: mergedFrom})
	return append(ts, conflicts...), ""
}
