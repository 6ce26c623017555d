package web

import (
	"bytes"
	"html/template"
	"sync"

	"github.com/git-records/git-records/graph"
	"github.com/git-records/git-records/service"
)

// The graph page opens on a picture one can read: the most linked record
// and at most openingDrawn records around it, with the openingHubs most
// linked records listed to open theirs.
const (
	openingDrawn = 40
	openingHubs  = 12
)

// hubRow is one of the most linked records, as the graph page lists them.
type hubRow struct {
	ID, Title string
	Links     int
}

// opening is the graph page with no record asked for: the neighbourhood
// of the most linked record. ok is false when no record links another
// (the whole graph is then the page).
func (ws *Server) opening(v *service.View) (page map[string]any, ok bool, err error) {
	counts, err := ws.linkCounts.of(v)
	if err != nil {
		return nil, false, err
	}
	hubs := graph.MostLinked(counts, openingHubs)
	if len(hubs) == 0 {
		return nil, false, nil
	}
	g, left, err := service.ReadableGraph(v, hubs[0], openingDrawn, counts)
	if err != nil {
		return nil, false, err
	}
	var svg bytes.Buffer
	if err := graph.SVG(&svg, g, RecordURL); err != nil {
		return nil, false, err
	}
	records, err := v.Len()
	if err != nil {
		return nil, false, err
	}
	rows := make([]hubRow, len(hubs))
	for i, id := range hubs {
		title, _ := v.Title(id)
		rows[i] = hubRow{ID: id, Title: service.OneLine(title), Links: counts[id]}
	}
	return map[string]any{"Root": g.Root, "Depth": g.Depth, "Nodes": len(g.Nodes), "Edges": len(g.Edges), "SVG": template.HTML(svg.String()),
		"Opening": true, "RootTitle": rows[0].Title, "Left": left, "Hubs": rows, "Records": records}, true, nil
}

// linkCounts keeps the link counts of the last tip asked about: a walk of
// every entry, which the branch moving is the only reason to do again.
type linkCounts struct {
	mu     sync.Mutex
	tip    string
	counts map[string]int
}

func (c *linkCounts) of(v *service.View) (map[string]int, error) {
	tip := v.Revision()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil || c.tip != tip {
		counts, err := v.LinkCounts()
		if err != nil {
			return nil, err
		}
		c.tip, c.counts = tip, counts
	}
	return c.counts, nil
}
