package kernel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormatRules(t *testing.T) {
	require.Equal(t, FormatVersion, Formats[len(Formats)-1], "the last released format is the one this tool writes")
	n, err := ParseFormat([]byte("1\n"))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	for _, bad := range []string{"", "0", "-1", "01", "1.0", "two"} {
		_, err := ParseFormat([]byte(bad))
		assert.True(t, IsCode(err, CodeInvalidRecord), "%q: %v", bad, err)
	}
	assert.NoError(t, CheckReadable(1))
	assert.True(t, IsCode(CheckReadable(CurrentFormat()+1), CodeFormatTooNew))
	assert.True(t, IsCode(CheckWritable(CurrentFormat()+1, OpCreate), CodeFormatTooNew))
	assert.NoError(t, CheckWritable(CurrentFormat(), OpCreate))
	assert.Empty(t, CheckCommitFormat("1", 1))
	assert.Contains(t, CheckCommitFormat("2", 2), "upgrade git-records")
	assert.Contains(t, CheckCommitFormat("1", 2), "leaves the branch in format 2")
	assert.Contains(t, CheckCommitFormat("x", 1), "not a format version")
}

// renameView lists its records for Migrate.
type renameView struct{ records []*Record }

func (v renameView) Record(string) (*Record, error)    { return nil, nil }
func (v renameView) Resolve(string) (string, error)    { return "", nil }
func (v renameView) AliasOwner(string) (string, error) { return "", nil }

func (v renameView) AllRecords() ([]*Record, error) { return v.records, nil }

// TestMigrate: a rename ships with a migration; Migrate applies the ones
// from the store's format on, rewrites only the records they change (each
// with a migrate entry), sets the format, and does nothing on a current
// store.
func TestMigrate(t *testing.T) {
	renameTag := []Migration{{From: 1, To: 2, What: "tag todo is renamed open", Record: func(r *Record) bool {
		changed := false
		for i, tag := range r.Tags {
			if tag == "todo" {
				r.Tags[i], changed = "open", true
			}
		}
		return changed
	}}}
	a := &Record{ID: "a", Type: "concept", Tags: []string{"todo"}}
	b := &Record{ID: "b", Type: "concept", Tags: []string{"x"}}
	v := renameView{records: []*Record{b, a}}
	env := Env{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m, err := Migrate(v, 1, renameTag, "upgrader", env)
	require.NoError(t, err)
	require.NotNil(t, m)
	require.Len(t, m.Writes, 1)
	assert.Equal(t, []string{"open"}, m.Writes[0].Tags)
	assert.Equal(t, []string{"todo"}, a.Tags, "the view's record is left alone")
	assert.Equal(t, "migrate", m.Writes[0].MutationLog[len(m.Writes[0].MutationLog)-1].Op)
	assert.Equal(t, "2\n", string(m.Files[FormatPath]))
	assert.Equal(t, "2", TrailerValue(m.Trailers, TrailerFormat))
	assert.Equal(t, "1", TrailerValue(m.Trailers, TrailerFromFormat))

	m, err = Migrate(v, 2, renameTag, "upgrader", env)
	require.NoError(t, err)
	assert.Nil(t, m, "a current store needs nothing")
	_, err = Migrate(v, 1, renameTag, "", env)
	assert.True(t, IsCode(err, CodeMissingEvidence))
}
