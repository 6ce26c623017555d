// Package record holds what the record commands (pkg/cmd/record/…) share:
// list's filter flags and how a link's other end is described.
package record

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ListFilter is list's filter flags, which every command that selects
// records the way list does shares (list, search, serve's form).
type ListFilter struct {
	gitstore.Filter
	Status, Kind, Role, Authority string
	Live, Stale                   bool
}

// Register adds the filter flags to c.
func (lf *ListFilter) Register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&lf.Type, "type", "", "only this type")
	fl.StringVar(&lf.Category, "category", "", "only this category")
	fl.BoolVar(&lf.CategoryPrefix, "prefix", false, "with --category: include its descendants")
	fl.StringVar(&lf.Tag, "tag", "", "only records with this tag")
	fl.StringVar(&lf.Status, "status", "", "only this status: active, implemented, retired")
	fl.StringVar(&lf.Kind, "kind", "", "only this kind")
	fl.StringVar(&lf.Role, "role", "", "only this role")
	fl.StringVar(&lf.Authority, "authority", "", "only this authority")
	fl.BoolVar(&lf.IncludeRetired, "include-retired", false, "include retired records")
	fl.BoolVar(&lf.Stale, "stale", false, "only stale records, as fresh judges them: past their expiry, or their scoped files changed in the working tree")
	fl.BoolVar(&lf.Live, "live", false, "leave out records that are stale, superseded or retired (checks scopes against the working tree)")
}

// Resolve checks each flag's value against its vocabulary and returns the selection.
func (lf *ListFilter) Resolve() (service.ListQuery, error) {
	for _, err := range []error{
		cmdutil.OneOf("--status", lf.Status, cmdutil.Names(kernel.Statuses)),
		cmdutil.OneOf("--kind", lf.Kind, cmdutil.Names(kernel.Kinds)),
		cmdutil.OneOf("--role", lf.Role, cmdutil.Names(kernel.Roles)),
		cmdutil.OneOf("--authority", lf.Authority, cmdutil.Names(kernel.Authorities)),
	} {
		if err != nil {
			return service.ListQuery{}, err
		}
	}
	f := lf.Filter
	f.Status, f.Kind, f.Role, f.Authority = kernel.Status(lf.Status), kernel.Kind(lf.Kind), kernel.Role(lf.Role), kernel.Authority(lf.Authority)
	return service.ListQuery{Filter: f, Live: lf.Live, Stale: lf.Stale}, nil
}

// DescribeEnd is what a link line says of the record at its other end:
// its label, its title, or that no record answers to the handle (a
// dangling link).
func DescribeEnd(v *gitstore.View, id, label string) string {
	out := LabelSuffix(label)
	ix, err := v.Index()
	if err != nil {
		return out
	}
	if title, ok := ix.Title(id); ok { // the title alone: a hub has 10,000 ends
		return out + "  " + service.OneLine(title)
	}
	return out + "  (no such record)"
}

// LabelSuffix is a link's label as a link line shows it.
func LabelSuffix(l string) string {
	if l == "" {
		return ""
	}
	return " (" + l + ")"
}
