package cmdutil

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// ApprovalFlags are the risk gate's approvals a write command takes.
type ApprovalFlags struct {
	Approve    bool   // --approve
	Token      string // --approval TOKEN
	File       string // --approval-file F
	ApprovedBy string // --approved-by, refused: a name is not an approval
}

// Register adds the approval flags to c.
func (a *ApprovalFlags) Register(c *cobra.Command) {
	c.Flags().BoolVar(&a.Approve, "approve", false, "approve an op the policy marks as needing approval yourself (your profile must allow it)")
	c.Flags().StringVar(&a.Token, "approval", "", "approval `TOKEN` printed by `git records approve`, run by the approver")
	c.Flags().StringVar(&a.File, "approval-file", "", "read the approval token from `FILE`")
	c.Flags().StringVar(&a.ApprovedBy, "approved-by", "", "")
	_ = c.Flags().MarkHidden("approved-by")
}

// Approval is the approval these flags bring for the store's policy gate.
func (a *ApprovalFlags) Approval() (kernel.Approval, error) {
	if a.ApprovedBy != "" {
		return kernel.Approval{}, kernel.Errorf(kernel.CodeUsage, "--approved-by is gone: an approval is the approver's signature, not a name; have %s run `git records approve …` (the refusal without it prints the command) and pass what it prints with --approval", a.ApprovedBy)
	}
	token := a.Token
	if a.File != "" {
		if token != "" {
			return kernel.Approval{}, kernel.Errorf(kernel.CodeUsage, "give the approval once: --approval or --approval-file")
		}
		data, err := os.ReadFile(a.File)
		if err != nil {
			return kernel.Approval{}, kernel.Wrap(kernel.CodeUsage, err, "read --approval-file")
		}
		token = strings.TrimSpace(string(data))
	}
	return kernel.Approval{Approve: a.Approve, Token: token}, nil
}

// AgentFlag adds --agent, defaulting to $GIT_RECORDS_AGENT.
func AgentFlag(c *cobra.Command, agent *string) {
	c.Flags().StringVar(agent, "agent", os.Getenv("GIT_RECORDS_AGENT"), "who or what performs the op (default $GIT_RECORDS_AGENT)")
}

// OneOf refuses a flag value outside allowed ("" is unset and allowed).
func OneOf(flag, value string, allowed []string) error { return service.OneOf(flag, value, allowed) }

// Names spells a closed vocabulary as strings.
func Names[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// ReadBody picks the body from --body (set), --body-file (- for stdin) or
// a "-" argument (dash); nil when none is given.
func ReadBody(in io.Reader, body, bodyFile string, dash, set bool) (*string, error) {
	count := 0
	for _, b := range []bool{set, bodyFile != "", dash} {
		if b {
			count++
		}
	}
	if count > 1 {
		return nil, kernel.Errorf(kernel.CodeUsage, "give the body once: --body, --body-file or -")
	}
	switch {
	case set:
		return &body, nil
	case bodyFile == "-" || dash:
		data, err := io.ReadAll(in)
		if err != nil {
			return nil, kernel.Wrap(kernel.CodeUsage, err, "read body from stdin")
		}
		s := string(data)
		if err := kernel.CheckUTF8("the body read from stdin", s); err != nil {
			return nil, err
		}
		return &s, nil
	case bodyFile != "":
		data, err := os.ReadFile(bodyFile)
		if err != nil {
			return nil, kernel.Wrap(kernel.CodeUsage, err, "read --body-file")
		}
		s := string(data)
		if err := kernel.CheckUTF8("--body-file", s); err != nil {
			return nil, err
		}
		return &s, nil
	}
	return nil, nil
}

// ParseLinkFlags turns KIND:TARGET (or a bare TARGET, kind related) into links.
func ParseLinkFlags(specs []string) []kernel.Link {
	var out []kernel.Link
	for _, s := range specs {
		kind, target, ok := strings.Cut(s, ":")
		if !ok {
			kind, target = kernel.LinkRelated, s
		}
		out = append(out, kernel.Link{TargetID: target, Kind: kind})
	}
	return out
}

// EvidenceFlags add what every op's evidence takes: --agent, the approval
// flags, --note and --session.
func EvidenceFlags(c *cobra.Command, ev *kernel.Evidence, approval *ApprovalFlags) {
	AgentFlag(c, &ev.Agent)
	approval.Register(c)
	c.Flags().StringVar(&ev.Note, "note", "", "why: recorded in the mutation log and the commit body")
	c.Flags().StringVar(&ev.SessionID, "session", "", "session id")
}

// NoteUnknownLinkKinds says on errOut when a link kind has no meaning the
// store knows: the contract stores any kind as given (§2.2), so a typo
// would otherwise pass unnoticed.
func NoteUnknownLinkKinds(errOut io.Writer, links []kernel.Link) {
	seen := map[string]bool{}
	for _, l := range links {
		if l.Kind == "" || kernel.IsKnownLinkKind(l.Kind) || seen[l.Kind] {
			continue
		}
		seen[l.Kind] = true
		fmt.Fprintf(errOut, "git-records: note: link kind %q is not one the store gives a meaning (%s); it is stored as given\n",
			l.Kind, strings.Join(kernel.KnownLinkKinds, ", "))
	}
}

// WriteService is what every write command's run function does first:
// open the service and read the approval its flags bring, in that order (a
// run outside a store says so before anything about its flags). approval
// nil brings none.
func WriteService(open func() (*service.Service, error), approval *ApprovalFlags) (*service.Service, kernel.Approval, error) {
	svc, err := open()
	if err != nil {
		return nil, kernel.Approval{}, err
	}
	if approval == nil {
		return svc, kernel.Approval{}, nil
	}
	gate, err := approval.Approval()
	if err != nil {
		return nil, kernel.Approval{}, err
	}
	return svc, gate, nil
}
