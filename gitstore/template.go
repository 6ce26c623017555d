package gitstore

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/git-records/git-records/kernel"
)

// EncodeTemplate is the file a new record is written in by hand (create
// --edit): the template's fields as frontmatter, each under a comment that
// says whether it is required and what it takes, holding the values in
// already has (the flags given), then in's body.
func EncodeTemplate(t *kernel.RecordTemplate, in kernel.CreateInput) ([]byte, error) {
	values := templateValues(in)
	front := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range t.Fields {
		need := "optional"
		if f.Required {
			need = "required"
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Value: f.Name, HeadComment: need + ": " + f.Hint}
		value := &yaml.Node{}
		if err := value.Encode(values[f.Name]); err != nil {
			return nil, kernel.Wrap(kernel.CodeInternal, err, "template field %s", f.Name)
		}
		if value.Kind == yaml.SequenceNode && f.Name != "links" {
			value.Style = yaml.FlowStyle
		}
		front.Content = append(front.Content, key, value)
	}
	var buf bytes.Buffer
	buf.WriteString(delimiter)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(front); err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "encode the template")
	}
	buf.WriteString(delimiter)
	buf.WriteString(in.Body)
	return buf.Bytes(), nil
}

// templateValues are in's values of the template's fields, empty ones as
// the empty value of their kind so the file shows what each takes.
func templateValues(in kernel.CreateInput) map[string]any {
	var expires string
	if in.ExpiresAt.At != nil {
		expires = in.ExpiresAt.At.String()
	}
	ttl := in.TTLSeconds.Seconds
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	links := in.Links
	if links == nil {
		links = []kernel.Link{}
	}
	contract := in.Contract
	if contract == nil {
		contract = &kernel.ExtensionContract{}
	}
	return map[string]any{
		"type": in.Type, "title": in.Title, "category": in.Category, "id": in.ID,
		"from": in.From, "to": in.To, "relation": in.Relation, "maps_to": in.MapsTo,
		"tags": nonNil(in.Tags), "aliases": nonNil(in.Aliases), "links": links,
		"expires_at": expires, "ttl_seconds": ttl,
		"extension_contract": map[string][]string{"accepts": nonNil(contract.Accepts), "produces": nonNil(contract.Produces)},
	}
}

// templateFront is what the frontmatter of a filled template may hold.
type templateFront struct {
	ID         string                    `yaml:"id"`
	Type       string                    `yaml:"type"`
	Title      string                    `yaml:"title"`
	Category   string                    `yaml:"category"`
	From       string                    `yaml:"from"`
	To         string                    `yaml:"to"`
	Relation   string                    `yaml:"relation"`
	MapsTo     string                    `yaml:"maps_to"`
	Tags       []string                  `yaml:"tags"`
	Aliases    []string                  `yaml:"aliases"`
	Links      []kernel.Link             `yaml:"links"`
	ExpiresAt  string                    `yaml:"expires_at"`
	TTLSeconds *float64                  `yaml:"ttl_seconds"`
	Contract   *kernel.ExtensionContract `yaml:"extension_contract"`
}

// DecodeTemplate reads a filled template back: base (what the flags gave:
// the agent, the note, the scope) with the file's fields and body. A key
// the type's template does not hold is refused, naming the ones it does;
// whether the values make a valid record is create's to judge.
func DecodeTemplate(data []byte, base kernel.CreateInput) (kernel.CreateInput, error) {
	front, body, err := splitFrontmatter(data)
	if err != nil {
		return base, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return base, kernel.Errorf(kernel.CodeInvalidRecord, "frontmatter: %v", err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return base, kernel.Errorf(kernel.CodeInvalidRecord, "frontmatter must be YAML keys and values (type: concept, title: …)")
	}
	m := doc.Content[0]
	typ := ""
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "type" {
			typ = m.Content[i+1].Value
		}
	}
	t, err := kernel.TemplateFor(typ)
	if err != nil {
		return base, err
	}
	seen := map[string]bool{}
	for i := 0; i < len(m.Content); i += 2 {
		k := m.Content[i].Value
		if _, ok := t.Field(k); !ok {
			return base, kernel.Errorf(kernel.CodeInvalidRecord, "%s is not written in a new %s record: its fields are %s (the agent, note and session come from the flags; the store sets the rest)",
				k, typ, strings.Join(t.FieldNames(), ", ")).WithExtra("field", k)
		}
		if seen[k] {
			return base, kernel.Errorf(kernel.CodeInvalidRecord, "%s is given twice", k).WithExtra("field", k)
		}
		seen[k] = true
	}
	var f templateFront
	if err := m.Decode(&f); err != nil {
		return base, kernel.Errorf(kernel.CodeInvalidRecord, "frontmatter: %v", err)
	}
	in := base
	in.ID, in.Type, in.Title, in.Category = f.ID, f.Type, f.Title, f.Category
	in.From, in.To, in.Relation, in.MapsTo = f.From, f.To, f.Relation, f.MapsTo
	in.Tags, in.Aliases, in.Links = f.Tags, f.Aliases, f.Links
	in.ExpiresAt, in.TTLSeconds, in.Contract = kernel.ExpiryInput{}, kernel.TTLInput{}, nil
	if f.ExpiresAt != "" {
		if in.ExpiresAt, err = kernel.ParseExpiryInput(f.ExpiresAt); err != nil {
			return base, err
		}
	}
	if f.TTLSeconds != nil {
		in.TTLSeconds = kernel.TTL(*f.TTLSeconds)
	}
	if f.Contract != nil && (len(f.Contract.Accepts) > 0 || len(f.Contract.Produces) > 0) {
		in.Contract = f.Contract
	}
	in.Body = body
	return in, nil
}
