package gitstore

import (
	"github.com/git-records/git-records/kernel"
)

// BlameFields are the fields blame attributes, in the order it reports
// them: every field of kernel.Fields that can differ between versions
// (not the immutable ones, nor the bookkeeping that moves with every op).
var BlameFields = blameFields()

func blameFields() []string {
	var out []string
	for _, f := range kernel.Fields {
		if !f.Immutable() && !f.Bookkeeping {
			out = append(out, f.Name)
		}
	}
	return out
}

// FieldOrigin names the commit that last set one field of a record.
type FieldOrigin struct {
	Field   string           `json:"field"`
	Commit  string           `json:"commit"`
	Op      string           `json:"op"`
	Agent   string           `json:"agent"`
	Time    kernel.Timestamp `json:"time"`
	Subject string           `json:"subject"`
}

// Blame is, for each field of a record, the commit that last set it.
type Blame struct {
	ID     string        `json:"id"`
	Type   string        `json:"type"`
	Fields []FieldOrigin `json:"fields"`
}

// Blame walks the history of one record and attributes each field to the
// newest commit whose version differs from the version before it; a field
// that never changed belongs to the commit that created the record. Versions
// that do not parse (a bad hand edit) are skipped: the next good version is
// compared with the last good one.
func (s *Store) Blame(typ, id string) (*Blame, error) {
	h, err := s.History(RecordPath(typ, id), 0)
	if err != nil {
		return nil, err
	}
	b := &Blame{ID: id, Type: typ, Fields: []FieldOrigin{}}
	origin := map[string]FieldOrigin{}
	var prev map[string]string
	for i := len(h) - 1; i >= 0; i-- { // oldest first
		e := h[i]
		if e.Blob.IsZero() {
			continue
		}
		r, err := s.readRecord(e.Blob)
		if err != nil {
			continue
		}
		cur := fieldValues(r)
		for _, f := range BlameFields {
			if prev == nil || cur[f] != prev[f] {
				origin[f] = FieldOrigin{Field: f, Commit: e.Commit, Op: e.Op, Agent: e.Agent, Time: e.Time, Subject: e.Subject}
			}
		}
		prev = cur
	}
	for _, f := range BlameFields {
		if o, ok := origin[f]; ok {
			b.Fields = append(b.Fields, o)
		}
	}
	return b, nil
}

// fieldValues renders each blamed field canonically, so two versions
// compare field by field ("" for an absent field).
func fieldValues(r *kernel.Record) map[string]string {
	out := make(map[string]string, len(BlameFields))
	for _, name := range BlameFields {
		f, _ := kernel.LookupField(name)
		out[name] = f.Text(r)
	}
	return out
}
