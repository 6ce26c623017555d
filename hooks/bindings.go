package hooks

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// checkBindings judges what a commit does with extension bindings: only a
// bind commit writes .records/bindings.yaml, never deletes it, and leaves
// a file that binds only compatible implementations (as of the commit);
// and a commit's binding manifest is what its parent supports.
func (j *judge) checkBindings(changes []gitstore.Change, parent, h plumbing.Hash, op kernel.Op, msg gitstore.CommitMessage) error {
	for _, c := range changes {
		if c.Path != gitstore.BindingsPath {
			continue
		}
		const fix = "change the bindings with git records bindings set, a bind commit"
		if op != kernel.OpBind {
			j.violation(RuleOpMatches, "", c.Path, fix, "%s commit changes %s", op, c.Path)
		}
		if c.New.IsZero() {
			j.violation(RuleNoDelete, "", c.Path, "restore the file", "%s is deleted", c.Path)
			continue
		}
		v, err := j.w.ViewAt(h)
		if err != nil {
			return err
		}
		b, err := v.Bindings()
		if err != nil {
			j.violation(kernel.RuleBindings, "", c.Path, fix, "%s", messageOf(err))
			continue
		}
		for _, x := range kernel.CheckBindings(b, v) {
			j.violation(x.Rule, x.Record, c.Path, x.Fix, "%s", x.Message)
		}
	}
	if msg.Get(kernel.TrailerBinding) == "" || parent.IsZero() {
		if msg.Get(kernel.TrailerBinding) != "" {
			j.violation(kernel.RuleBindings, "", "", "a root commit is written under no bindings", "root commit carries a binding manifest")
		}
		return nil
	}
	pv, err := j.w.ViewAt(parent)
	if err != nil {
		return err
	}
	b, err := pv.Bindings()
	if err != nil {
		j.violation(kernel.RuleBindings, "", gitstore.BindingsPath, "fix the bindings file in a bind commit", "%s", messageOf(err))
		return nil
	}
	for _, x := range kernel.CheckManifest(op, msg.Trailers, j.records, b, pv) {
		j.violation(x.Rule, x.Record, j.paths[x.Record], x.Fix, "%s", x.Message)
	}
	return nil
}
