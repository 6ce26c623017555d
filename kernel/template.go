package kernel

import (
	"slices"
	"strings"
)

// TemplateField is one frontmatter key a new record of a type is written
// with, and what it takes.
type TemplateField struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	Hint     string `json:"hint"`
}

// RecordTemplate is what a new record of a type starts from: the keys its
// frontmatter holds at create (the required ones first),
// and what its body should say. It is derived from the vocabulary (the
// type's axes, whether it is a relation or an implementation), so a new
// type gets its template with its definition. `create --edit` opens it in
// an editor; a program can show it (JSON).
type RecordTemplate struct {
	Type     string          `json:"type"`
	Doc      string          `json:"doc,omitempty"`
	Fields   []TemplateField `json:"fields"`
	BodyHint string          `json:"body_hint"`
}

// Field returns the template's field name (ok false: a key a new record of
// this type is not written with).
func (t *RecordTemplate) Field(name string) (TemplateField, bool) {
	i := slices.IndexFunc(t.Fields, func(f TemplateField) bool { return f.Name == name })
	if i < 0 {
		return TemplateField{}, false
	}
	return t.Fields[i], true
}

// FieldNames are the template's keys in order.
func (t *RecordTemplate) FieldNames() []string {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	return names
}

// bodyHints say what the body of a record holds, by the role its type
// gives it.
var bodyHints = map[Role]string{
	RoleFact:     "What was observed, as it was observed: quote the source where you can, and say where it came from.",
	RoleClaim:    "What is claimed and why it holds: the idea in a sentence, then the detail, with [[id]] links to the records it rests on.",
	RoleDecision: "The decision in a sentence, then the options weighed and why this one won, with [[id]] links to what it decides about.",
}

// TemplateFor is the template of a new record of type typ. Execution
// records are not made from a template: exec start gives them their owner
// and state.
func TemplateFor(typ string) (*RecordTemplate, error) {
	if err := ValidateType(typ); err != nil {
		return nil, err
	}
	def, _ := LookupType(typ)
	if IsExecutionType(typ) {
		return nil, Errorf(CodeInvalidRecord, "a %s record is started with `git records exec start`, which gives it its owner and state; it has no create template", typ).WithField("type")
	}
	t := &RecordTemplate{Type: typ, Doc: def.Doc, BodyHint: bodyHints[def.Role]}
	add := func(name string, required bool, hint string) {
		t.Fields = append(t.Fields, TemplateField{Name: name, Required: required, Hint: hint})
	}
	add("type", true, "the record type; it never changes once the record exists")
	add("title", true, "one line naming the record")
	add("category", true, "dot-separated lowercase path, e.g. engineering.api")
	if def.Kind == KindRelation {
		add("from", true, "the record the relation starts at (id, alias or 8+ character prefix)")
		add("to", true, "the record it points to")
		add("relation", true, "one of "+strings.Join(CoreRelations, ", ")+", or a namespaced ns.name with maps_to")
		add("maps_to", false, "for a namespaced relation: the core relation it means")
	}
	add("id", false, "your own id, a lowercase slug; empty: 26 random characters")
	add("tags", false, "e.g. [auth, tokens]")
	add("aliases", false, "slug handles, e.g. [auth/token-refresh]; never removed once given")
	add("links", false, "links to other records: a list of {target_id: ID, kind: "+strings.Join(KnownLinkKinds[:4], "|")+"…}")
	add("expires_at", false, "ISO-8601 instant after which the record is stale")
	add("ttl_seconds", false, "seconds after creation when the record goes stale")
	if ImplementationKind(typ) != "" {
		add("extension_contract", false, "what it accepts and produces: {accepts: [NAMES], produces: [NAMES]}")
	}
	return t, nil
}
