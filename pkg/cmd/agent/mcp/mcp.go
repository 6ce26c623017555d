// Package mcp is `git records mcp`: the store served to an agent over the
// Model Context Protocol on stdio.
package mcp

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/mcpserver"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// MCPOptions are mcp's inputs.
type MCPOptions struct {
	IO        *cmdutil.IOStreams
	Service   func() (*service.Service, error)
	Transport func() sdk.Transport // stdio

	Server mcpserver.Options // --agent, --poll
}

// NewCmdMCP is the mcp command; runF (nil: mcpRun) runs it.
func NewCmdMCP(f *cmdutil.Factory, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: f.IOStreams, Service: f.Service, Transport: func() sdk.Transport { return &sdk.StdioTransport{} }}
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
			if runF != nil {
				return runF(opts)
			}
			return mcpRun(opts)
		},
	}
	cmdutil.AgentFlag(c, &opts.Server.Agent)
	c.Flags().DurationVar(&opts.Server.Poll, "poll", gitstore.DefaultFollowPoll, "how often to read the records branch for commits by other processes when no file system notification says so")
	return c
}

func mcpRun(opts *MCPOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	opts.Server.Version = cmdutil.Version()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = mcpserver.New(svc, opts.Server).Run(ctx, opts.Transport())
	// Close waits for an index merge the server started off the write path
	// and removes its file when nothing installed it: a server that exits
	// mid-merge must not leave a temporary file the size of the index.
	closeErr := svc.Store.Close()
	if err != nil && ctx.Err() == nil {
		return kernel.Wrap(kernel.CodeInternal, err, "mcp")
	}
	if closeErr != nil {
		return kernel.Wrap(kernel.CodeInternal, closeErr, "mcp: close the store")
	}
	return nil
}
