// Package create is `git records create`: a new record from flags, or
// (--edit) from its type's template in the user's editor.
package create

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// CreateOptions are create's inputs.
type CreateOptions struct {
	IO           *cmdutil.IOStreams
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error
	Printer      func() cmdutil.Printer
	Editor       *cmdutil.Editor

	Input    kernel.CreateInput
	Edit     bool // --edit: start from the type's template in the editor
	Approval cmdutil.ApprovalFlags
}

// NewCmdCreate is the create command; runF (nil: createRun) runs it.
func NewCmdCreate(f *cmdutil.Factory, runF func(*CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{IO: f.IOStreams, Service: f.Service, PrintWritten: f.PrintWritten, Printer: f.Printer, Editor: f.Editor()}
	in := &opts.Input
	var body, bodyFile, expires, ttl string
	var links, scope []string
	c := &cobra.Command{
		Use:   "create --type T --title X --category C --agent A [--body TEXT | --body-file F | - | --edit]",
		Short: "Create a record (prints its id)",
		Long: `create writes a new record as one signed commit and prints its id. Its
fields come from the flags, or with --edit from the type's template opened
in your editor (chosen as git chooses it): the required fields, the
optional ones, and what the body should say, with any flags given already
filled in. A file the rules refuse reopens with the reason on top; an
emptied file, or the template saved unchanged, writes nothing.`,
		Example: `  git records create --type concept --title "Token refresh" --category auth.tokens \
      --agent alice --body "Refresh tokens rotate on use. See [[rfc-6749]]." --alias auth/token-refresh
  git records create --type decision --edit --agent alice
  echo "Measured p99 at 40 ms." | git records create --type raw --title "p99" --category perf --agent ci -`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := len(args) == 1 && args[0] == "-"
			if len(args) == 1 && !dash {
				return kernel.Errorf(kernel.CodeUsage, "unexpected argument %q: the body goes in --body, --body-file or - (stdin)", args[0])
			}
			b, err := cmdutil.ReadBody(opts.IO.In, body, bodyFile, dash, cmd.Flags().Changed("body"))
			if err != nil {
				return err
			}
			if b != nil {
				in.Body = *b
			}
			in.Links = cmdutil.ParseLinkFlags(links)
			if expires != "" {
				if in.ExpiresAt, err = kernel.ParseExpiryInput(expires); err != nil {
					return err
				}
			}
			if ttl != "" {
				if in.TTLSeconds, err = kernel.ParseTTLInput(ttl); err != nil {
					return err
				}
			}
			in.CommitNote = in.Provenance.Note
			if len(scope) > 0 {
				in.Scope = &kernel.Scope{Paths: scope}
			}
			if runF != nil {
				return runF(opts)
			}
			return createRun(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&in.Type, "type", "", "record type: raw, compiled, concept, snapshot, person, decision, relation, or ns.name")
	fl.StringVar(&in.Title, "title", "", "title")
	fl.StringVar(&in.Category, "category", "", "dot-separated category, e.g. engineering.api")
	fl.StringVar(&in.ID, "id", "", "your own id (a lowercase slug); default: 26 random base32 characters")
	fl.StringVar(&body, "body", "", "body text (Markdown; [[id]] links to another record)")
	fl.StringVar(&bodyFile, "body-file", "", "read the body from `FILE` (- for stdin)")
	fl.BoolVar(&opts.Edit, "edit", false, "write the record in your editor, starting from the type's template")
	fl.StringArrayVar(&in.Tags, "tag", nil, "tag (repeatable)")
	fl.StringArrayVar(&in.Aliases, "alias", nil, "slug alias, e.g. auth/token-refresh (repeatable)")
	fl.StringArrayVar(&links, "link", nil, "link as `KIND:TARGET` (repeatable; TARGET alone means related)")
	fl.StringVar(&in.Provenance.Note, "note", "", "provenance note; also the commit body")
	fl.StringVar(&in.Provenance.SessionID, "session", "", "session id for provenance")
	fl.StringArrayVar(&in.Provenance.SourceIDs, "source-id", nil, "id of a record this one was derived from (repeatable)")
	fl.StringVar(&expires, "expires-at", "", "ISO-8601 instant after which the record is stale")
	fl.StringVar(&ttl, "ttl-seconds", "", "seconds after creation when the record goes stale")
	fl.StringVar((*string)(&in.Kind), "kind", "", "axis override: entity, relation, event, snapshot")
	fl.StringVar((*string)(&in.Role), "role", "", "axis override: fact, claim, decision")
	fl.StringVar((*string)(&in.Authority), "authority", "", "axis override: external, local, computed")
	fl.StringVar(&in.From, "from", "", "relation records: source record")
	fl.StringVar(&in.To, "to", "", "relation records: target record")
	fl.StringVar(&in.Relation, "relation", "", "relation records: relation type (depends_on, implements, …)")
	fl.StringArrayVar(&scope, "scope", nil, "code `PATH` (file, directory or glob) the record speaks about; repeatable")
	fl.Var(&contractFlag{c: &in.Contract, accepts: true}, "accepts", "implementation records: the context `NAMES` it accepts (comma-separated, repeatable)")
	fl.Var(&contractFlag{c: &in.Contract}, "produces", "implementation records: the artifacts `NAMES` it produces (comma-separated, repeatable)")
	cmdutil.AgentFlag(c, &in.Provenance.Agent)
	opts.Approval.Register(c)
	return c
}

func createRun(opts *CreateOptions) error {
	if opts.Edit {
		return createInEditor(opts)
	}
	return writeCreate(opts, opts.Input)
}

// writeCreate writes in as one create op and prints the id.
func writeCreate(opts *CreateOptions, in kernel.CreateInput) error {
	cmdutil.NoteUnknownLinkKinds(opts.IO.ErrOut, in.Links)
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Create(in, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}

// createInEditor opens the type's template, filled with the flags given,
// and creates the record the saved file says, reopening it while the rules
// refuse it.
func createInEditor(opts *CreateOptions) error {
	in := opts.Input
	if strings.TrimSpace(in.Provenance.Agent) == "" {
		return kernel.Errorf(kernel.CodeMissingEvidence, "--agent (or GIT_RECORDS_AGENT) is required: who creates the record").WithExtra("flag", "--agent")
	}
	if in.Type == "" {
		return kernel.Errorf(kernel.CodeUsage, "create --edit starts from a type's template: give --type (%s, or ns.name)", strings.Join(kernel.TypeNames(), ", ")).WithExtra("flag", "--type")
	}
	t, err := kernel.TemplateFor(in.Type)
	if err != nil {
		return err
	}
	file, err := service.EncodeTemplate(t, in)
	if err != nil {
		return err
	}
	session := record.EditSession{Editor: opts.Editor, ErrOut: opts.IO.ErrOut, Name: "new-" + t.Type + ".md", Header: templateHeader(t)}
	err = session.Run(file, func(edited []byte) error {
		filled, err := service.DecodeTemplate(edited, in)
		if err != nil {
			return err
		}
		return writeCreate(opts, filled)
	})
	var abandoned *record.Abandoned
	if !errors.As(err, &abandoned) {
		return err
	}
	// A template saved as it was opened is giving up, as git commit's
	// untouched message is.
	reason := abandoned.Reason
	if abandoned.Unchanged {
		reason = "the template was saved unchanged"
	}
	p := opts.Printer()
	if p.JSONOn {
		err = p.JSON(map[string]any{"abandoned": true, "reason": reason})
	} else {
		_, err = fmt.Fprintf(p.Out, "no %s record created: %s; nothing written\n", t.Type, reason)
	}
	if err != nil {
		return err
	}
	return cmdutil.SilentError
}

// templateHeader is the comment block above the template: what the type
// is, what its body should say, how to give up.
func templateHeader(t *kernel.RecordTemplate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# git records create: a new %s record", t.Type)
	if t.Doc != "" {
		fmt.Fprintf(&b, ": %s", t.Doc)
	}
	b.WriteString(".\n# Fill in the frontmatter, then write the body below the second '---':\n")
	for _, line := range wrap(t.BodyHint, 74) {
		b.WriteString("#   " + line + "\n")
	}
	b.WriteString("# Lines starting with '#' above the first '---' are ignored. Save an empty\n# file, or this one unchanged, to give up: nothing is written.\n")
	return b.String()
}

// wrap breaks text into lines of at most width characters at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// contractFlag fills an implementation's extension_contract from
// --accepts and --produces (comma-separated, repeatable).
type contractFlag struct {
	c       **kernel.ExtensionContract
	accepts bool
}

func (f *contractFlag) String() string { return "" }
func (f *contractFlag) Type() string   { return "names" }

func (f *contractFlag) Set(v string) error {
	if *f.c == nil {
		*f.c = &kernel.ExtensionContract{}
	}
	for _, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if f.accepts {
			(*f.c).Accepts = append((*f.c).Accepts, name)
		} else {
			(*f.c).Produces = append((*f.c).Produces, name)
		}
	}
	return nil
}
