package service

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/git-records/git-records/kernel"
)

// Selection is a listing's selection as a front-end receives it, in words
// (list's flags, the web view's form): the filter, the words of the closed
// vocabularies, and the freshness filters.
type Selection struct {
	Filter
	Status, Kind, Role, Authority string
	Live, Stale                   bool
}

// Query checks each word of the selection against its vocabulary and
// returns the query it selects. A refused value is a usage error naming the
// flag that gives it (--status, --type, …); a filter value the record rules
// would refuse on a record is refused too, since no record can match it and
// an empty answer would hide the typo.
func (sel Selection) Query() (ListQuery, error) {
	for _, err := range []error{
		OneOf("--status", sel.Status, names(kernel.Statuses)),
		OneOf("--kind", sel.Kind, names(kernel.Kinds)),
		OneOf("--role", sel.Role, names(kernel.Roles)),
		OneOf("--authority", sel.Authority, names(kernel.Authorities)),
		filterValue("--type", sel.Type, kernel.ValidateType),
		filterValue("--category", sel.Category, kernel.ValidateCategory),
	} {
		if err != nil {
			return ListQuery{}, err
		}
	}
	f := sel.Filter
	f.Status, f.Kind, f.Role, f.Authority = kernel.Status(sel.Status), kernel.Kind(sel.Kind), kernel.Role(sel.Role), kernel.Authority(sel.Authority)
	return ListQuery{Filter: f, Live: sel.Live, Stale: sel.Stale}, nil
}

// OneOf refuses a value of flag that is not one of allowed ("" is none given).
func OneOf(flag, value string, allowed []string) error {
	if value == "" || slices.Contains(allowed, value) {
		return nil
	}
	return kernel.Errorf(kernel.CodeUsage, "%s %q is not one of %s", flag, value, strings.Join(allowed, ", ")).WithExtra("flag", flag)
}

// filterValue refuses a filter value check refuses, as a usage error about
// flag: one the check says the field of keeps it (the front-end names its
// flag), any other names flag.
func filterValue(flag, value string, check func(string) error) error {
	if value == "" {
		return nil
	}
	err := check(value)
	var ke *kernel.Error
	if err == nil || !errors.As(err, &ke) {
		return err
	}
	out := *ke
	out.Code = kernel.CodeUsage
	_, hasFlag := ke.Extra["flag"]
	if _, hasField := ke.Extra["field"]; !hasFlag && !hasField {
		if !strings.HasPrefix(out.Message, flag) {
			out.Message = flag + ": " + out.Message
		}
		out.Extra = maps.Clone(ke.Extra)
		out.WithExtra("flag", flag)
	}
	return &out
}

func names[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
