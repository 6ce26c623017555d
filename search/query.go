package search

import (
	"strings"

	"github.com/git-records/git-records/kernel"
)

// Query is a parsed query: every clause must match (AND); the score adds
// up what each clause contributes.
type Query struct {
	Clauses []Clause
}

// Clause is a word, a prefix (tok*) or a phrase ("a b c"), in every field
// or in one (title:…, tag:…, alias:…, category:…, body:…).
type Clause struct {
	Field *Field // nil: every field
	// Terms are the phrase's terms in order (one for a word); the last
	// is a prefix when Prefix is set.
	Terms  []string
	Prefix bool
}

// ParseQuery reads the query language:
//
//	token refresh        both words, anywhere (AND)
//	"refresh token"      the phrase: the words next to each other, in order
//	tok*                 a word that begins with tok
//	title:token          a field: title, alias, tag, category or body
//	tag:team-1           in alias, tag and category, a whole value too
//	title:"token policy" a phrase in one field
//
// Words are matched case-insensitively; punctuation separates words, so
// team-1 is the phrase "team 1".
func ParseQuery(q string) (*Query, error) {
	out := &Query{}
	rest := strings.TrimSpace(q)
	for rest != "" {
		var field *Field
		if name, after, ok := strings.Cut(rest, ":"); ok && !strings.ContainsAny(name, " \t\n\"") {
			if f, known := fieldByName(strings.ToLower(name)); known {
				field, rest = &f, after
			} else if isWord(name) && after != "" && !strings.HasPrefix(after, " ") {
				return nil, kernel.Errorf(kernel.CodeUsage, "the query %q names the field %q, which is not one of %s; the list filters are flags (--type, --category, --tag, --status)",
					q, name, strings.Join(FieldNames[:], ", ")).WithExtra("query_field", name)
			}
		}
		var text string
		quoted := strings.HasPrefix(rest, `"`)
		if quoted {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, kernel.Errorf(kernel.CodeUsage, "the query %q opens a phrase with \" and does not close it; close it, or leave the quote out", q)
			}
			text, rest = rest[1:1+end], rest[2+end:]
		} else {
			end := strings.IndexAny(rest, " \t\n")
			if end < 0 {
				end = len(rest)
			}
			text, rest = rest[:end], rest[end:]
		}
		rest = strings.TrimSpace(rest)
		prefix := !quoted && strings.HasSuffix(text, "*")
		words := terms(strings.TrimSuffix(text, "*"))
		if field != nil && keywordField(*field) && !prefix {
			// A whole value (tag:team-1): the keyword the index keeps for it,
			// which a value of one word shares with its word.
			if whole := normalize(text); whole != "" {
				words = []string{whole}
			}
		}
		if len(words) == 0 {
			if field != nil || quoted {
				return nil, kernel.Errorf(kernel.CodeUsage, "the query %q has an empty term %q: give a word after the field name or inside the quotes", q, text)
			}
			continue // punctuation alone
		}
		out.Clauses = append(out.Clauses, Clause{Field: field, Terms: words, Prefix: prefix})
	}
	if len(out.Clauses) == 0 {
		return nil, kernel.Errorf(kernel.CodeUsage, "the query %q has no words to search for: give at least one word, \"a phrase\", a prefix* or a field:word", q)
	}
	return out, nil
}

func fieldByName(name string) (Field, bool) {
	for f, n := range FieldNames {
		if n == name {
			return Field(f), true
		}
	}
	return 0, false
}

// matches reports whether term t is the clause's i-th term (the last one
// as a prefix, when the clause is one).
func (c *Clause) matches(i int, t string) bool {
	if c.Prefix && i == len(c.Terms)-1 {
		return strings.HasPrefix(t, c.Terms[i])
	}
	return t == c.Terms[i]
}

// fields are the fields the clause searches.
func (c *Clause) fields() []Field {
	if c.Field != nil {
		return []Field{*c.Field}
	}
	return []Field{FieldTitle, FieldAlias, FieldTag, FieldCategory, FieldBody}
}

// isWord: letters only, as a field name is.
func isWord(s string) bool {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return s != ""
}
