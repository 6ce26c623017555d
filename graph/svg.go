package graph

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// SVG geometry, in user units.
const (
	svgNodeW   = 200
	svgNodeH   = 44
	svgRing    = 230 // distance between rings of the radial layout
	svgMargin  = 20
	svgTitleAt = 26 // characters of a title a node shows
)

// SVG writes g as a standalone SVG picture with no script and no external
// reference: the root in the middle and each ring of records one link
// further out (without a root, every record on one ring), each node a link
// to href(id). Every text is XML-escaped.
func SVG(w io.Writer, g *Graph, href func(id string) string) error {
	pos := layout(g)
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pos {
		minX, minY = math.Min(minX, p[0]), math.Min(minY, p[1])
		maxX, maxY = math.Max(maxX, p[0]), math.Max(maxY, p[1])
	}
	if len(pos) == 0 {
		minX, minY, maxX, maxY = 0, 0, 0, 0
	}
	minX -= svgNodeW/2 + svgMargin
	minY -= svgNodeH/2 + svgMargin
	width := maxX - minX + svgNodeW/2 + svgMargin
	height := maxY - minY + svgNodeH/2 + svgMargin
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="graph" viewBox="%.0f %.0f %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="link graph">`+"\n",
		minX, minY, width, height, width, height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>` + "\n")
	// Links between the same two records (both ways, or of several kinds)
	// are drawn side by side, not on top of each other.
	pair := func(e Edge) [2]string {
		if e.From < e.To {
			return [2]string{e.From, e.To}
		}
		return [2]string{e.To, e.From}
	}
	count, seen := map[[2]string]int{}, map[[2]string]int{}
	for _, e := range g.Edges {
		count[pair(e)]++
	}
	for _, e := range g.Edges {
		from, to := pos[e.From], pos[e.To]
		k := pair(e)
		at := 0.5 // where along the line its label sits: parallel labels apart
		if count[k] > 1 {
			at = 0.3 + 0.4*float64(seen[k])/float64(count[k]-1)
		}
		if off := (float64(seen[k]) - float64(count[k]-1)/2) * 20; off != 0 {
			// Shift along the normal of the pair's own direction, the same
			// for both directions of a pair.
			a, c := pos[k[0]], pos[k[1]]
			dx, dy := c[0]-a[0], c[1]-a[1]
			if l := math.Hypot(dx, dy); l > 0 {
				nx, ny := -dy/l*off, dx/l*off
				from, to = [2]float64{from[0] + nx, from[1] + ny}, [2]float64{to[0] + nx, to[1] + ny}
			}
		}
		seen[k]++
		x1, y1 := border(from, to)
		x2, y2 := border(to, from)
		text := e.Kind
		if e.Label != "" {
			text += ": " + oneLine(e.Label)
		}
		fmt.Fprintf(&b, `<g class="edge" data-from="%s" data-to="%s"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#555" marker-end="url(#arrow)"/><text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" fill="#333" stroke="#fff" stroke-width="3" paint-order="stroke">%s</text></g>`+"\n",
			esc(e.From), esc(e.To), x1, y1, x2, y2, x1+(x2-x1)*at, y1+(y2-y1)*at+4, esc(text))
	}
	for _, n := range g.Nodes {
		p := pos[n.ID]
		title, id := n.label()
		class := "node"
		style := `fill="#fff" stroke="#333"`
		if n.Missing {
			class += " missing"
			style = `fill="#f6f6f6" stroke="#999" stroke-dasharray="4 4"`
		}
		if n.Root {
			class += " root"
			style = `fill="#eef4ff" stroke="#1f4fbf" stroke-width="3"`
		}
		inner := fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="%d" height="%d" rx="6" %s/><text x="%.1f" y="%.1f" font-size="13" text-anchor="middle">%s</text><text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="#666">%s</text><title>%s</title>`,
			p[0]-svgNodeW/2, p[1]-svgNodeH/2, svgNodeW, svgNodeH, style, p[0], p[1]-3, esc(cut(title, svgTitleAt)), p[0], p[1]+13, esc(cut(id, svgTitleAt+6)), esc(title+" "+id))
		if n.Missing {
			fmt.Fprintf(&b, `<g class="%s" data-id="%s">%s</g>`+"\n", class, esc(n.ID), inner)
		} else {
			fmt.Fprintf(&b, `<a href="%s" class="%s" data-id="%s">%s</a>`+"\n", esc(href(n.ID)), class, esc(n.ID), inner)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// layout places the root at the origin and each node on the ring of its
// distance from it (links taken both ways), in id order around the ring;
// without a root every node sits on one ring.
func layout(g *Graph) map[string][2]float64 {
	dist := map[string]int{}
	if g.Root != "" {
		adj := map[string][]string{}
		for _, e := range g.Edges {
			adj[e.From] = append(adj[e.From], e.To)
			adj[e.To] = append(adj[e.To], e.From)
		}
		dist[g.Root] = 0
		queue := []string{g.Root}
		for len(queue) > 0 {
			id := queue[0]
			queue = queue[1:]
			for _, next := range adj[id] {
				if _, ok := dist[next]; !ok {
					dist[next] = dist[id] + 1
					queue = append(queue, next)
				}
			}
		}
	}
	rings := map[int][]string{}
	for _, n := range g.Nodes { // in id order
		d, ok := dist[n.ID]
		if !ok {
			d = 1
			if g.Root != "" {
				d = maxDist(dist) + 1
			}
		}
		rings[d] = append(rings[d], n.ID)
	}
	pos := map[string][2]float64{}
	for d, ids := range rings {
		if d == 0 {
			pos[ids[0]] = [2]float64{0, 0}
			continue
		}
		// A ring wide enough for its nodes side by side.
		r := math.Max(float64(d*svgRing), float64(len(ids))*(svgNodeW*0.75)/(2*math.Pi))
		if len(ids) == 1 && g.Root == "" {
			r = 0
		}
		for i, id := range ids {
			angle := 2*math.Pi*float64(i)/float64(len(ids)) + float64(d)*0.4
			pos[id] = [2]float64{math.Round(r * math.Cos(angle) * 1.3), math.Round(r * math.Sin(angle) * 0.8)}
		}
	}
	return pos
}

func maxDist(dist map[string]int) int {
	m := 0
	for _, d := range dist {
		m = max(m, d)
	}
	return m
}

// border is where the line from a's centre towards b leaves a's box.
func border(a, b [2]float64) (float64, float64) {
	dx, dy := b[0]-a[0], b[1]-a[1]
	if dx == 0 && dy == 0 {
		return a[0], a[1]
	}
	sx, sy := math.Inf(1), math.Inf(1)
	if dx != 0 {
		sx = (svgNodeW / 2) / math.Abs(dx)
	}
	if dy != 0 {
		sy = (svgNodeH / 2) / math.Abs(dy)
	}
	s := math.Min(sx, sy)
	return a[0] + dx*s, a[1] + dy*s
}

func esc(s string) string { return html.EscapeString(s) }

// cut shortens s to n characters, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
