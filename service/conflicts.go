package service

import (
	"strings"

	"github.com/git-records/git-records/kernel"
)

// Conflict is a value that lost a merge conflict, kept in the record's
// mutation log, with the command that restores it ("" when no command
// can: the field is set at create).
type Conflict struct {
	kernel.LoggedConflict
	Restore string `json:"restore,omitempty"`
}

// Conflicts lists the losing values merges kept, of the record handle
// names or ("" handle) of every record.
func (s *Service) Conflicts(handle string) ([]Conflict, error) {
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	return ConflictsIn(v, handle)
}

// ConflictsIn is Conflicts over a view the caller holds (the web view).
func ConflictsIn(v *View, handle string) ([]Conflict, error) {
	var ids []string
	var err error
	if handle != "" {
		id, err := v.Resolve(handle)
		if err != nil {
			return nil, err
		}
		if id == "" {
			return nil, notFound(handle)
		}
		ids = []string{id}
	} else if ids, err = v.IDs(); err != nil {
		return nil, err
	}
	out := []Conflict{}
	for _, id := range ids {
		r, err := v.Record(id)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		for _, c := range kernel.LoggedConflicts(r) {
			out = append(out, Conflict{c, restoreCommand(c)})
		}
	}
	return out, nil
}

// restoreCommand is the update that puts the losing value back.
func restoreCommand(c kernel.LoggedConflict) string {
	base := "git records update " + c.ID + " --agent A "
	switch c.Field {
	case "title", "category", "expires_at", "ttl_seconds":
		return base + "--" + strings.ReplaceAll(c.Field, "_", "-") + " " + shellQuote(c.Lost)
	case "body":
		return base + "--body-file F   (F: the lost body, git records conflicts " + c.ID + " --json prints it)"
	}
	return ""
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
