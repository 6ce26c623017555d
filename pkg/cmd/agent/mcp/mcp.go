// Package mcp is `git records mcp`: the store served to an agent over the
// Model Context Protocol on stdio. This package is the command as help,
// completion and the man pages show it; the server itself runs in
// git-records-server (package server), which git-records execs, so that
// the MCP SDK is not linked into every other command.
package mcp

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// Run serves opts. git-records-server sets it (package server); where it
// is nil, as in git-records, the command execs git-records-server on this
// process's arguments.
var Run func(*MCPOptions) error

// MCPOptions are mcp's inputs.
type MCPOptions struct {
	IO      *cmdutil.IOStreams
	Service func() (*service.Service, error)

	Agent string        // --agent
	Poll  time.Duration // --poll
}

// NewCmdMCP is the mcp command; runF (nil: Run, else exec
// git-records-server) runs it.
func NewCmdMCP(f *cmdutil.Factory, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: f.IOStreams, Service: f.Service}
	c := &cobra.Command{
		Use:   "mcp [--agent A] [--poll D]",
		Short: "Serve the store to an agent over the Model Context Protocol (stdio)",
		Long: `mcp serves this store over the Model Context Protocol on stdin and stdout,
for an MCP host (an agent runtime, an editor) to start as a subprocess: a tool
for every op and query (create, update, link, propose, apply, reject,
supersede, retire, show, links, list, search, log, blame, fresh, verify,
diff, capabilities), records as resources (records://<id>, the Markdown file as it
is on the branch), and change notifications for subscribed records and the
record list whenever the branch moves, whoever moved it.

Writes are signed commits under the signer and policy the CLI would use; the
agent recorded is --agent (default $GIT_RECORDS_AGENT), else the name the
client gives in its clientInfo. A refused op is a tool error carrying the
code, the rule and what to do next. An op the policy marks as needing
approval takes an approver's token (git records approve); self-approval is
not offered to agents.`,
		Example: `  claude mcp add records -- git records mcp --agent claude
  git records --store ~/notes mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case runF != nil:
				return runF(opts)
			case Run != nil:
				return Run(opts)
			}
			return cmdutil.ExecServer(os.Args[1:])
		},
	}
	cmdutil.AgentFlag(c, &opts.Agent)
	c.Flags().DurationVar(&opts.Poll, "poll", service.DefaultPoll, "how often to read the records branch for commits by other processes when no file system notification says so")
	return c
}
