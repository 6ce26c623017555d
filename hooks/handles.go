package hooks

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// handleTrail answers "who holds this alias" at each commit verify walks
// without an index per commit: the index of the first parent it is asked
// about, plus the aliases the commits judged since then claimed. It stays
// valid only along a chain of single-parent commits judged in order; any
// other parent starts it afresh.
type handleTrail struct {
	tip     plumbing.Hash     // the commit the trail reflects; zero before first use
	base    *gitstore.View    // the view the trail started from
	claimed map[string]string // alias -> record, claimed after base
}

// at returns a view of parent for the kernel's handle checks.
func (t *handleTrail) at(parent plumbing.Hash, v *gitstore.View) kernel.View {
	if t.base == nil || t.tip != parent {
		t.tip, t.base, t.claimed = parent, v, map[string]string{}
	}
	return trailView{View: v, trail: t}
}

// advance moves the trail over a judged single-parent commit.
func (t *handleTrail) advance(parent, commit plumbing.Hash, changes []kernel.RecordChange) {
	if t.base == nil || t.tip != parent || commit.IsZero() {
		return
	}
	for _, c := range changes {
		if c.New == nil {
			continue
		}
		for _, a := range c.New.Aliases {
			if _, held := t.claimed[a]; !held {
				t.claimed[a] = c.New.ID
			}
		}
	}
	t.tip = commit
}

// trailView is a parent's view whose alias owners come from the trail.
type trailView struct {
	*gitstore.View
	trail *handleTrail
}

func (v trailView) AliasOwner(alias string) (string, error) {
	if id, ok := v.trail.claimed[alias]; ok {
		return id, nil
	}
	return v.trail.base.AliasOwner(alias)
}
