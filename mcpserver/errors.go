package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-records/git-records/kernel"
)

// argumentFor names, for each input field the kernel's errors speak of in
// the contract's terms, the tool argument that sets it.
var argumentFor = map[string]string{
	"type":                      "type",
	"title":                     "title",
	"body":                      "body",
	"category":                  "category",
	"expires_at":                "expires_at",
	"ttl_seconds":               "ttl_seconds",
	"evidence.proposal":         "proposal",
	"evidence.new_body":         "new_body",
	"evidence.rationale":        "rationale",
	"evidence.reason":           "reason",
	"evidence.implementedByRef": "implemented_by",
	"id":                        "id",
	"tags":                      "tags",
	"tag":                       "tags",
	"aliases":                   "aliases",
	"links":                     "links",
	"links.target_id":           "links",
	"links.kind":                "links",
	"links.label":               "links",
	"kind":                      "kind",
	"role":                      "role",
	"authority":                 "authority",
	"from":                      "from",
	"to":                        "to",
	"relation":                  "relation",
	"scope":                     "scope",
	"proposer_id":               "proposer",
	"target_status":             "status",
	"since_commit":              "since_commit",
	"limit":                     "limit",
	"state":                     "state",
	"provenance.session_id":     "session",
	"evidence.session_id":       "session",
	"provenance.note":           "note",
	"evidence.note":             "note",
	"parent-job":                "parent_job",
	"parent-dispatch":           "parent_dispatch",
	"parent-work-item":          "parent_work_item",
}

// toolError is a refused op as the client sees it: isError, the message as
// text, and {"error":{code, message, rule?, argument?, recovery, …}} as
// structured content, the CLI's JSON error envelope plus what to do next.
func toolError(err error) *mcp.CallToolResult {
	var ke *kernel.Error
	if !errors.As(err, &ke) {
		ke = &kernel.Error{Code: kernel.CodeInternal, Message: err.Error()}
	}
	body := maps.Clone(ke.Extra)
	if body == nil {
		body = map[string]any{}
	}
	body["code"], body["message"] = ke.Code, ke.Message
	field, _ := ke.Extra["field"].(string)
	if arg, ok := argumentFor[field]; ok {
		body["argument"] = arg
	}
	body["recovery"] = recovery(ke, field)
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(ke.Code) + ": " + ke.Message}},
		StructuredContent: map[string]any{"error": body},
	}
}

// recovery says what the agent can do next, in the tools' terms.
func recovery(ke *kernel.Error, field string) string {
	switch ke.Code {
	case kernel.CodePermissionDenied:
		if cmd, ok := ke.Extra["approve_command"].(string); ok {
			return "ask a human approver to run `" + cmd + "` and call again with the token it prints as approval"
		}
		return "the policy does not let this signer do that (see rule); ask a maintainer to change .records/policy.yaml, or leave the op to someone it allows"
	case kernel.CodeNotFound:
		return "find the record's id with list, or check the handle (id, alias or 8+ character prefix)"
	case kernel.CodeAmbiguousID:
		return "use a longer prefix or the full id (see matches)"
	case kernel.CodeConflict:
		return "the branch kept moving under the write; call again"
	case kernel.CodeSlugConflict, kernel.CodeIDConflict:
		return "choose another id or alias"
	case kernel.CodeNoSigningKey, kernel.CodeSigningFailed, kernel.CodeNotInitialized, kernel.CodeNotAStore:
		return "the store is not set up for signed writes here: run `git records init --generate-key` (or configure a signing key) where the server runs"
	}
	if field == "provenance.agent" || field == "evidence.agent" {
		return "start the server with --agent NAME, or connect with a client that sends its name in clientInfo"
	}
	if arg, ok := argumentFor[field]; ok {
		return "fill in " + arg + " and call again"
	}
	return "fix the input the message names and call again"
}

// codeRefusedArguments gives a code to the tool errors the SDK makes before
// a handler runs (arguments that do not match the input schema: a missing
// required one, an unknown one, a value outside an enum), so that every
// refusal a client sees is coded alike.
func codeRefusedArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError && r.StructuredContent == nil {
			msg := ""
			for _, c := range r.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					msg = t.Text
				}
			}
			r.StructuredContent = map[string]any{"error": map[string]any{"code": kernel.CodeUsage, "message": msg,
				"recovery": "call again with arguments that match the tool's input schema (tools/list shows it)"}}
		}
		return res, err
	}
}

// refuseInvalidUTF8 refuses a tool call whose arguments, as they came over
// the wire, are not UTF-8 text (kernel.CheckJSONText, as the contract
// checks its requests and the CLI its arguments): decoding them would turn
// each bad byte or lone surrogate escape into U+FFFD and store text the
// client never sent.
func refuseInvalidUTF8(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			if err := kernel.CheckJSONText(fmt.Sprintf("the arguments of %q", call.Params.Name), string(call.Params.Arguments)); err != nil {
				return toolError(err), nil
			}
		}
		return next(ctx, method, req)
	}
}
