// Package contract is `git records contract <op>`: one Knowledge Kit
// contract call, a JSON request on stdin and a JSON answer on stdout
// (reference/contract-protocol.md).
package contract

import (
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// Ops are the ops of the contract protocol.
var Ops = []string{"create", "update", "link", "propose", "apply", "reject", "supersede", "retire",
	"get", "get-links", "list-by-category", "list-by-type", "reindex", "capabilities"}

// request is the union of every op's named arguments.
type request struct {
	Input         *kernel.CreateInput  `json:"input"`
	ID            string               `json:"id"`
	Fields        *kernel.UpdateFields `json:"fields"`
	Evidence      kernel.Evidence      `json:"evidence"`
	SourceID      string               `json:"source_id"`
	Links         []kernel.Link        `json:"links"`
	ConceptID     string               `json:"concept_id"`
	ProposerID    string               `json:"proposer_id"`
	NewID         string               `json:"new_id"`
	SupersededIDs []string             `json:"superseded_ids"`
	TargetStatus  string               `json:"target_status"`
	Category      string               `json:"category"`
	Type          string               `json:"type"`
	Options       struct {
		Prefix         bool            `json:"prefix"`
		IncludeRetired bool            `json:"includeRetired"`
		Stale          bool            `json:"stale"`
		Now            json.RawMessage `json:"now"` // ISO-8601 string or epoch milliseconds
		// Approve and Approval are the CLI's --approve and --approval: an
		// op the policy marks for approval is approved by the caller's own
		// signature, or carries an approver's token from `git records approve`.
		Approve  bool   `json:"approve"`
		Approval string `json:"approval"`
	} `json:"options"`
}

// ContractOptions are contract's inputs.
type ContractOptions struct {
	IO          *cmdutil.IOStreams
	Service     func() (*service.Service, error)
	ReadService func() (*service.Service, error)
	SetCall     func(service.Call)
	Printer     func() cmdutil.Printer

	Op string
}

// NewCmdContract is the contract command; runF (nil: contractRun) runs it.
func NewCmdContract(f *cmdutil.Factory, runF func(*ContractOptions) error) *cobra.Command {
	opts := &ContractOptions{IO: f.IOStreams, Service: f.Service, ReadService: f.ReadService, SetCall: f.SetCall, Printer: f.Printer}
	return &cobra.Command{
		Use:   "contract <op>",
		Short: "Serve one Knowledge Kit contract call: a JSON request on stdin, a JSON answer on stdout",
		Long:  "Ops: " + joinOps() + ". See reference/contract-protocol.md.",
		Example: `  echo '{"id":"auth/token-refresh"}' | git records contract get
  echo '{"category":"auth","options":{"prefix":true}}' | git records contract list-by-category`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: Ops,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.JSON = true // errors too must be the JSON envelope
			opts.Op = args[0]
			if runF != nil {
				return runF(opts)
			}
			return contractRun(opts)
		},
	}
}

func contractRun(opts *ContractOptions) error {
	var req request
	data, err := io.ReadAll(opts.IO.In)
	if err != nil {
		return kernel.Wrap(kernel.CodeUsage, err, "read request")
	}
	p := opts.Printer()
	// The raw request is checked before it is decoded: the JSON decoder
	// would turn each byte that is not UTF-8, and each lone surrogate
	// escape, into U+FFFD.
	if err := kernel.CheckJSONText("the request", string(data)); err != nil {
		return refuse(opts, p, err)
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &req); err != nil {
			var ke *kernel.Error
			if errors.As(err, &ke) { // a value the kernel's input types refuse as they read it
				return refuse(opts, p, ke)
			}
			return kernel.Errorf(kernel.CodeMissingEvidence, "malformed request: %v", err)
		}
	}
	opts.SetCall(service.Call{Front: "contract", Op: opts.Op, Input: data})
	result, err := serve(opts, opts.Op, &req)
	if err != nil {
		return refuse(opts, p, err)
	}
	return p.JSON(map[string]any{"result": result})
}

// refuse answers err as the contract's error envelope.
func refuse(opts *ContractOptions, p cmdutil.Printer, err error) error {
	var ke *kernel.Error
	if !errors.As(err, &ke) {
		ke = &kernel.Error{Code: kernel.CodeInternal, Message: err.Error()}
	}
	// Contract errors all exit 1 (protocol recommendation).
	p.Error(opts.IO.ErrOut, code(ke))
	return cmdutil.SilentError
}

// view is the records branch as a read sees it.
func view(opts *ContractOptions) (*service.View, error) {
	svc, err := opts.ReadService()
	if err != nil {
		return nil, err
	}
	return svc.View()
}

// code maps our finer input codes onto the contract's (§8.1: any
// missing or invalid input is MISSING_EVIDENCE), keeping ours as
// "store_code" so nothing is lost for clients that know it.
func code(e *kernel.Error) *kernel.Error {
	switch e.Code {
	case kernel.CodeInvalidRecord, kernel.CodeInvalidID, kernel.CodeIDConflict:
		c := *e
		c.Extra = map[string]any{"store_code": e.Code}
		for k, v := range e.Extra {
			c.Extra[k] = v
		}
		c.Code = kernel.CodeMissingEvidence
		return &c
	}
	return e
}

func joinOps() string {
	s := ""
	for i, op := range Ops {
		if i > 0 {
			s += ", "
		}
		s += op
	}
	return s
}

func serve(opts *ContractOptions, op string, req *request) (any, error) {
	approval := kernel.Approval{Approve: req.Options.Approve, Token: req.Options.Approval}
	switch op {
	case "capabilities":
		return map[string]any{"ops": Ops}, nil
	case "create":
		if req.Input == nil {
			return nil, kernel.Errorf(kernel.CodeMissingEvidence, "create needs {\"input\": {...}}")
		}
	}
	if writes[op] {
		svc, err := opts.Service()
		if err != nil {
			return nil, err
		}
		res, err := write(svc, op, req, approval)
		if err != nil {
			return nil, err
		}
		if op == "create" {
			return res.ID, nil
		}
		return nil, nil // the contract's writes answer nothing but create's id
	}
	switch op {
	case "get":
		v, err := view(opts)
		if err != nil {
			return nil, err
		}
		r, err := v.Get(req.ID)
		if err != nil || r == nil {
			return nil, err
		}
		return r, nil
	case "get-links":
		v, err := view(opts)
		if err != nil {
			return nil, err
		}
		l, err := v.Links(req.ID)
		if err != nil {
			return nil, err
		}
		return links(req.ID, l, v), nil
	case "list-by-category", "list-by-type":
		f := service.Filter{IncludeRetired: req.Options.IncludeRetired, StaleOnly: req.Options.Stale}
		if op == "list-by-type" {
			f.Type = req.Type
		} else {
			f.Category, f.CategoryPrefix = req.Category, req.Options.Prefix
		}
		now, err := now(req.Options.Now)
		if err != nil {
			return nil, err
		}
		f.Now = now
		svc, err := opts.ReadService()
		if err != nil {
			return nil, err
		}
		return svc.List(service.ListQuery{Filter: f})
	case "reindex":
		svc, err := opts.Service()
		if err != nil {
			return nil, err
		}
		return svc.Reindex()
	}
	return nil, kernel.Errorf(kernel.CodeUsage, "unknown contract op %q: one of %s", op, joinOps())
}

// writes are the contract's ops that write.
var writes = map[string]bool{"create": true, "update": true, "link": true, "propose": true, "apply": true, "reject": true, "supersede": true, "retire": true}

// write runs one of the contract's write ops.
func write(svc *service.Service, op string, req *request, approval kernel.Approval) (*service.WriteResult, error) {
	switch op {
	case "create":
		return svc.Create(*req.Input, approval)
	case "update":
		fields := kernel.UpdateFields{}
		if req.Fields != nil {
			fields = *req.Fields
		}
		return svc.Update(req.ID, fields, req.Evidence, approval)
	case "link":
		return svc.Link(req.SourceID, req.Links, req.Evidence, approval)
	case "propose":
		return svc.Propose(service.ProposalInput{Concept: req.ConceptID, Proposer: req.ProposerID, Evidence: req.Evidence}, approval)
	case "apply":
		return svc.Apply(service.ProposalInput{Concept: req.ConceptID, Proposer: req.ProposerID, Evidence: req.Evidence}, approval)
	case "reject":
		return svc.Reject(service.ProposalInput{Concept: req.ConceptID, Proposer: req.ProposerID, Evidence: req.Evidence}, approval)
	case "supersede":
		return svc.Supersede(req.NewID, req.SupersededIDs, req.Evidence, approval)
	}
	return svc.Retire(req.ID, kernel.Status(req.TargetStatus), req.Evidence, approval)
}

// now reads options.now: absent or null is the clock; a string is an
// ISO-8601 instant; a number is epoch milliseconds (a JavaScript Date's
// getTime(), which some clients send instead of its ISO string).
func now(raw json.RawMessage) (time.Time, error) {
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return time.Time{}, kernel.Errorf(kernel.CodeMissingEvidence, "options.now must be an ISO-8601 string or epoch milliseconds, got %s", raw)
		}
	}
	switch now := v.(type) {
	case nil:
		return time.Now(), nil
	case string:
		t, err := kernel.ParseTimestamp(now)
		if err != nil {
			return time.Time{}, kernel.Errorf(kernel.CodeMissingEvidence, "options.now: %v", err)
		}
		return t.Time, nil
	case float64:
		if now > 1e15 || now < -1e15 { // ±31,000 years
			return time.Time{}, kernel.Errorf(kernel.CodeMissingEvidence, "options.now: %v milliseconds is out of range", now)
		}
		return time.UnixMilli(int64(now)).UTC(), nil
	}
	return time.Time{}, kernel.Errorf(kernel.CodeMissingEvidence, "options.now must be an ISO-8601 string or epoch milliseconds, got %s", raw)
}

// links shapes links as the adapter expects: forward entries are
// Link objects, reverse entries name their source (and the target, itself).
func links(handle string, l service.Links, v kernel.View) map[string]any {
	forward := make([]map[string]any, 0, len(l.Forward))
	for _, e := range l.Forward {
		m := map[string]any{"target_id": e.Target, "kind": e.Kind}
		if e.Label != "" {
			m["label"] = e.Label
		}
		forward = append(forward, m)
	}
	self, _ := v.Resolve(handle)
	reverse := make([]map[string]any, 0, len(l.Reverse))
	for _, e := range l.Reverse {
		reverse = append(reverse, map[string]any{"source_id": e.Source, "target_id": self, "kind": e.Kind})
	}
	return map[string]any{"forward": forward, "reverse": reverse}
}
