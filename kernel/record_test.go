package kernel_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/git-records/git-records/kernel"
)

func TestTimestampIsFixedWidthUTC(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC), "2026-03-01T09:30:00.000Z"},
		{time.Date(2026, 3, 1, 9, 30, 0, 120_000_000, time.UTC), "2026-03-01T09:30:00.120Z"},
		{time.Date(2026, 3, 1, 9, 30, 0, 999_999_999, time.UTC), "2026-03-01T09:30:00.999Z"}, // truncated, not rounded
		{time.Date(2026, 3, 1, 11, 30, 0, 0, time.FixedZone("CEST", 2*3600)), "2026-03-01T09:30:00.000Z"},
	}
	for _, tt := range tests {
		got := kernel.At(tt.in).String()
		assert.Equal(t, tt.want, got)
		assert.Len(t, got, len(kernel.TimestampLayout))
	}
	assert.Equal(t, time.UTC, kernel.At(tests[3].in).Location())
}

func TestParseTimestamp(t *testing.T) {
	accept := map[string]string{
		"2026-03-01T09:30:00.000Z":       "2026-03-01T09:30:00.000Z",
		"2026-03-01T09:30:00Z":           "2026-03-01T09:30:00.000Z",
		"2026-03-01T11:30:00+02:00":      "2026-03-01T09:30:00.000Z",
		"2026-03-01T04:30:00.5-05:00":    "2026-03-01T09:30:00.500Z",
		"2026-03-01T11:30:00+0200":       "2026-03-01T09:30:00.000Z",
		"2026-03-01T09:30:00.123456789Z": "2026-03-01T09:30:00.123Z",
		"2026-03-01":                     "2026-03-01T00:00:00.000Z",
		" 2026-03-01T09:30:00Z\n":        "2026-03-01T09:30:00.000Z",
	}
	for in, want := range accept {
		got, err := kernel.ParseTimestamp(in)
		require.NoError(t, err, "%q", in)
		assert.Equal(t, want, got.String(), "%q", in)
		assert.Equal(t, time.UTC, got.Location())
	}
	for _, in := range []string{"", "yesterday", "2026-03-01 09:30:00", "2026-03-01T09:30:00", "2026-02-30T00:00:00Z", "1767225600", "03/01/2026"} {
		_, err := kernel.ParseTimestamp(in)
		assert.Error(t, err, "%q", in)
	}
}

func TestTimestampJSONRoundTrip(t *testing.T) {
	at := kernel.At(time.Date(2026, 3, 1, 9, 30, 0, 7_000_000, time.UTC))
	b, err := json.Marshal(at)
	require.NoError(t, err)
	assert.Equal(t, `"2026-03-01T09:30:00.007Z"`, string(b))

	var back kernel.Timestamp
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, at, back)

	require.NoError(t, json.Unmarshal([]byte(`"2026-03-01T11:30:00.007+02:00"`), &back))
	assert.Equal(t, at, back, "an offset is read and normalized to UTC")

	assert.Error(t, json.Unmarshal([]byte(`1767225600`), &back), "a number is not a timestamp")
	assert.Error(t, json.Unmarshal([]byte(`"soon"`), &back))
}

func TestTimestampYAMLRoundTrip(t *testing.T) {
	type doc struct {
		At      kernel.Timestamp  `yaml:"at"`
		Expires *kernel.Timestamp `yaml:"expires,omitempty"`
	}
	at := kernel.At(time.Date(2026, 3, 1, 9, 30, 0, 7_000_000, time.UTC))
	in := doc{At: at, Expires: &at}
	b, err := yaml.Marshal(in)
	require.NoError(t, err)
	assert.Contains(t, string(b), "2026-03-01T09:30:00.007Z")

	var back doc
	require.NoError(t, yaml.Unmarshal(b, &back))
	assert.Equal(t, in, back)

	require.NoError(t, yaml.Unmarshal([]byte("at: 2026-03-01T11:30:00.007+02:00\n"), &back))
	assert.Equal(t, at, back.At, "an unquoted YAML timestamp with an offset is read in UTC")

	assert.Error(t, yaml.Unmarshal([]byte("at: [2026]\n"), &back), "a timestamp must be a scalar")
	assert.Error(t, yaml.Unmarshal([]byte("at: soon\n"), &back))
}

func TestRecordJSONUsesContractFieldNames(t *testing.T) {
	r := kernel.Record{ID: "a", Type: "raw", Title: "t", Category: "c", Body: "b",
		CreatedAt: kernel.At(createdAt), UpdatedAt: kernel.At(opAt), TTLSeconds: ptr(60.0),
		Provenance: kernel.Provenance{Agent: "x"}}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "2026-03-01T09:30:00.000Z", m["created_at"])
	assert.Equal(t, "2026-03-02T14:45:10.123Z", m["updated_at"])
	assert.Equal(t, 60.0, m["ttl_seconds"], "ttl_seconds is a number")
	assert.Equal(t, "b", m["body"])
	for _, absent := range []string{"expires_at", "status", "tags", "aliases", "links", "mutation_log"} {
		assert.NotContains(t, m, absent, "absent optional fields are omitted, never null")
	}
}

func TestEffectiveExpiry(t *testing.T) {
	created := kernel.At(createdAt)
	expires := ts(t, "2026-06-01T00:00:00Z")
	tests := []struct {
		name      string
		expiresAt *kernel.Timestamp
		ttl       *float64
		want      time.Time
		ok        bool
	}{
		{"neither field: no expiry", nil, nil, time.Time{}, false},
		{"expires_at", &expires, nil, expires.Time, true},
		{"ttl_seconds counts from created_at", nil, ptr(3600.0), createdAt.Add(time.Hour), true},
		{"fractional ttl_seconds", nil, ptr(1.5), createdAt.Add(1500 * time.Millisecond), true},
		{"expires_at wins over a shorter ttl", &expires, ptr(60.0), expires.Time, true},
		{"expires_at wins over a longer ttl", &expires, ptr(1e9), expires.Time, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := kernel.Record{CreatedAt: created, ExpiresAt: tt.expiresAt, TTLSeconds: tt.ttl}
			got, ok := r.EffectiveExpiry()
			assert.Equal(t, tt.ok, ok)
			assert.True(t, tt.want.Equal(got), "got %s, want %s", got, tt.want)
		})
	}
}

func TestLongTTLDoesNotWrapIntoThePast(t *testing.T) {
	// A time.Duration holds ~292 years; a longer ttl must still lie ahead.
	created := kernel.At(createdAt)
	for _, ttl := range []float64{1e10, 1e15, 1e300, math.Inf(1)} {
		r := kernel.Record{CreatedAt: created, TTLSeconds: ptr(ttl)}
		exp, ok := r.EffectiveExpiry()
		require.True(t, ok)
		assert.True(t, exp.After(createdAt.AddDate(300, 0, 0)), "ttl %g: expiry %s", ttl, exp)
		assert.False(t, r.Expired(createdAt.AddDate(300, 0, 0)), "ttl %g", ttl)
	}
	r := kernel.Record{CreatedAt: created, TTLSeconds: ptr(1e10)}
	exp, _ := r.EffectiveExpiry()
	assert.Equal(t, createdAt.Unix()+1e10, exp.Unix(), "created_at + ttl_seconds, to the second")
}

func TestExpiredBoundaryIsInclusive(t *testing.T) {
	// J.3: a record with expires_at T is stale from T onward (now >= T).
	at := ts(t, "2026-06-01T00:00:00Z")
	byDate := kernel.Record{CreatedAt: kernel.At(createdAt), ExpiresAt: &at}
	byTTL := kernel.Record{CreatedAt: kernel.At(createdAt), TTLSeconds: ptr(at.Sub(createdAt).Seconds())}
	for name, r := range map[string]kernel.Record{"expires_at": byDate, "ttl_seconds": byTTL} {
		t.Run(name, func(t *testing.T) {
			assert.False(t, r.Expired(at.Add(-time.Millisecond)), "just before")
			assert.True(t, r.Expired(at.Time), "at the instant")
			assert.True(t, r.Expired(at.Add(time.Millisecond)), "just after")
		})
	}

	never := kernel.Record{CreatedAt: kernel.At(createdAt)}
	assert.False(t, never.Expired(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)), "R5: no freshness fields, never stale")

	// Precedence shows in Expired too: a later expires_at outlives an elapsed ttl.
	later := ts(t, "2027-01-01T00:00:00Z")
	both := kernel.Record{CreatedAt: kernel.At(createdAt), ExpiresAt: &later, TTLSeconds: ptr(60.0)}
	assert.False(t, both.Expired(createdAt.Add(time.Hour)))
	assert.Equal(t, kernel.StatusActive, both.EffectiveStatus(), "expiry is derived and never touches status")
}

func TestCloneIsDeep(t *testing.T) {
	v := fixture(t)
	orig := get(t, v, compiledID)
	before := orig.Clone()
	c := orig.Clone()
	c.Tags = append(c.Tags, "x")
	c.Links[0].Kind = "changed"
	c.Provenance.SourceIDs[0] = "changed"
	c.MutationLog[0].Op = "changed"
	assert.Equal(t, before, orig)
}
