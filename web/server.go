// Package web is the local, read-only web view of a store (`git records
// serve`): the list with its filters and search, a record's page, the
// graph, proposals and conflicts, read from the branch's tip on every
// request. Its templates and stylesheet are embedded: it works offline
// and loads nothing from anywhere else.
package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/git-records/git-records/graph"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

//go:embed assets
var assets embed.FS

// IsLoopback reports whether a listen host stays on this machine. An empty
// host listens on every interface.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Server answers the web view's requests from the store, at the tip of
// the branch as it is when each request comes.
type Server struct {
	services     *services
	ref          string
	pages        *template.Template
	mux          *http.ServeMux
	AllowAnyHost bool       // answer to any Host, not only localhost (serve --allow-remote)
	linkCounts   linkCounts // of the graph page's opening
	// held, set by tests, runs once a request has its service.
	held func(*http.Request)
}

// New is the web view over svc. open opens another service over the same
// store, so that requests are served at once, each with its own; with
// open nil, requests take turns with svc.
func New(svc *service.Service, open func() (*service.Service, error)) *Server {
	ws := &Server{services: newServices(svc, open), ref: svc.Ref(), mux: http.NewServeMux()}
	ws.pages = template.Must(template.New("").Funcs(template.FuncMap{
		"recordURL": RecordURL,
		"evidence":  service.HistoryEntry.EvidenceText,
	}).ParseFS(assets, "assets/pages.html"))
	ws.mux.HandleFunc("GET /{$}", ws.page(ws.list))
	ws.mux.HandleFunc("GET /r/{handle...}", ws.page(ws.record))
	ws.mux.HandleFunc("GET /a/{handle...}", ws.attachment)
	ws.mux.HandleFunc("GET /graph", ws.page(ws.graph))
	ws.mux.HandleFunc("GET /proposals", ws.page(ws.proposals))
	ws.mux.HandleFunc("GET /conflicts", ws.page(ws.conflicts))
	ws.mux.HandleFunc("GET /static/style.css", func(w http.ResponseWriter, r *http.Request) {
		css, _ := assets.ReadFile("assets/style.css")
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		_, _ = w.Write(css)
	})
	ws.mux.HandleFunc("/", ws.page(func(*http.Request, *service.Service, *service.View) (string, string, any, error) {
		return "", "", nil, kernel.Errorf(kernel.CodeNotFound, "no such page")
	}))
	return ws
}

// RecordURL is the path of a record's page.
func RecordURL(id string) string { return "/r/" + url.PathEscape(id) }

// ServeHTTP refuses anything but a read from this machine's browser before
// any page is built.
func (ws *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// No script runs and nothing loads from elsewhere, whatever a record holds.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store") // the branch moves; every view is of its tip
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	if !ws.AllowAnyHost && !loopbackHost(r.Host) {
		// A page elsewhere that points a name of its own at 127.0.0.1 (DNS
		// rebinding) must not read the records through the victim's browser.
		http.Error(w, "this view answers to localhost only", http.StatusForbidden)
		return
	}
	ws.mux.ServeHTTP(w, r)
}

// loopbackHost reports whether a request's Host names this machine.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return IsLoopback(strings.Trim(host, "[]"))
}

// Close closes the stores the server opened (not svc's, New's caller's).
func (ws *Server) Close() error { return ws.services.close() }

// pageFunc builds one page from a view of the tip, with the service lent
// to the request: the template, the page's title and its data.
type pageFunc func(r *http.Request, svc *service.Service, v *service.View) (tmpl, title string, data any, err error)

// lend runs f with a service lent to the request for its duration; when
// none could be (the client left before one was free, or a store did not
// open) it answers 503 itself and reports false.
func (ws *Server) lend(w http.ResponseWriter, r *http.Request, f func(*service.Service)) bool {
	svc, err := ws.services.get(r.Context())
	if err != nil {
		http.Error(w, "the view is busy: "+err.Error(), http.StatusServiceUnavailable)
		return false
	}
	defer ws.services.put(svc)
	if ws.held != nil {
		ws.held(r)
	}
	f(svc)
	return true
}

// pageData is what every template gets.
type pageData struct {
	Title, Ref, Tip string
	Data            any
}

// page runs build on a view of the current tip and renders its template,
// or an error page with the status the error's code calls for.
func (ws *Server) page(build pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		tip := "(no records branch)"
		var tmpl, title string
		var data any
		var err error
		lent := ws.lend(w, r, func(svc *service.Service) {
			var v *service.View
			if v, err = svc.View(); err == nil {
				if v.Exists() {
					tip = v.Revision()[:12]
				}
				tmpl, title, data, err = build(r, svc, v)
			}
		})
		if !lent {
			return
		}
		status := http.StatusOK
		if err != nil {
			var ke *kernel.Error
			if !errors.As(err, &ke) {
				ke = &kernel.Error{Code: kernel.CodeInternal, Message: err.Error()}
			}
			status = httpStatus(ke.Code)
			tmpl, title, data = "error", http.StatusText(status), map[string]any{"Status": fmt.Sprintf("%d %s", status, http.StatusText(status)), "Message": fmt.Sprintf("%s: %s", ke.Code, ke.Message)}
		}
		if status == http.StatusOK {
			if to, ok := data.(redirect); ok {
				http.Redirect(w, r, string(to), http.StatusFound)
				return
			}
		}
		if err := ws.pages.ExecuteTemplate(&buf, tmpl, pageData{Title: title, Ref: ws.ref, Tip: tip, Data: data}); err != nil {
			http.Error(w, "rendering the page failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(buf.Bytes())
	}
}

// redirect, as a page's data, sends the browser to another path.
type redirect string

func httpStatus(c kernel.Code) int {
	switch c {
	case kernel.CodeNotFound:
		return http.StatusNotFound
	case kernel.CodeUsage, kernel.CodeAmbiguousID:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// listQuery is the list page's form, as the query string gave it: a
// search and list's filters.
type listQuery struct {
	Q, Type, Category, Tag, Status, Kind, Role, Authority string
	Sort, Order, Per                                      string // kept when the filters change
	Prefix, IncludeRetired, Live, Stale                   bool
}

type listRow struct {
	ID, Handle, Type, Category, Status, Title string
	Created, Updated                          string
	Snippet                                   template.HTML
}

// maxHits bounds a search's answer on the page.
const maxHits = 100

func (ws *Server) list(r *http.Request, svc *service.Service, v *service.View) (string, string, any, error) {
	q := r.URL.Query()
	on := func(k string) bool { return q.Get(k) != "" }
	form := listQuery{Q: strings.TrimSpace(q.Get("q")), Type: q.Get("type"), Category: q.Get("category"), Tag: q.Get("tag"), Status: q.Get("status"),
		Kind: q.Get("kind"), Role: q.Get("role"), Authority: q.Get("authority"), Sort: q.Get("sort"), Order: q.Get("order"), Per: q.Get("per"),
		Prefix: on("prefix"), IncludeRetired: on("include-retired"), Live: on("live"), Stale: on("stale")}
	data := struct {
		Query listQuery
		Rows  []listRow
		Pager *pager
		Error string
	}{Query: form}
	paging, err := pagingOf(q)
	if err != nil {
		data.Error = err.(*kernel.Error).Message
		return "list", "records", data, nil
	}
	// The same selection list and search make from their flags.
	sel := service.Selection{Filter: service.Filter{Type: form.Type, Category: form.Category, CategoryPrefix: form.Prefix, Tag: form.Tag, IncludeRetired: form.IncludeRetired},
		Status: form.Status, Kind: form.Kind, Role: form.Role, Authority: form.Authority, Live: form.Live, Stale: form.Stale}
	lq, err := sel.Query()
	if err != nil {
		data.Error = strings.ReplaceAll(err.Error(), "--", "")
		return "list", "records", data, nil
	}
	switch {
	case form.Q != "":
		hits, hv, err := svc.Search(service.SearchQuery{Query: form.Q, ListQuery: lq, Limit: maxHits})
		if err != nil {
			var ke *kernel.Error
			if errors.As(err, &ke) && ke.Code == kernel.CodeUsage {
				data.Error = ke.Message
				return "list", "search", data, nil
			}
			return "", "", nil, err
		}
		if err := hv.Indexed(); err != nil {
			return "", "", nil, err
		}
		for _, h := range hits {
			row := listRow{ID: h.ID, Handle: service.HandleFor(hv, h.ID), Type: h.Type, Category: h.Category,
				Status: service.ListedStatus(hv, h.ID, h.Status), Title: service.OneLine(h.Title), Snippet: snippetHTML(h.Text, h.Highlights, hv)}
			if e, _ := hv.Entry(h.ID); e != nil {
				row.Created, row.Updated = day(e.CreatedAt), day(e.UpdatedAt)
			}
			data.Rows = append(data.Rows, row)
		}
		return "list", "search: " + form.Q, data, nil
	case lq.Live || lq.Stale:
		rs, err := svc.ListAt(v, lq)
		if err != nil {
			return "", "", nil, err
		}
		for _, r := range service.SortEntries(rs, paging.Sort, paging.offset(), paging.Per) {
			data.Rows = append(data.Rows, listRow{ID: r.ID, Handle: service.HandleFor(v, r.ID), Type: r.Type, Category: r.Category,
				Status: service.ListedStatus(v, r.ID, r.EffectiveStatus()), Title: service.OneLine(r.Title),
				Created: day(r.CreatedAt.UnixMilli()), Updated: day(r.UpdatedAt.UnixMilli())})
		}
		pg := pagerOf(q, paging, len(data.Rows), len(rs))
		data.Pager = &pg
		return "list", "records", data, nil
	}
	// One page from the index, in the order asked: no record is read.
	es, total, err := v.ListPage(lq.Filter, paging.Sort, paging.offset(), paging.Per)
	if err != nil {
		return "", "", nil, err
	}
	for e := range es.All() {
		data.Rows = append(data.Rows, listRow{ID: e.ID, Handle: service.HandleFor(v, e.ID), Type: e.Type, Category: e.Category,
			Status: service.ListedStatus(v, e.ID, e.Status), Title: service.OneLine(e.Title), Created: day(e.CreatedAt), Updated: day(e.UpdatedAt)})
	}
	pg := pagerOf(q, paging, es.Len(), total)
	data.Pager = &pg
	return "list", "records", data, nil
}

// linkRow is one link or backlink of a record page: the record at the
// other end, with its title.
type linkRow struct {
	Kind, ID, Title, Label string
	Missing                bool
}

func (ws *Server) record(r *http.Request, svc *service.Service, v *service.View) (string, string, any, error) {
	handle := r.PathValue("handle")
	id, err := v.Resolve(handle)
	if err != nil {
		return "", "", nil, err
	}
	if id == "" {
		return "", "", nil, kernel.Errorf(kernel.CodeNotFound, "no record matches %q", handle)
	}
	if id != handle {
		return "", "", redirect(RecordURL(id)), nil // an alias or a prefix: the page lives at the id
	}
	rec, err := v.Record(id)
	if err != nil {
		return "", "", nil, err
	}
	rec = service.WithBodyLinks(rec)
	page, err := svc.RecordPage(v, rec)
	if err != nil {
		return "", "", nil, err
	}
	// One row per record at the other end, carrying every kind that links
	// them, as `links` prints them.
	row := func(l service.LinkLine, titles []service.EndTitle) linkRow {
		kind, label := l.Kind(), strings.Join(l.Labels, ", ")
		if title := titles[l.First]; title.OK {
			return linkRow{Kind: kind, ID: l.End, Title: service.OneLine(title.Text), Label: label}
		}
		return linkRow{Kind: kind, ID: l.End, Label: label, Missing: true}
	}
	var forward, reverse []linkRow
	for _, l := range service.LinkLines(page.Links.Forward, func(e service.Edge) string { return e.Target }) {
		forward = append(forward, row(l, page.Links.ForwardTitles))
	}
	for _, l := range service.LinkLines(page.Links.Reverse, func(e service.Edge) string { return e.Source }) {
		reverse = append(reverse, row(l, page.Links.ReverseTitles))
	}
	body, err := newBodyRenderer(v).render(rec.Body, "")
	if err != nil {
		return "", "", nil, err
	}
	hist, err := svc.Log(service.LogQuery{Handle: id, Limit: 100})
	if err != nil {
		return "", "", nil, err
	}
	around, err := svc.Graph(v, id, 1)
	if err != nil {
		return "", "", nil, err
	}
	var svg bytes.Buffer
	if err := graph.SVG(&svg, around, RecordURL); err != nil {
		return "", "", nil, err
	}
	return "record", service.OneLine(rec.Title), map[string]any{
		"Title": service.OneLine(rec.Title), "Page": page, "Body": body, "Forward": forward, "Reverse": reverse,
		"History": hist, "Graph": template.HTML(svg.String()), "Attachment": attachmentOf(rec),
	}, nil
}

// maxDrawn bounds the graph page: a picture of more records than this is
// not one anybody reads, and would be slow to draw.
const maxDrawn = 400

func (ws *Server) graph(r *http.Request, svc *service.Service, v *service.View) (string, string, any, error) {
	q := r.URL.Query()
	depth := 1
	if d := q.Get("depth"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 || n > 10 {
			return "", "", nil, kernel.Errorf(kernel.CodeUsage, "depth is a number from 1 to 10, not %q", d)
		}
		depth = n
	}
	if q.Get("root") == "" && q.Get("all") == "" {
		if page, ok, err := ws.opening(v); ok || err != nil {
			return "graph", "graph", page, err
		}
	}
	g, err := svc.Graph(v, q.Get("root"), depth)
	if err != nil {
		return "", "", nil, err
	}
	if len(g.Nodes) > maxDrawn {
		return "", "", nil, kernel.Errorf(kernel.CodeUsage, "%d records are too many to draw: open a record's neighbourhood (graph?root=HANDLE, or graph for the most linked one) instead", len(g.Nodes))
	}
	var svg bytes.Buffer
	if err := graph.SVG(&svg, g, RecordURL); err != nil {
		return "", "", nil, err
	}
	return "graph", "graph", map[string]any{"Root": g.Root, "Depth": g.Depth, "Nodes": len(g.Nodes), "Edges": len(g.Edges),
		"SVG": template.HTML(svg.String())}, nil
}

func (ws *Server) proposals(_ *http.Request, svc *service.Service, _ *service.View) (string, string, any, error) {
	ps, _, err := svc.Proposals("", "")
	return "proposals", "proposals", ps, err
}

func (ws *Server) conflicts(_ *http.Request, _ *service.Service, v *service.View) (string, string, any, error) {
	cs, err := service.ConflictsIn(v, "")
	return "conflicts", "conflicts", cs, err
}
