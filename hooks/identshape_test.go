package hooks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyRefusesAMalformedIdent: verify judges a commit's date (the
// time rule, the key's validity window) as our decoder reads it, which
// follows go-git's lenient rule; git reads a malformed committer line
// differently ("A <a@x>1764000000 +0000" is 2025 to git, 1994 to go-git's
// rule). A signed commit whose author or committer line git fsck --strict
// refuses is refused; the same commit re-signed with its lines intact
// passes, so the refusal is the line's doing.
func TestVerifyRefusesAMalformedIdent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	tip := revParse(t, dir, "HEAD")
	_, _, whole := handCreate(t, w, dir, "ident-1")
	raw := git(t, dir, "cat-file", "commit", whole)

	// resign rewrites the commit's header line starting with key as
	// line, signs the result with the contributor's key and writes it.
	resign := func(key, line string) string {
		var head []string
		headers, msg, ok := strings.Cut(raw, "\n\n")
		require.True(t, ok)
		inSig := false
		for _, l := range strings.Split(headers, "\n") {
			switch {
			case strings.HasPrefix(l, "gpgsig "):
				inSig = true
			case inSig && strings.HasPrefix(l, " "):
			case strings.HasPrefix(l, key+" "):
				inSig = false
				head = append(head, line)
			default:
				inSig = false
				head = append(head, l)
			}
		}
		payload := strings.Join(head, "\n") + "\n\n" + msg
		r := run(t, dir, payload, nil, "ssh-keygen", "-q", "-Y", "sign", "-n", "git", "-f", w.key)
		require.Equal(t, 0, r.code, "%s", r)
		sig := strings.ReplaceAll(strings.TrimRight(r.stdout, "\n"), "\n", "\n ")
		signed := strings.Join(head, "\n") + "\ngpgsig " + sig + "\n\n" + msg
		r = run(t, dir, signed, nil, "git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin")
		require.Equal(t, 0, r.code, "%s", r)
		return strings.TrimSpace(r.stdout)
	}
	committer := ""
	for _, l := range strings.Split(raw, "\n") {
		if strings.HasPrefix(l, "committer ") {
			committer = l
			break
		}
	}
	name, date, ok := strings.Cut(committer, "> ")
	require.True(t, ok, committer)

	same := resign("committer", committer)
	rep := verifyJSON(t, dir, 0, tip+".."+same)
	require.True(t, rep.OK, "the commit re-signed with its lines intact is valid: %+v", rep.Violations)

	for what, tc := range map[string]struct{ line, says string }{
		"no space before the date":   {name + ">" + date, "malformed"},
		"two spaces before the date": {name + ">  " + date, "malformed"},
		"a date git reads as zero":   {name + "> x" + date, "malformed"},
		"an author without email":    {"author Mallory " + date, "malformed"},
		// git log would show the message re-encoded from Latin-1.
		"a message not in UTF-8": {committer + "\nencoding ISO-8859-1", "declares encoding"},
	} {
		t.Run(what, func(t *testing.T) {
			key := "committer"
			if strings.HasPrefix(tc.line, "author ") {
				key = "author"
			}
			forged := resign(key, tc.line)
			r := rec(t, dir, "--json", "verify", tip+".."+forged)
			require.NotEqual(t, 0, r.code, "a commit with a malformed %s line must not verify:\n%s", key, r)
			assert.NotContains(t, r.stdout, `"ok": true`, "%s", r)
			assert.Contains(t, r.stdout, tc.says, "%s", r)
		})
	}
}
