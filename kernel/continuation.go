package kernel

import (
	"fmt"
	"strings"
)

// CarryOver is the continuation summary of one owner: the open execution
// records its session holds, each with its parents and children, so the
// next run starts with the work it can still manage (Nitejar §5, carry-over
// behaviour).
type CarryOver struct {
	Owner     string          `json:"owner"`     // the session
	Principal string          `json:"principal"` // the signer who owns the records in it
	Open      []CarriedRecord `json:"open"`
}

// CarriedRecord is one open record of a CarryOver.
type CarriedRecord struct {
	ID              string     `json:"id"`
	Type            string     `json:"type"`
	Title           string     `json:"title"`
	State           ExecState  `json:"state"`
	Depth           int        `json:"depth"`
	CleanupOnRunEnd bool       `json:"cleanup_on_run_end"`
	Owner           Owner      `json:"owner"`
	Creator         *Creator   `json:"creator,omitempty"`
	CreatedAt       Timestamp  `json:"created_at"`
	Parents         []Relative `json:"parents"`
	Children        []Relative `json:"children"`
}

// Relative is a parent or child of a carried record.
type Relative struct {
	Kind  string    `json:"kind"` // the parent link kind
	ID    string    `json:"id"`
	Type  string    `json:"type,omitempty"`
	Title string    `json:"title,omitempty"`
	State ExecState `json:"state,omitempty"` // of an execution record
	// Missing: the link names no record at this tip.
	Missing bool `json:"missing,omitempty"`
}

// Continue computes the carry-over of principal's session: the open
// records they own in it, oldest first, with parents and children rebound
// from the explicit parent links (never from names), so a resumed run can
// list, await, cancel and close what the last one left open.
func Continue(v View, principal, session string) (*CarryOver, error) {
	if strings.TrimSpace(session) == "" {
		return nil, Errorf(CodeUsage, "owner is required: the session key whose open records to carry over").WithField("owner")
	}
	all, err := executionRecords(v)
	if err != nil {
		return nil, err
	}
	children := map[string][]*Record{}
	for _, r := range all {
		for _, kind := range ParentLinkKinds {
			if p := r.ParentID(kind); p != "" {
				children[p] = append(children[p], r)
			}
		}
	}
	out := &CarryOver{Owner: session, Principal: principal, Open: []CarriedRecord{}}
	open, err := OpenOwnedBy(v, principal, session)
	if err != nil {
		return nil, err
	}
	for _, r := range open {
		c := CarriedRecord{ID: r.ID, Type: r.Type, Title: r.Title, State: r.Execution.State, Depth: r.Execution.Depth,
			CleanupOnRunEnd: r.Execution.CleansUpOnRunEnd(), Owner: *r.Owner, Creator: r.Creator, CreatedAt: r.CreatedAt,
			Parents: []Relative{}, Children: []Relative{}}
		for _, kind := range ParentLinkKinds {
			id := r.ParentID(kind)
			if id == "" {
				continue
			}
			p, err := v.Record(id)
			if err != nil {
				return nil, err
			}
			c.Parents = append(c.Parents, relative(kind, id, p))
		}
		kids := children[r.ID]
		sortByCreation(kids)
		for _, k := range kids {
			for _, kind := range ParentLinkKinds {
				if k.ParentID(kind) == r.ID {
					c.Children = append(c.Children, relative(kind, k.ID, k))
				}
			}
		}
		out.Open = append(out.Open, c)
	}
	return out, nil
}

func relative(kind, id string, r *Record) Relative {
	if r == nil {
		return Relative{Kind: kind, ID: id, Missing: true}
	}
	rel := Relative{Kind: kind, ID: r.ID, Type: r.Type, Title: r.Title}
	if r.Execution != nil {
		rel.State = r.Execution.State
	}
	return rel
}

// Markdown renders the carry-over as the short summary a run injects at
// its start.
func (c *CarryOver) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Carry-over for session %s\n\n", c.Owner)
	if len(c.Open) == 0 {
		b.WriteString("No open execution records: nothing to continue.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d open execution record(s) %s owns in this session:\n\n", len(c.Open), c.Principal)
	for _, r := range c.Open {
		fmt.Fprintf(&b, "- **%s** `%s` %s (%s, depth %d", strings.TrimPrefix(r.Type, "execution."), r.ID, r.Title, r.State, r.Depth)
		if r.Owner.SandboxName != "" {
			fmt.Fprintf(&b, ", sandbox %s", r.Owner.SandboxName)
		}
		if !r.CleanupOnRunEnd {
			b.WriteString(", survives run end")
		}
		b.WriteString(")\n")
		for _, p := range r.Parents {
			fmt.Fprintf(&b, "  - %s: %s\n", p.Kind, describeRelative(p))
		}
		if len(r.Children) > 0 {
			kids := make([]string, len(r.Children))
			for i, k := range r.Children {
				kids[i] = describeRelative(k)
			}
			fmt.Fprintf(&b, "  - children: %s\n", strings.Join(kids, "; "))
		}
		if r.Creator != nil {
			fmt.Fprintf(&b, "  - created by %s\n", r.Creator.String())
		}
	}
	fmt.Fprintf(&b, "\nManage them as session %s: git records exec await|cancel|close <id> --session %s\n", c.Owner, c.Owner)
	return b.String()
}

func describeRelative(r Relative) string {
	if r.Missing {
		return "`" + r.ID + "` (no such record)"
	}
	s := "`" + r.ID + "` " + r.Title
	if r.State != "" {
		s += " (" + string(r.State) + ")"
	}
	return s
}
