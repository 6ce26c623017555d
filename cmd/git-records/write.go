package main

import (
	"encoding/json"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

func (a *app) createCommand() *cobra.Command {
	var in kernel.CreateInput
	var body, bodyFile, expires, ttl string
	var links, scope []string
	c := &cobra.Command{
		Use:   "create --type T --title X --category C --agent A [--body TEXT | --body-file F | -]",
		Short: "Create a record (prints its id)",
		Example: `  git records create --type concept --title "Token refresh" --category auth.tokens \
      --agent alice --body "Refresh tokens rotate on use. See [[rfc-6749]]." --alias auth/token-refresh`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := len(args) == 1 && args[0] == "-"
			if len(args) == 1 && !dash {
				return kernel.Errorf(kernel.CodeUsage, "unexpected argument %q: the body goes in --body, --body-file or - (stdin)", args[0])
			}
			b, err := a.readBody(body, bodyFile, dash, cmd.Flags().Changed("body"))
			if err != nil {
				return err
			}
			if b != nil {
				in.Body = *b
			}
			in.Links = parseLinkFlags(links)
			a.noteUnknownLinkKinds(in.Links)
			if expires != "" {
				in.ExpiresAt, _ = json.Marshal(expires)
			}
			if ttl != "" {
				n, err := strconv.ParseFloat(ttl, 64)
				if err != nil {
					return kernel.Errorf(kernel.CodeMissingEvidence, "--ttl-seconds must be a number, got %q", ttl)
				}
				in.TTLSeconds, _ = json.Marshal(n)
			}
			in.CommitNote = in.Provenance.Note
			if len(scope) > 0 {
				in.Scope = &kernel.Scope{Paths: scope}
			}
			return a.runOp(func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
				return svc.Create(in, approval)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&in.Type, "type", "", "record type: raw, compiled, concept, snapshot, person, decision, relation, or ns.name")
	f.StringVar(&in.Title, "title", "", "title")
	f.StringVar(&in.Category, "category", "", "dot-separated category, e.g. engineering.api")
	f.StringVar(&in.ID, "id", "", "your own id (a lowercase slug); default: 26 random base32 characters")
	f.StringVar(&body, "body", "", "body text (Markdown; [[id]] links to another record)")
	f.StringVar(&bodyFile, "body-file", "", "read the body from `FILE` (- for stdin)")
	f.StringArrayVar(&in.Tags, "tag", nil, "tag (repeatable)")
	f.StringArrayVar(&in.Aliases, "alias", nil, "slug alias, e.g. auth/token-refresh (repeatable)")
	f.StringArrayVar(&links, "link", nil, "link as `KIND:TARGET` (repeatable; TARGET alone means related)")
	f.StringVar(&in.Provenance.Note, "note", "", "provenance note; also the commit body")
	f.StringVar(&in.Provenance.SessionID, "session", "", "session id for provenance")
	f.StringArrayVar(&in.Provenance.SourceIDs, "source-id", nil, "id of a record this one was derived from (repeatable)")
	f.StringVar(&expires, "expires-at", "", "ISO-8601 instant after which the record is stale")
	f.StringVar(&ttl, "ttl-seconds", "", "seconds after creation when the record goes stale")
	f.StringVar((*string)(&in.Kind), "kind", "", "axis override: entity, relation, event, snapshot")
	f.StringVar((*string)(&in.Role), "role", "", "axis override: fact, claim, decision")
	f.StringVar((*string)(&in.Authority), "authority", "", "axis override: external, local, computed")
	f.StringVar(&in.From, "from", "", "relation records: source record")
	f.StringVar(&in.To, "to", "", "relation records: target record")
	f.StringVar(&in.Relation, "relation", "", "relation records: relation type (depends_on, implements, …)")
	f.StringArrayVar(&scope, "scope", nil, "code `PATH` (file, directory or glob) the record speaks about; repeatable")
	f.Var(newContractFlag(&in.Contract, true), "accepts", "implementation records: the context `NAMES` it accepts (comma-separated, repeatable)")
	f.Var(newContractFlag(&in.Contract, false), "produces", "implementation records: the artifacts `NAMES` it produces (comma-separated, repeatable)")
	agentFlag(c, &in.Provenance.Agent)
	a.approvalFlags(c)
	return c
}

func (a *app) updateCommand() *cobra.Command {
	var f kernel.UpdateFields
	var ev kernel.Evidence
	var title, category, body, bodyFile, expires, ttl string
	var tags, scope []string
	c := &cobra.Command{
		Use:   "update <handle> --agent A [--title X] [--body TEXT | --body-file F] [--category C] [--tag t]… [--alias a]…",
		Short: "Change a record's mutable fields (one signed commit)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			if fl.Changed("title") {
				f.Title = &title
			}
			if fl.Changed("category") {
				f.Category = &category
			}
			if fl.Changed("tag") {
				f.Tags = &tags
			}
			b, err := a.readBody(body, bodyFile, false, fl.Changed("body"))
			if err != nil {
				return err
			}
			f.Body = b
			if len(scope) > 0 {
				f.Scope = &kernel.Scope{Paths: scope}
			}
			if fl.Changed("expires-at") {
				f.ExpiresAt, _ = json.Marshal(expires)
			}
			if fl.Changed("ttl-seconds") {
				if ttl == "" {
					f.TTLSeconds = json.RawMessage(`null`)
				} else if n, err := strconv.ParseFloat(ttl, 64); err == nil {
					f.TTLSeconds, _ = json.Marshal(n)
				} else {
					return kernel.Errorf(kernel.CodeMissingEvidence, "--ttl-seconds must be a number, got %q", ttl)
				}
			}
			return a.runOp(func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
				return svc.Update(args[0], f, ev, approval)
			})
		},
	}
	fl := c.Flags()
	fl.StringVar(&title, "title", "", "new title")
	fl.StringVar(&category, "category", "", "new category")
	fl.StringVar(&body, "body", "", "new body")
	fl.StringVar(&bodyFile, "body-file", "", "read the new body from `FILE` (- for stdin)")
	fl.StringArrayVar(&tags, "tag", nil, "replace the tags (repeatable)")
	fl.StringArrayVar(&f.Aliases, "alias", nil, "add a slug alias (repeatable; aliases are never removed)")
	fl.StringVar(&expires, "expires-at", "", "new expiry (empty clears it)")
	fl.StringVar(&ttl, "ttl-seconds", "", "new ttl in seconds (empty clears it)")
	fl.StringArrayVar(&scope, "scope", nil, "re-capture the scope over `PATH` (repeatable)")
	a.evidenceFlags(c, &ev)
	return c
}

func (a *app) evidenceFlags(c *cobra.Command, ev *kernel.Evidence) {
	agentFlag(c, &ev.Agent)
	a.approvalFlags(c)
	c.Flags().StringVar(&ev.Note, "note", "", "why: recorded in the mutation log and the commit body")
	c.Flags().StringVar(&ev.SessionID, "session", "", "session id")
}

// runOp runs an op and prints the record's id.
func (a *app) runOp(op func(*service.Service, kernel.Approval) (*service.WriteResult, error)) error {
	res, err := a.write(op)
	if err != nil {
		return err
	}
	a.printWritten(res)
	return nil
}

// noteUnknownLinkKinds says on stderr when a link kind has no meaning the
// store knows: the contract stores any kind as given (§2.2), so a typo
// would otherwise pass unnoticed.
func (a *app) noteUnknownLinkKinds(links []kernel.Link) { cmdutil.NoteUnknownLinkKinds(a.err, links) }

// proposerHelp says what --proposer takes: propose names the proposer
// record; apply and reject also take a proposal id (git records proposals).
const proposerHelp = "record handle (id, alias or 8+ character prefix) of the proposer; apply and reject also take a proposal id from git records proposals, and otherwise act on the proposer's latest pending proposal"

// proposalCommand builds propose, apply and reject: they share their shape.
func (a *app) proposalCommand(use, short string, extra func(*cobra.Command, *kernel.Evidence, *string, *string),
	op func(*service.Service, service.ProposalInput, kernel.Approval) (*service.WriteResult, error)) *cobra.Command {
	var ev kernel.Evidence
	var proposer, body, bodyFile string
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Lookup("body") != nil {
				b, err := a.readBody(body, bodyFile, false, cmd.Flags().Changed("body"))
				if err != nil {
					return err
				}
				if b != nil {
					ev.NewBody = *b
				}
			}
			// apply without --body applies the proposed text.
			takeProposed := cmd.Flags().Lookup("body") != nil && ev.NewBody == "" && bodyFile == "" && !cmd.Flags().Changed("body")
			in := service.ProposalInput{Concept: args[0], Proposer: proposer, Evidence: ev, UseProposedText: takeProposed}
			return a.runOp(func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
				return op(svc, in, approval)
			})
		},
	}
	c.Flags().StringVar(&proposer, "proposer", "", proposerHelp)
	extra(c, &ev, &body, &bodyFile)
	a.evidenceFlags(c, &ev)
	return c
}

func (a *app) proposeCommand() *cobra.Command {
	return a.proposalCommand("propose <concept> --proposer H --proposal TEXT --agent A", "Propose a change to a concept",
		func(c *cobra.Command, ev *kernel.Evidence, _, _ *string) {
			c.Flags().StringVar(&ev.Proposal, "proposal", "", "the proposed change")
		}, (*service.Service).Propose)
}

func (a *app) applyCommand() *cobra.Command {
	return a.proposalCommand("apply <concept> --proposer H|PROPOSAL-ID --rationale R [--body TEXT | --body-file F] --agent A", "Apply a pending proposal: replace the concept's body (by default with the proposed text)",
		func(c *cobra.Command, ev *kernel.Evidence, body, bodyFile *string) {
			c.Flags().StringVar(&ev.Rationale, "rationale", "", "why the proposal is accepted")
			c.Flags().StringVar(body, "body", "", "the concept's new body (default: the proposed text)")
			c.Flags().StringVar(bodyFile, "body-file", "", "read the new body from `FILE` (- for stdin)")
		}, (*service.Service).Apply)
}

func (a *app) rejectCommand() *cobra.Command {
	return a.proposalCommand("reject <concept> --proposer H|PROPOSAL-ID --reason R --agent A", "Reject a pending proposal (the concept is unchanged)",
		func(c *cobra.Command, ev *kernel.Evidence, _, _ *string) {
			c.Flags().StringVar(&ev.Reason, "reason", "", "why the proposal is declined")
		}, (*service.Service).Reject)
}

func (a *app) supersedeCommand() *cobra.Command {
	var ev kernel.Evidence
	c := &cobra.Command{
		Use:   "supersede <new> <old>... --rationale R --agent A",
		Short: "Mark records as superseded by a newer one (nothing is deleted)",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runOp(func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
				return svc.Supersede(args[0], args[1:], ev, approval)
			})
		},
	}
	c.Flags().StringVar(&ev.Rationale, "rationale", "", "why the new record supersedes the old ones")
	a.evidenceFlags(c, &ev)
	return c
}

func (a *app) retireCommand() *cobra.Command {
	var ev kernel.Evidence
	var status string
	c := &cobra.Command{
		Use:   "retire <handle> --rationale R [--status implemented --implemented-by REF] --agent A",
		Short: "Retire a record, or mark it implemented",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runOp(func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
				return svc.Retire(args[0], kernel.Status(status), ev, approval)
			})
		},
	}
	c.Flags().StringVar(&status, "status", string(kernel.StatusRetired), "target status: retired or implemented")
	c.Flags().StringVar(&ev.Rationale, "rationale", "", "why")
	c.Flags().StringVar(&ev.ImplementedByRef, "implemented-by", "", "commit, PR or issue that implements it (for --status implemented)")
	c.Flags().StringVar(&ev.SupersededByRef, "superseded-by", "", "what replaces it")
	a.evidenceFlags(c, &ev)
	return c
}
