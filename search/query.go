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
//
// A query is bounded (MaxQueryBytes, MaxClauses, MaxQueryWords here;
// MaxPrefixWords when it is run), so that what a search costs grows with
// the query at most linearly; past a bound it is refused with USAGE naming
// the bound, before any index is read.
func ParseQuery(q string) (*Query, error) {
	if len(q) > MaxQueryBytes {
		return nil, queryTooLarge("bytes", MaxQueryBytes, "the query is %d bytes, more than the %d a query may be: search for fewer words", len(q), MaxQueryBytes)
	}
	out := &Query{}
	nWords := 0
	rest := strings.TrimSpace(q)
	for rest != "" {
		var field *Field
		// A field name ends at the first colon, before any space or quote:
		// looked for in the first word only, so that parsing stays linear.
		head := rest
		if end := strings.IndexAny(rest, " \t\n\""); end >= 0 {
			head = rest[:end]
		}
		if name, _, ok := strings.Cut(head, ":"); ok {
			after := rest[len(name)+1:]
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
		if len(out.Clauses) == MaxClauses {
			return nil, queryTooLarge("clauses", MaxClauses, "the query has more than %d words, phrases and prefixes, the most a query may have: search for fewer", MaxClauses)
		}
		if nWords += len(words); nWords > MaxQueryWords {
			return nil, queryTooLarge("words", MaxQueryWords, "the query has more than %d words (a phrase's each counted), the most a query may have: search for fewer", MaxQueryWords)
		}
		out.Clauses = append(out.Clauses, Clause{Field: field, Terms: words, Prefix: prefix})
	}
	if len(out.Clauses) == 0 {
		return nil, kernel.Errorf(kernel.CodeUsage, "the query %q has no words to search for: give at least one word, \"a phrase\", a prefix* or a field:word", q)
	}
	return out, nil
}

// The bounds of a query. A clause costs at most a walk of its postings
// lists (one per field, per word of a phrase) and a test per document
// those lists hold; a prefix costs that for every word it names. So a
// query's cost is at most linear in its clauses, words and prefix words,
// each of which is bounded here (docs/search.md).
const (
	MaxQueryBytes  = 1024 // the query's text
	MaxClauses     = 32   // words, phrases and prefixes
	MaxQueryWords  = 64   // words over every clause, each word of a phrase counted
	MaxPrefixWords = 1024 // dictionary words the prefixes name, over every field searched and both segments
)

// queryTooLarge is the USAGE error of a query past one of its bounds,
// naming it ("query_limit") and its value ("max").
func queryTooLarge(limit string, max int, format string, args ...any) error {
	return kernel.Errorf(kernel.CodeUsage, format, args...).WithExtra("query_limit", limit).WithExtra("max", max)
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
