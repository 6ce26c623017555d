package kernel

import (
	"strconv"
	"strings"
	"time"
)

// MaxClockSkew is how far ahead of the judge's clock a commit may be dated:
// the clocks of the committer's machine and the server disagree a little.
// At push time the server's clock is the judge; for verify of history, the
// clock of the machine running it.
const MaxClockSkew = 5 * time.Minute

// CheckCommitTime is the rule on a record commit's committer date, which its
// signer chooses: not before any parent's (no backwards skew at all: our
// writer dates a commit no earlier than its parents, see CommitTime) and
// not after now plus MaxClockSkew. Without it a signer whose key's
// valid-before has passed could date new commits back into the window, and
// any signer could date them into the future. Dates compare at git's
// one-second resolution.
func CheckCommitTime(committed time.Time, parents []time.Time, now time.Time) error {
	for _, p := range parents {
		if committed.Unix() < p.Unix() {
			return Errorf(CodeVerifyFailed, "commit is dated before its parent (%s < %s): a record commit is never older than what it builds on",
				stamp(committed), stamp(p))
		}
	}
	if limit := now.Add(MaxClockSkew); committed.Unix() > limit.Unix() {
		return Errorf(CodeVerifyFailed, "commit is dated %s, after the judge's clock (%s) by more than %s", stamp(committed), stamp(now), MaxClockSkew)
	}
	return nil
}

// CommitTime is the committer date a writer gives a new commit: now, or the
// latest parent's date when that is later (another machine's clock ran
// ahead), so what it writes passes CheckCommitTime.
func CommitTime(now time.Time, parents []time.Time) time.Time {
	t := now.Truncate(time.Second)
	for _, p := range parents {
		if p.Unix() > t.Unix() {
			t = time.Unix(p.Unix(), 0).In(now.Location())
		}
	}
	return t
}

// SigningInstants are the instants at which a commit's signing key must be
// valid (allowed_signers valid-after/valid-before, certificate validity):
// its date and, when it is being received (receivedAt non-zero: server
// hooks, pre-push), the time of receipt as well, so a key whose window has
// closed cannot sign new commits. History is judged at the commit date,
// which CheckCommitTime keeps from being backdated below the parent.
func SigningInstants(committed, receivedAt time.Time) []time.Time {
	if receivedAt.IsZero() {
		return []time.Time{committed}
	}
	return []time.Time{committed, receivedAt}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ParseTimeSpec reads a point in time as a user gives one on a command
// line: an RFC 3339 time, a date (YYYY-MM-DD, midnight UTC), or an age
// before now ("90m", "36h", "7d", "2w"). flag names the flag it came from,
// for the USAGE error.
func ParseTimeSpec(flag, s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.UTC(), nil
	}
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		if days, err := strconv.Atoi(s[:n-1]); err == nil && days >= 0 {
			if s[n-1] == 'w' {
				days *= 7
			}
			return now.UTC().AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.UTC().Add(-d), nil
	}
	return time.Time{}, Errorf(CodeUsage, "%s %q is not a time: give an RFC 3339 time (2026-05-01T12:00:00Z), a date (2026-05-01) or an age (36h, 7d, 2w)", flag, s).
		WithExtra("flag", flag)
}
