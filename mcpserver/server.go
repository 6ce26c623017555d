// Package mcpserver serves the store over the Model Context Protocol: a tool
// for every op and query (each one call of package service, as the CLI and
// the contract make it), records as resources (records://<id>, the Markdown
// file as it is on the branch), and change notifications when the branch
// moves, whoever moved it.
package mcpserver

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// URIScheme prefixes a record's resource URI: records://<id>.
const URIScheme = "records://"

// Options configure a server.
type Options struct {
	// Agent names who performs the ops (Record-Agent); "" takes the
	// client's name from its clientInfo.
	Agent string
	// Poll is how often the branch is read for moves by other processes
	// when no file system notification says so (default
	// gitstore.DefaultFollowPoll).
	Poll time.Duration
	// Version is the server's version in its implementation info.
	Version string
}

// Server is one store served over MCP to any number of sessions.
type Server struct {
	// mu serializes calls into the service: a gitstore.Store is not safe
	// for concurrent use, except that a write waiting for its commit
	// group releases mu (gitstore.Store.ShareWrites). Other processes are
	// the write path's business (compare-and-swap).
	mu   sync.Mutex
	svc  *service.Service
	opts Options
	mcp  *mcp.Server

	// published is the tip whose records are published as resources, and
	// publishedView the view there (resources/list pages through its index, and
	// the next sync compares what the list said of a changed record);
	// synced is false until the first sync.
	published     string
	publishedView *service.View
	synced        bool
	// handles are the subscribed URIs that name a record by alias or id
	// prefix (records://<handle>): the SDK notifies a URI's subscribers
	// only, so a change of the record a handle names is announced under
	// the handle too.
	handles map[string]*subscribedHandle
	// moves are the branch moves the store's index applied in this
	// process (its own writes, catch-ups), keyed by the commit moved to:
	// publishing them needs no second tree diff.
	moves map[string]indexMove
	// landed wakes follow when the index applied a move (ObserveIndex).
	landed chan struct{}
}

// indexMove is one move of the index: from a commit to the key of moves,
// changing these records.
type indexMove struct {
	from string
	ids  []string
}

// subscribedHandle is a handle some sessions subscribed to, and the record
// it named at the published tip ("" for none).
type subscribedHandle struct {
	subscribers int
	id          string
}

// New builds the server: tools, the resource template and the records.
func New(svc *service.Service, opts Options) *Server {
	if opts.Poll <= 0 {
		opts.Poll = service.DefaultPoll
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	s := &Server{svc: svc, opts: opts, handles: map[string]*subscribedHandle{},
		moves: map[string]indexMove{}, landed: make(chan struct{}, 1)}
	// Called with mu held, by whoever moved the index.
	svc.ObserveChanges(func(from, to string, ids []string) {
		if from == "" || len(s.moves) >= maxMoves {
			clear(s.moves) // a rebuild, or nobody publishing: diff instead
		} else {
			s.moves[to] = indexMove{from: from, ids: ids}
		}
		select {
		case s.landed <- struct{}{}:
		default:
		}
	})
	// The SDK runs a session's tool calls concurrently: writes arriving
	// while a commit is being synced wait with mu released and go into the
	// next commit group.
	svc.ShareWrites(&s.mu)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "git-records", Title: "git-records record store", Version: opts.Version},
		&mcp.ServerOptions{
			Instructions: instructions,
			// Subscriptions are kept by the SDK; any records:// URI may be
			// subscribed, a record that does not exist yet included.
			SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
				handle, ok := strings.CutPrefix(req.Params.URI, URIScheme)
				if !ok {
					return mcp.ResourceNotFoundError(req.Params.URI)
				}
				s.subscribe(handle, 1)
				return nil
			},
			UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
				if handle, ok := strings.CutPrefix(req.Params.URI, URIScheme); ok {
					s.subscribe(handle, -1)
				}
				return nil
			},
			Capabilities: &mcp.ServerCapabilities{},
		})
	s.addTools()
	s.addExecutionTools()
	s.mcp.AddReceivingMiddleware(refuseInvalidUTF8, codeRefusedArguments, s.listFromTip)
	s.addRecordTemplate()
	return s
}

// addRecordTemplate adds the template every record is read through. The
// records themselves are not added to the SDK one by one (at 100,000
// records that was most of a session's start and of its memory):
// resources/list pages through the index instead (listFromTip).
func (s *Server) addRecordTemplate() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "record",
		Title:       "A record by id, alias or 8+ character id prefix",
		Description: "The record's Markdown file (YAML frontmatter, then the body) exactly as it is on the records branch.",
		MIMEType:    markdown,
		URITemplate: URIScheme + "{handle}",
	}, s.readResource)
}

// announceListChanged has every session hear resources/list_changed. The
// SDK sends it when its resources change; adding the record template
// again (it replaces itself) is that change, the records being listed
// from the index rather than held by the SDK.
func (s *Server) announceListChanged() { s.addRecordTemplate() }

const markdown = "text/markdown"

const instructions = `git-records: signed, linked knowledge records on a git branch.
Records are addressed by id, slug alias or an 8+ character id prefix. Each
write tool is one signed commit whose evidence is named in its input schema;
nothing is ever deleted (retire or supersede instead). Read a record's file as
the resource records://<id>; subscribe to it to hear when it changes. A
refused op is a tool error whose structured content is
{"error":{"code","message","rule"?,"recovery"}}.`

// Run publishes the records, follows the branch and serves the transport
// until the client goes away or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := s.sync(); err != nil {
		return err
	}
	go s.follow(ctx)
	return s.mcp.Run(ctx, t)
}

// MCP is the SDK server, for a caller that connects transports itself.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// follow waits for the branch to move (gitstore's ref follower: file
// system notifications, a poll as the fallback) and publishes what moved it.
func (s *Server) follow(ctx context.Context) {
	for {
		s.mu.Lock()
		seen := s.published
		s.mu.Unlock()
		if _, err := s.svc.WaitTip(ctx, seen, s.opts.Poll); err != nil {
			if ctx.Err() != nil {
				return
			}
			time.Sleep(s.opts.Poll) // an unreadable ref: try again later
		}
		if s.sync() == errLanding {
			// This process's writer moved the ref and has not yet
			// moved the index: it tells the observer when it has.
			select {
			case <-s.landed:
			case <-time.After(s.opts.Poll):
			case <-ctx.Done():
				return
			}
		}
		// A failed read is tried again on the next move.
	}
}

// listFromTip answers resources/list from the index at the published tip,
// a page of listPage records at a time in id order, the cursor being the
// last id of the page before. It publishes the tip first: the list is
// otherwise brought up to date by follow, after the ref moved, so a client
// that lists right after its own create could be answered without it
// (TestMCPServer failed so under load). A group still landing is published
// by follow as before (sync answers errLanding); a failed read leaves the
// list as it was.
func (s *Server) listFromTip(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "resources/list" {
			return next(ctx, method, req)
		}
		_ = s.sync()
		after := ""
		if p, ok := req.GetParams().(*mcp.ListResourcesParams); ok && p != nil {
			// The SDK's own list (no resource is added to it) answers
			// the rest of the result; the cursor is ours.
			after, p.Cursor = p.Cursor, ""
		}
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListResourcesResult)
		if err != nil || !ok {
			return res, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.publishedView == nil {
			return list, nil
		}
		list.Resources, list.NextCursor = list.Resources[:0], ""
		_ = s.publishedView.EachEntry(after, func(e service.Entry) bool {
			if len(list.Resources) == listPage {
				list.NextCursor = list.Resources[listPage-1].Name
				return false
			}
			list.Resources = append(list.Resources, resourceOf(&e))
			return true
		})
		return list, nil
	}
}

// listPage is how many records a page of resources/list holds.
var listPage = mcp.DefaultPageSize

// resourceOf is how the resource list shows a record.
func resourceOf(e *service.Entry) *mcp.Resource {
	return &mcp.Resource{URI: URIScheme + e.ID, Name: e.ID, Title: e.Title, MIMEType: markdown,
		Description: e.Type + " in " + e.Category + " (" + string(e.Status) + ")"}
}

// listedAs is what the resource list says of a record; "" when it is not
// listed (nil: there is none).
func listedAs(e *service.Entry) string {
	if e == nil {
		return ""
	}
	r := resourceOf(e)
	return r.Title + "\x00" + r.Description
}

// errLanding is sync's answer while a group of this process's writes is
// landing: the index is about to move, publishing waits for it.
var errLanding = errors.New("a commit group is landing")

// maxMoves bounds the moves kept for publishing (a few groups' worth).
const maxMoves = 4096

// changedSince is what moved the branch from published to tip: the
// records the index moves of this process changed, when they chain from
// one to the other, else (external) a tree diff.
func (s *Server) changedSince(tip string) (changed []string, external bool, err error) {
	seen := map[string]bool{}
	for at, steps := tip, 0; at != s.published; steps++ {
		m, ok := s.moves[at]
		if !ok || steps > len(s.moves) {
			// Moves that do not lead to published (another process's
			// commits, a reset): diff the trees.
			changed, err = s.svc.ChangedRecords(s.published, tip)
			return changed, true, err
		}
		for _, id := range m.ids {
			if !seen[id] {
				seen[id] = true
				changed = append(changed, id)
			}
		}
		at = m.from
	}
	return changed, false, nil
}

// sync brings the published resources to the tip and notifies: each
// changed record's subscribers get resources/updated, and every session
// hears resources/list_changed when a record came, went or was renamed.
func (s *Server) sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tip, err := s.svc.Tip()
	if err != nil || (s.synced && tip == s.published) {
		return err
	}
	if s.synced && s.svc.Landing() {
		return errLanding
	}
	v, err := s.svc.ViewAt(tip)
	if err != nil {
		return err
	}
	if err := v.Indexed(); err != nil {
		return err
	}
	var changed []string
	external := false // moved by another process's commits
	if s.synced {
		if changed, external, err = s.changedSince(tip); err != nil {
			return err
		}
	}
	clear(s.moves)
	first, was := !s.synced, s.publishedView
	s.published, s.publishedView, s.synced = tip, v, true
	isChanged := make(map[string]bool, len(changed))
	for _, id := range changed {
		isChanged[id] = true
	}
	var handlesMoved []string
	for handle, h := range s.handles {
		id, _ := v.Resolve(handle) // an ambiguous or unknown handle names no record
		if id != handle && (id != h.id || isChanged[id] || isChanged[h.id]) {
			handlesMoved = append(handlesMoved, handle)
		}
		h.id = id
	}
	// A search index this process holds follows the branch when others
	// moved it: this process's own writes never pay for it (its next
	// search catches up what they wrote).
	if external {
		s.svc.CatchUpSearch(tip)
	}
	if first {
		return nil
	}
	// A record that came, went or is listed otherwise changes the list.
	for _, id := range changed {
		before, _ := was.Entry(id)
		after, _ := v.Entry(id)
		if listedAs(before) != listedAs(after) {
			s.announceListChanged()
			break
		}
	}
	// The SDK sends each to the sessions subscribed to that URI only.
	for _, handle := range append(changed, handlesMoved...) {
		_ = s.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: URIScheme + handle})
	}
	return nil
}

// subscribe counts a session's subscription (delta 1) or unsubscription
// (-1) to records://<handle>, and notes the record the handle names now.
func (s *Server) subscribe(handle string, delta int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.handles[handle]
	if h == nil {
		if delta < 0 {
			return
		}
		h = &subscribedHandle{}
		s.handles[handle] = h
		if s.synced && s.publishedView != nil {
			h.id, _ = s.publishedView.Resolve(handle)
		}
	}
	if h.subscribers += delta; h.subscribers <= 0 {
		delete(s.handles, handle)
	}
}

// readResource answers resources/read for records://<handle>: the file as
// it is on the branch, under its canonical URI.
func (s *Server) readResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	handle, ok := strings.CutPrefix(uri, URIScheme)
	if !ok || handle == "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, r, err := s.svc.Record(handle)
	if err != nil {
		if kernel.IsCode(err, kernel.CodeNotFound) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, err
	}
	data, err := v.StoredFile(r)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: URIScheme + r.ID, MIMEType: markdown, Text: string(data)}}}, nil
}
