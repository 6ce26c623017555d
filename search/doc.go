// Package search is the full-text index of the records: a tokenizer, the
// query language, an immutable segment format read in place (memory-mapped
// by the caller) and an index of a base segment plus a small delta segment,
// so that bringing it up to a new tip costs what changed, not the store.
// It is pure: bytes in, bytes out; gitstore keeps the files and feeds it
// the records a tree diff changed.
package search

// Field is one searched part of a record.
type Field uint8

const (
	FieldTitle Field = iota
	FieldAlias
	FieldTag
	FieldCategory
	FieldBody
	numFields
)

// FieldNames are the names a query uses (`title:token`), in Field order.
var FieldNames = [numFields]string{"title", "alias", "tag", "category", "body"}

func (f Field) String() string { return FieldNames[f] }

// fieldWeight ranks a hit by where it is: a title hit above an alias, tag
// or category hit, and all of them above a body hit.
var fieldWeight = [numFields]float64{4, 3, 2, 1.5, 1}

// Doc is what the index keeps of one record: the searched text, the
// attributes the list filters test, and the blob it was read from (so
// reindex can tell a stale document from a current one).
type Doc struct {
	ID, Type, Category, Title     string
	Status, Kind, Role, Authority string
	Tags, Aliases                 []string
	Body                          string
	CreatedAt, Expires            int64 // unix ms; Expires 0 = none
	Blob                          [20]byte
}

// fieldText returns the values of field f of d.
func (d *Doc) fieldValues(f Field) []string {
	switch f {
	case FieldTitle:
		return []string{d.Title}
	case FieldAlias:
		return d.Aliases
	case FieldTag:
		return d.Tags
	case FieldCategory:
		if d.Category == "" {
			return nil
		}
		return []string{d.Category}
	}
	return []string{d.Body}
}

// keywordField: a field whose whole values are also terms, so that
// `tag:team-1` names the tag itself, not the words in it.
func keywordField(f Field) bool { return f == FieldAlias || f == FieldTag || f == FieldCategory }
