package service

import (
	"slices"
	"strings"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// A record's file as a person edits it (`edit`, `create --edit`): the
// record file format, its templates, and what an edited file changes.

// EncodeRecord is a record's file: YAML frontmatter, then the body.
func EncodeRecord(r *kernel.Record) ([]byte, error) { return gitstore.EncodeRecord(r) }

// DecodeRecord reads a record's file, refused with the rule it breaks.
func DecodeRecord(data []byte) (*kernel.Record, error) { return gitstore.DecodeRecord(data) }

// EncodeTemplate is the file a person fills in to create a record of t's
// type, with what in already says filled in.
func EncodeTemplate(t *kernel.RecordTemplate, in kernel.CreateInput) ([]byte, error) {
	return gitstore.EncodeTemplate(t, in)
}

// DecodeTemplate reads a filled-in template back into base's create input.
func DecodeTemplate(data []byte, base kernel.CreateInput) (kernel.CreateInput, error) {
	return gitstore.DecodeTemplate(data, base)
}

// RecordFile reads the record handle names as its file is stored (its body
// links stay in its body), for a person to edit; NOT_FOUND when the handle
// names none.
func (s *Service) RecordFile(handle string) (*kernel.Record, []byte, error) {
	v, err := s.View()
	if err != nil {
		return nil, nil, err
	}
	id, err := v.Resolve(handle)
	if err != nil {
		return nil, nil, err
	}
	if id == "" {
		return nil, nil, notFound(handle)
	}
	r, err := v.Record(id)
	if err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, notFound(handle)
	}
	file, err := EncodeRecord(r)
	return r, file, err
}

// Edit is what an edited record file changes against the record as it was
// opened: the fields an update sets, or, when the edit only appends links,
// those links (the link op). Changed is empty when the record did not
// change (the bytes moved, the record did not).
type Edit struct {
	ID       string
	Changed  []string
	Fields   kernel.UpdateFields
	AddLinks []kernel.Link // set when the edit only appends links
}

// EditOf reads an edited file against orig, refusing a change no op can
// make (a removed alias, a field only other ops set).
func EditOf(orig *kernel.Record, edited []byte) (*Edit, error) {
	r, err := DecodeRecord(edited)
	if err != nil {
		return nil, err
	}
	e := &Edit{ID: orig.ID, Changed: kernel.ChangedFields(orig, r)}
	f := &e.Fields
	for _, name := range e.Changed {
		switch name {
		case "title":
			f.Title = &r.Title
		case "body":
			f.Body = &r.Body
		case "category":
			f.Category = &r.Category
		case "tags":
			f.Tags = &r.Tags
		case "links":
			f.Links = &r.Links
		case "aliases":
			for _, al := range orig.Aliases {
				if !slices.Contains(r.Aliases, al) {
					return nil, kernel.Errorf(kernel.CodeInvalidRecord, "alias %q cannot be removed: aliases are only added, so a handle once given keeps naming the record", al)
				}
			}
			f.Aliases = r.Aliases
		case "expires_at":
			f.ExpiresAt = kernel.ExpiryInput{Set: true, At: r.ExpiresAt}
		case "ttl_seconds":
			f.TTLSeconds = kernel.TTLInput{Set: true, Seconds: r.TTLSeconds}
		case "scope":
			f.Scope = r.Scope
		case "properties":
			f.Properties = &r.Properties
		case "written_as":
			f.WrittenAs = &r.WrittenAs
		default:
			how := "no op changes it"
			if fd, ok := kernel.LookupField(name); ok && len(fd.Ops) > 0 {
				ops := make([]string, len(fd.Ops))
				for i, op := range fd.Ops {
					ops[i] = string(op)
				}
				how = "only " + strings.Join(ops, ", ") + " change" + map[bool]string{true: "s", false: ""}[len(fd.Ops) == 1] + " it"
			}
			return nil, kernel.Errorf(kernel.CodeInvalidRecord, "%s cannot be edited: %s", name, how).WithExtra("field", name)
		}
	}
	if onlyAddsLinks(e.Changed, orig.Links, r.Links) {
		e.AddLinks = r.Links[len(orig.Links):]
	}
	return e, nil
}

// onlyAddsLinks reports whether an edit changed nothing but the links, by
// appending to them.
func onlyAddsLinks(changed []string, before, after []kernel.Link) bool {
	return len(changed) == 1 && changed[0] == "links" && len(after) > len(before) && slices.Equal(before, after[:len(before)])
}

// ApplyEdit writes an edit as one op: link when it only appends links,
// else update, which the kernel checks as every update.
func (s *Service) ApplyEdit(e *Edit, ev kernel.Evidence, approval kernel.Approval) (*WriteResult, error) {
	if e.AddLinks != nil {
		return s.Link(e.ID, e.AddLinks, ev, approval)
	}
	return s.Update(e.ID, e.Fields, ev, approval)
}
