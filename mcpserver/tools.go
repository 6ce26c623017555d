package mcpserver

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// The tools' inputs: what an agent fills in, described so that it needs no
// README. Each handler turns its input into the service's typed input and
// makes one service call; the kernel judges it as it judges the CLI's.

// linkArg is one link to add.
type linkArg struct {
	Target string `json:"target" jsonschema:"the record linked to: its id, slug alias or 8+ character id prefix"`
	Kind   string `json:"kind,omitempty" jsonschema:"what the link means (default related)"`
	Label  string `json:"label,omitempty" jsonschema:"display label"`
}

func kernelLinks(in []linkArg) []kernel.Link {
	out := make([]kernel.Link, len(in))
	for i, l := range in {
		kind := l.Kind
		if kind == "" {
			kind = kernel.LinkRelated
		}
		out[i] = kernel.Link{TargetID: l.Target, Kind: kind, Label: l.Label}
	}
	return out
}

// writeArgs are what every write takes besides its own fields.
type writeArgs struct {
	Note     string `json:"note,omitempty" jsonschema:"why: kept in the record's mutation log and as the commit body"`
	Session  string `json:"session,omitempty" jsonschema:"session id, kept in provenance and the Record-Session trailer"`
	Approval string `json:"approval,omitempty" jsonschema:"approval token printed by 'git records approve', run by a human approver, for an op the policy marks as needing approval"`
}

func (w writeArgs) evidence(agent string) kernel.Evidence {
	return kernel.Evidence{Agent: agent, Note: w.Note, SessionID: w.Session}
}

// approval is what an MCP client may bring for the risk gate: an approver's
// signed token only. Self-approval (the CLI's --approve) is not offered: an
// agent must not approve a risky op with its user's key on its own say.
func (w writeArgs) approval() kernel.Approval { return kernel.Approval{Token: w.Approval} }

type createArgs struct {
	Type      string    `json:"type" jsonschema:"record type: raw, compiled, concept, snapshot, person, decision, relation, review.finding, github.pull_request, or any namespaced ns.name"`
	Title     string    `json:"title" jsonschema:"title, one line"`
	Category  string    `json:"category" jsonschema:"dot-separated lowercase category, e.g. engineering.api"`
	Body      string    `json:"body" jsonschema:"Markdown body, not empty; [[id]], [[id|label]] or [[id#heading]] links to another record"`
	ID        string    `json:"id,omitempty" jsonschema:"your own id, one lowercase path segment [a-z0-9][a-z0-9._-]*; default 26 random base32 characters"`
	Tags      []string  `json:"tags,omitempty" jsonschema:"tags"`
	Aliases   []string  `json:"aliases,omitempty" jsonschema:"slug aliases the record can be addressed by, e.g. auth/token-refresh"`
	Links     []linkArg `json:"links,omitempty" jsonschema:"frontmatter links to other records"`
	SourceIDs []string  `json:"source_ids,omitempty" jsonschema:"ids of records this one was derived from"`
	Scope     []string  `json:"scope,omitempty" jsonschema:"code paths (files, directories or globs, relative to the server's working directory) the record speaks about; it goes stale when they change"`
	ExpiresAt string    `json:"expires_at,omitempty" jsonschema:"ISO-8601 instant after which the record is stale"`
	TTL       *float64  `json:"ttl_seconds,omitempty" jsonschema:"seconds after creation when the record goes stale"`
	Kind      string    `json:"kind,omitempty" jsonschema:"axis override (default from the type)"`
	Role      string    `json:"role,omitempty" jsonschema:"axis override (default from the type)"`
	Authority string    `json:"authority,omitempty" jsonschema:"axis override (default from the type)"`
	From      string    `json:"from,omitempty" jsonschema:"relation records: the source record"`
	To        string    `json:"to,omitempty" jsonschema:"relation records: the target record"`
	Relation  string    `json:"relation,omitempty" jsonschema:"relation records: the relation type"`
	writeArgs
}

type updateArgs struct {
	Handle    string    `json:"handle" jsonschema:"the record: id, slug alias or 8+ character id prefix"`
	Title     *string   `json:"title,omitempty" jsonschema:"new title"`
	Body      *string   `json:"body,omitempty" jsonschema:"new Markdown body"`
	Category  *string   `json:"category,omitempty" jsonschema:"new category"`
	Tags      *[]string `json:"tags,omitempty" jsonschema:"replaces the tags"`
	Aliases   []string  `json:"aliases,omitempty" jsonschema:"aliases to add (aliases are never removed)"`
	Scope     []string  `json:"scope,omitempty" jsonschema:"re-capture the scope over these paths"`
	ExpiresAt *string   `json:"expires_at,omitempty" jsonschema:"new expiry, ISO-8601 (empty clears it)"`
	TTL       *float64  `json:"ttl_seconds,omitempty" jsonschema:"new ttl in seconds"`
	writeArgs
}

type linkArgs struct {
	Handle string    `json:"handle" jsonschema:"the record the links go from: id, slug alias or 8+ character id prefix"`
	Links  []linkArg `json:"links" jsonschema:"links to add (adding one that is there already changes nothing)"`
	writeArgs
}

type proposeArgs struct {
	Concept  string `json:"concept" jsonschema:"the record the change is proposed to"`
	Proposer string `json:"proposer" jsonschema:"handle of the proposer record (a finding, a review, a person): a record, not a user name"`
	Proposal string `json:"proposal" jsonschema:"the proposed change (required evidence)"`
	writeArgs
}

type applyArgs struct {
	Concept   string  `json:"concept" jsonschema:"the record the proposal is on"`
	Proposer  string  `json:"proposer" jsonschema:"the proposal id (from a proposals listing) or the proposer record's handle (its latest pending proposal)"`
	Rationale string  `json:"rationale" jsonschema:"why the proposal is accepted (required evidence)"`
	NewBody   *string `json:"new_body,omitempty" jsonschema:"the concept's new body; default the proposed text"`
	writeArgs
}

type rejectArgs struct {
	Concept  string `json:"concept" jsonschema:"the record the proposal is on"`
	Proposer string `json:"proposer" jsonschema:"the proposal id or the proposer record's handle"`
	Reason   string `json:"reason" jsonschema:"why the proposal is declined (required evidence)"`
	writeArgs
}

type supersedeArgs struct {
	New       string   `json:"new" jsonschema:"the record that replaces the others"`
	Old       []string `json:"old" jsonschema:"the records it supersedes (nothing is deleted)"`
	Rationale string   `json:"rationale" jsonschema:"why (required evidence)"`
	writeArgs
}

type retireArgs struct {
	Handle        string `json:"handle" jsonschema:"the record to retire"`
	Rationale     string `json:"rationale" jsonschema:"why (required evidence)"`
	Status        string `json:"status,omitempty" jsonschema:"retired (default) or implemented"`
	ImplementedBy string `json:"implemented_by,omitempty" jsonschema:"commit, PR or issue that implements it (required evidence for status implemented)"`
	SupersededBy  string `json:"superseded_by,omitempty" jsonschema:"what replaces it"`
	writeArgs
}

type handleArgs struct {
	Handle string `json:"handle" jsonschema:"the record: id, slug alias or 8+ character id prefix"`
}

type listArgs struct {
	Type           string `json:"type,omitempty" jsonschema:"only this type"`
	Category       string `json:"category,omitempty" jsonschema:"only this category"`
	Prefix         bool   `json:"prefix,omitempty" jsonschema:"with category: include its descendants"`
	Tag            string `json:"tag,omitempty" jsonschema:"only records with this tag"`
	Status         string `json:"status,omitempty" jsonschema:"only this status"`
	Kind           string `json:"kind,omitempty" jsonschema:"only this kind"`
	Role           string `json:"role,omitempty" jsonschema:"only this role"`
	Authority      string `json:"authority,omitempty" jsonschema:"only this authority"`
	IncludeRetired bool   `json:"include_retired,omitempty" jsonschema:"include retired records"`
	Stale          bool   `json:"stale,omitempty" jsonschema:"only stale records (expired, or scoped files changed)"`
	Live           bool   `json:"live,omitempty" jsonschema:"leave out stale, superseded and retired records"`
}

// filter is the list filters as the service takes them.
func (in listArgs) query() service.ListQuery {
	f := service.Filter{Type: in.Type, Category: in.Category, CategoryPrefix: in.Prefix, Tag: in.Tag, Status: kernel.Status(in.Status),
		Kind: kernel.Kind(in.Kind), Role: kernel.Role(in.Role), Authority: kernel.Authority(in.Authority), IncludeRetired: in.IncludeRetired}
	return service.ListQuery{Filter: f, Live: in.Live, Stale: in.Stale}
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"words to find in title, body, tags, aliases and category, best first; \"a phrase\" in double quotes, tok* for a prefix, field:word for one field (title, body, tag, alias, category)"`
	Limit *int   `json:"limit,omitempty" jsonschema:"at most this many hits (default 20; 0 for all)"`
	listArgs
}

type proposalsArgs struct {
	Handle string `json:"handle,omitempty" jsonschema:"one record's proposals; default every record's"`
	State  string `json:"state,omitempty" jsonschema:"only proposals in this state"`
}

type logArgs struct {
	Handle string `json:"handle,omitempty" jsonschema:"one record's history; default the whole store's"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many commits, newest first"`
	Since  string `json:"since_commit,omitempty" jsonschema:"only commits this revision cannot reach: pass the tip you last saw to get what changed since"`
}

type freshArgs struct {
	Handles []string `json:"handles,omitempty" jsonschema:"records to judge; default every record that is not retired"`
	Record  bool     `json:"record,omitempty" jsonschema:"write changed verdicts back in one verify commit"`
	writeArgs
}

type verifyArgs struct {
	Range  string `json:"range,omitempty" jsonschema:"a revision or range (origin/records..records); default the whole records branch"`
	Strict bool   `json:"strict,omitempty" jsonschema:"treat dangling links as violations"`
}

type diffArgs struct {
	From   string `json:"from" jsonschema:"the older revision (a branch, tag or commit)"`
	To     string `json:"to" jsonschema:"the newer revision"`
	Verify bool   `json:"verify,omitempty" jsonschema:"also verify the commits 'to' has and 'from' lacks"`
}

type noArgs struct{}

// vocabulary is the kernel's closed vocabularies, as schema enums.
func vocabulary() map[string][]any {
	return map[string][]any{
		"kind":      anys(kernel.Kinds),
		"role":      anys(kernel.Roles),
		"authority": anys(kernel.Authorities),
		"status":    anys(kernel.Statuses),
		"link.kind": anys(kernel.KnownLinkKinds),
		"type":      anys(kernel.TypeNames()),
	}
}

func anys[T ~string](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// schemaFor infers In's schema and puts the kernel's vocabulary on it: an
// enum for each closed one, the kernel's syntax for categories, and for a
// type the known names or any namespaced ns.name.
func schemaFor[In any](enums map[string][]any) *jsonschema.Schema {
	sch, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // a programming error in the argument types
	}
	for name, p := range sch.Properties {
		switch {
		case name == "type" && enums["type"] != nil:
			p.AnyOf = []*jsonschema.Schema{{Enum: enums["type"]}, {AllOf: []*jsonschema.Schema{{Pattern: kernel.TypePattern()}, {Pattern: `\.`}}}}
		case name == "category":
			p.Pattern = kernel.CategoryPattern()
		case name == "links" && p.Items != nil && p.Items.Properties["kind"] != nil:
			p.Items.Properties["kind"].Enum = enums["link.kind"]
		case enums[name] != nil:
			p.Enum = enums[name]
		}
	}
	return sch
}

var no = false

// tool registers one tool: its input schema with the vocabulary, its
// handler under the service lock, and every error as a coded tool error.
func tool[In any](s *Server, t *mcp.Tool, enums map[string][]any, fn func(req *mcp.CallToolRequest, in In) (any, error)) {
	t.InputSchema = schemaFor[In](enums)
	mcp.AddTool(s.mcp, t, func(_ context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		s.mu.Lock()
		// The audit line of a write names this front, the tool and the agent.
		s.svc.SetCall(service.Call{Front: "mcp", Op: t.Name, Agent: s.agent(req), Input: in})
		out, err := fn(req, in)
		s.mu.Unlock()
		if err != nil {
			return toolError(err), nil, nil
		}
		return nil, out, nil
	})
}

func writeTool(name, title, desc string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: desc,
		Annotations: &mcp.ToolAnnotations{Title: title, DestructiveHint: &no, OpenWorldHint: &no}}
}

func readTool(name, title, desc string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: desc,
		Annotations: &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: &no}}
}

// agent is who performs an op: the server's --agent, else the client's name.
func (s *Server) agent(req *mcp.CallToolRequest) string {
	if s.opts.Agent != "" {
		return s.opts.Agent
	}
	if ci := req.ClientInfo(); ci != nil {
		return ci.Name
	}
	return ""
}

func (s *Server) addTools() {
	v := vocabulary()
	svc := s.svc
	tool(s, writeTool("create", "Create a record",
		"Create a record as one signed commit. Required: type, title, category, body. Returns {id, commit}."), v,
		func(req *mcp.CallToolRequest, in createArgs) (any, error) {
			ci := kernel.CreateInput{ID: in.ID, Type: in.Type, Title: in.Title, Category: in.Category, Body: in.Body,
				Tags: in.Tags, Aliases: in.Aliases, Links: kernelLinks(in.Links),
				Kind: kernel.Kind(in.Kind), Role: kernel.Role(in.Role), Authority: kernel.Authority(in.Authority),
				From: in.From, To: in.To, Relation: in.Relation, CommitNote: in.Note}
			ci.Provenance.Agent, ci.Provenance.Note, ci.Provenance.SessionID, ci.Provenance.SourceIDs = s.agent(req), in.Note, in.Session, in.SourceIDs
			if in.ExpiresAt != "" {
				var err error
				if ci.ExpiresAt, err = kernel.ParseExpiryInput(in.ExpiresAt); err != nil {
					return nil, err
				}
			}
			if in.TTL != nil {
				ci.TTLSeconds = kernel.TTL(*in.TTL)
			}
			if len(in.Scope) > 0 {
				ci.Scope = &kernel.Scope{Paths: in.Scope}
			}
			return svc.Create(ci, in.approval())
		})
	tool(s, writeTool("update", "Update a record",
		"Change a record's mutable fields (title, body, category, tags, aliases, expiry, scope); fields left out stay as they are. Returns {id, commit} or {id, unchanged}."), v,
		func(req *mcp.CallToolRequest, in updateArgs) (any, error) {
			f := kernel.UpdateFields{Title: in.Title, Body: in.Body, Category: in.Category, Tags: in.Tags, Aliases: in.Aliases}
			if in.ExpiresAt != nil {
				var err error
				if f.ExpiresAt, err = kernel.ParseExpiryInput(*in.ExpiresAt); err != nil {
					return nil, err
				}
			}
			if in.TTL != nil {
				f.TTLSeconds = kernel.TTL(*in.TTL)
			}
			if len(in.Scope) > 0 {
				f.Scope = &kernel.Scope{Paths: in.Scope}
			}
			return svc.Update(in.Handle, f, in.evidence(s.agent(req)), in.approval())
		})
	lt := writeTool("link", "Link records", "Add links from a record to others (idempotent).")
	lt.Annotations.IdempotentHint = true
	tool(s, lt, v, func(req *mcp.CallToolRequest, in linkArgs) (any, error) {
		return svc.Link(in.Handle, kernelLinks(in.Links), in.evidence(s.agent(req)), in.approval())
	})
	tool(s, writeTool("propose", "Propose a change", "Propose a change to a record; apply or reject decide it later. Required evidence: proposal."), v,
		func(req *mcp.CallToolRequest, in proposeArgs) (any, error) {
			ev := in.evidence(s.agent(req))
			ev.Proposal = in.Proposal
			return svc.Propose(service.ProposalInput{Concept: in.Concept, Proposer: in.Proposer, Evidence: ev}, in.approval())
		})
	tool(s, writeTool("apply", "Apply a proposal", "Apply a pending proposal: the record's body becomes new_body, by default the proposed text. Required evidence: rationale."), v,
		func(req *mcp.CallToolRequest, in applyArgs) (any, error) {
			ev := in.evidence(s.agent(req))
			ev.Rationale = in.Rationale
			if in.NewBody != nil {
				ev.NewBody = *in.NewBody
			}
			return svc.Apply(service.ProposalInput{Concept: in.Concept, Proposer: in.Proposer, Evidence: ev, UseProposedText: in.NewBody == nil}, in.approval())
		})
	tool(s, writeTool("reject", "Reject a proposal", "Reject a pending proposal; the record is unchanged. Required evidence: reason."), v,
		func(req *mcp.CallToolRequest, in rejectArgs) (any, error) {
			ev := in.evidence(s.agent(req))
			ev.Reason = in.Reason
			return svc.Reject(service.ProposalInput{Concept: in.Concept, Proposer: in.Proposer, Evidence: ev}, in.approval())
		})
	tool(s, writeTool("supersede", "Supersede records", "Mark records as superseded by a newer one; nothing is deleted. Required evidence: rationale."), v,
		func(req *mcp.CallToolRequest, in supersedeArgs) (any, error) {
			ev := in.evidence(s.agent(req))
			ev.Rationale = in.Rationale
			return svc.Supersede(in.New, in.Old, ev, in.approval())
		})
	tool(s, writeTool("retire", "Retire a record", "Retire a record, or mark it implemented. Required evidence: rationale; implemented_by for status implemented."),
		map[string][]any{"status": {string(kernel.StatusRetired), string(kernel.StatusImplemented)}},
		func(req *mcp.CallToolRequest, in retireArgs) (any, error) {
			ev := in.evidence(s.agent(req))
			ev.Rationale, ev.ImplementedByRef, ev.SupersededByRef = in.Rationale, in.ImplementedBy, in.SupersededBy
			status := kernel.Status(in.Status)
			if status == "" {
				status = kernel.StatusRetired
			}
			return svc.Retire(in.Handle, status, ev, in.approval())
		})

	tool(s, readTool("show", "Show a record", "A record with its fields, links (body wikilinks included) and mutation log."), v,
		func(_ *mcp.CallToolRequest, in handleArgs) (any, error) { return svc.Show(in.Handle) })
	tool(s, readTool("links", "Links of a record", "A record's forward links and backlinks: {forward:[{target,kind,label}], reverse:[{source,kind}]}."), v,
		func(_ *mcp.CallToolRequest, in handleArgs) (any, error) {
			l, err := svc.Links(in.Handle)
			return l, err
		})
	tool(s, readTool("list", "List records", "Records matching the filters (retired ones only when asked): {records:[…]}."), v,
		func(_ *mcp.CallToolRequest, in listArgs) (any, error) {
			rs, err := svc.List(in.query())
			return map[string]any{"records": rs}, err
		})
	tool(s, readTool("search", "Search records", "Full-text search over title, body, tags, aliases and category, ranked (a title hit above a body hit), with list's filters and a snippet of each hit: {hits:[{id,title,type,category,status,score,matched,snippet,highlights}]}."), v,
		func(_ *mcp.CallToolRequest, in searchArgs) (any, error) {
			limit := 20
			if in.Limit != nil {
				limit = *in.Limit
			}
			hits, _, err := svc.Search(service.SearchQuery{Query: in.Query, ListQuery: in.listArgs.query(), Limit: limit})
			return map[string]any{"hits": hits}, err
		})
	tool(s, readTool("proposals", "Proposals", "Proposals with their id (what apply and reject take as proposer), state, proposer, agent, text and time: {proposals:[…]}."),
		map[string][]any{"state": anys(service.ProposalStates)},
		func(_ *mcp.CallToolRequest, in proposalsArgs) (any, error) {
			ps, _, err := svc.Proposals(in.Handle, kernel.ProposalState(in.State))
			return map[string]any{"proposals": ps}, err
		})
	tool(s, readTool("log", "History", "The commits that changed a record (or the store), newest first: op, records, agent, signer, signature status, evidence: {entries:[…]}."), v,
		func(_ *mcp.CallToolRequest, in logArgs) (any, error) {
			es, err := svc.Log(service.LogQuery{Handle: in.Handle, Limit: in.Limit, Since: in.Since})
			return map[string]any{"entries": es}, err
		})
	tool(s, readTool("blame", "Blame a record", "Which commit last set each field of a record."), v,
		func(_ *mcp.CallToolRequest, in handleArgs) (any, error) {
			b, _, err := svc.Blame(in.Handle)
			return b, err
		})
	tool(s, &mcp.Tool{Name: "fresh", Description: "Freshness of records against the working tree now: current, stale, superseded, unknown or unavailable, with the reason: {verdicts:[…]}. With record, changed verdicts are written back in one commit.",
		Annotations: &mcp.ToolAnnotations{Title: "Freshness", DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no}}, v,
		func(req *mcp.CallToolRequest, in freshArgs) (any, error) {
			res, err := svc.Fresh(service.FreshQuery{Handles: in.Handles, Record: in.Record, Evidence: in.evidence(s.agent(req)), Approval: in.approval()})
			if err != nil {
				return nil, err
			}
			out := map[string]any{"verdicts": res.Verdicts}
			if res.Written != nil {
				out["written"] = res.Written
			}
			return out, nil
		})
	tool(s, readTool("verify", "Verify commits", "Judge commits: signature by an allowed signer, evidence, invariants, policy. ok is false when there are violations."), v,
		func(_ *mcp.CallToolRequest, in verifyArgs) (any, error) {
			return svc.Verify(in.Range, service.VerifyOptions{Strict: in.Strict})
		})
	tool(s, readTool("diff", "Diff two revisions", "What changed between two revisions of the records branch, record by record."), v,
		func(_ *mcp.CallToolRequest, in diffArgs) (any, error) {
			return svc.Diff([]string{in.From, in.To}, in.Verify)
		})
	tool(s, readTool("capabilities", "Capabilities", "Which Agent Kit capabilities this store offers here, and why not when it cannot (state, reason, recovery)."), v,
		func(_ *mcp.CallToolRequest, _ noArgs) (any, error) {
			return service.ResolveCapabilities(func() (*service.Service, error) { return svc, nil }, false, svc.WorkDir), nil
		})
}
