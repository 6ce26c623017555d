// Package remote holds what the commands that carry records between
// branches and clones (sync, pull, push, merge) share: how a sync or a
// merge is reported to people.
package remote

import (
	"fmt"
	"io"

	"github.com/git-records/git-records/service"
)

// PrintSync reports a sync, pull, push or merge for people.
func PrintSync(w io.Writer, res *service.SyncResult) {
	if res.Merge != nil {
		m := res.Merge
		switch m.Kind {
		case "up-to-date":
			fmt.Fprintf(w, "%s: up to date with %s\n", res.Ref, res.Remote)
		case "fast-forward":
			fmt.Fprintf(w, "%s: fast-forward to %s (%d new commits verified)\n", res.Ref, short12(m.Commit), res.Incoming)
			if len(m.Conflicts) > 0 {
				fmt.Fprintf(w, "%s: the merges and replays brought in resolved %d conflicts:\n", res.Ref, len(m.Conflicts))
			}
			for _, c := range m.Conflicts {
				fmt.Fprintf(w, "  both changed %s %s: kept the value from %s, the other is in its mutation log\n", c.ID, c.Field, short12(c.Kept))
			}
		default:
			fmt.Fprintf(w, "%s: merged %d commits from %s in %s: %d records, %d conflicts resolved\n",
				res.Ref, res.Incoming, res.Remote, short12(m.Commit), len(m.Records), len(m.Conflicts))
			for _, c := range m.Conflicts {
				fmt.Fprintf(w, "  both changed %s %s: kept the value from %s, the other is in its mutation log\n", c.ID, c.Field, short12(c.Kept))
			}
		}
	}
	if rp := res.Replay; rp != nil {
		n := 0
		for _, rc := range rp.Replayed {
			if rc.Commit != "" {
				n++
			}
		}
		fmt.Fprintf(w, "%s: replayed %d commits of ours on %s's %s (%d new commits verified)\n", res.Ref, n, res.Remote, short12(rp.Onto), res.Incoming)
	}
	if len(res.Conflicts) > 0 {
		fmt.Fprintf(w, "%s: the replay resolved %d conflicts:\n", res.Ref, len(res.Conflicts))
		for _, c := range res.Conflicts {
			fmt.Fprintf(w, "  both changed %s %s: kept the value from %s, the other is in its mutation log\n", c.ID, c.Field, short12(c.Kept))
		}
	}
	for _, k := range res.Kept {
		fmt.Fprintf(w, "%s: not published: %s (%s), kept at %s: %s\n", res.Ref, short12(k.Commit), k.Op, k.Ref, k.Reason)
	}
	if res.Pushed {
		fmt.Fprintf(w, "%s: pushed to %s\n", res.Ref, res.Remote)
	}
}

func short12(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
