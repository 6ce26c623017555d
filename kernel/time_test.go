package kernel_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/kernel"
)

func TestCheckCommitTime(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	parent := now.Add(-time.Hour)
	for _, tc := range []struct {
		name      string
		committed time.Time
		parents   []time.Time
		wantErr   string
	}{
		{"after its parent", now, []time.Time{parent}, ""},
		{"same second as its parent", parent.Add(500 * time.Millisecond), []time.Time{parent}, ""},
		{"root commit", now, nil, ""},
		{"one second before its parent", parent.Add(-time.Second), []time.Time{parent}, "dated before its parent"},
		{"backdated a year", parent.AddDate(-1, 0, 0), []time.Time{parent}, "dated before its parent"},
		{"before the second parent of a merge", parent, []time.Time{parent.Add(-time.Hour), parent.Add(time.Second)}, "dated before its parent"},
		{"ahead by the skew", now.Add(kernel.MaxClockSkew), []time.Time{parent}, ""},
		{"ahead by more than the skew", now.Add(kernel.MaxClockSkew + time.Second), []time.Time{parent}, "after the judge's clock"},
		{"in 2099", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), nil, "dated 2099-01-01T00:00:00Z"},
		{"other time zone, same instant", parent.In(time.FixedZone("x", -5*3600)), []time.Time{parent}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := kernel.CheckCommitTime(tc.committed, tc.parents, now)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.wantErr)
			assert.True(t, kernel.IsCode(err, kernel.CodeVerifyFailed))
		})
	}
}

func TestCommitTimePassesTheRule(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, parents := range [][]time.Time{nil, {now.Add(-time.Minute)}, {now.Add(3 * time.Minute)}, {now.Add(-time.Hour), now.Add(2 * time.Minute)}} {
		got := kernel.CommitTime(now.Add(300*time.Millisecond), parents)
		assert.NoError(t, kernel.CheckCommitTime(got, parents, now), "parents %v", parents)
		assert.Equal(t, 0, got.Nanosecond())
	}
}

func TestSigningInstants(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	assert.Equal(t, []time.Time{at}, kernel.SigningInstants(at, time.Time{}), "history: the commit date only")
	recv := at.Add(time.Hour)
	assert.Equal(t, []time.Time{at, recv}, kernel.SigningInstants(at, recv), "receipt: the commit date and now")
}
