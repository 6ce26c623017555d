package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/mcpserver"
)

func (a *app) mcpCommand() *cobra.Command {
	var opts mcpserver.Options
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			opts.Version = version()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := mcpserver.New(svc, opts).Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
				return kernel.Wrap(kernel.CodeInternal, err, "mcp")
			}
			return nil
		},
	}
	agentFlag(c, &opts.Agent)
	c.Flags().DurationVar(&opts.Poll, "poll", gitstore.DefaultFollowPoll, "how often to read the records branch for commits by other processes when no file system notification says so")
	return c
}
