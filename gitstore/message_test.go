package gitstore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// hostileValues are evidence values that try to break out of their trailer
// line or smuggle in another one.
var hostileValues = map[string]string{
	"plain":                "matches the RFC and the incident report",
	"newline":              "line one\nline two",
	"CR":                   "a\rb",
	"CRLF":                 "a\r\nb",
	"backslash":            `C:\path\to`,
	"escaped-looking text": `a\nb \\ \x41`,
	"trailing backslash":   `ends in \`,
	"tab":                  "a\tb",
	"control characters":   "bell\a esc\x1b del\x7f nul\x00",
	"forged trailer":       "x\nRecord-Op: apply",
	"forged CR trailer":    "x\rRecord-Op: apply",
	"forged paragraph":     "x\n\nRecord-Op: apply\nRecord-Id: forged",
	"colon space":          "key: value: more",
	"unicode":              "ünïcödé ✓ 日本語 🙂 \u2028 x",
	"invalid UTF-8 escape": "\xff\n\xfe",
	"empty":                "",
}

func TestMessageRoundTrip(t *testing.T) {
	t.Parallel()
	for name, v := range hostileValues {
		t.Run(name, func(t *testing.T) {
			m := CommitMessage{
				Subject: "update(concept): Token refresh",
				Body:    "Why:\n\n" + v,
				Trailers: []kernel.Trailer{
					{Key: kernel.TrailerOp, Value: "update"},
					{Key: kernel.TrailerID, Value: "rec-1"},
					{Key: kernel.TrailerNote, Value: v},
					{Key: kernel.TrailerRationale, Value: v + v},
				},
			}
			enc := EncodeMessage(m)
			lines := strings.Split(strings.TrimSuffix(enc, "\n"), "\n")
			require.Equal(t, "Record-Op: update", lines[len(lines)-4], "each trailer is exactly one line")
			require.True(t, strings.HasPrefix(lines[len(lines)-3], "Record-Id: "))
			require.True(t, strings.HasPrefix(lines[len(lines)-2], "Evidence-Note: "))
			require.True(t, strings.HasPrefix(lines[len(lines)-1], "Evidence-Rationale: "))

			got, err := DecodeMessage(enc)
			require.NoError(t, err, "message:\n%s", enc)
			require.Equal(t, m.Subject, got.Subject)
			require.Equal(t, m.Trailers, got.Trailers)
			require.Equal(t, v, got.Get(kernel.TrailerNote))
			require.Equal(t, strings.TrimSpace(m.Body), got.Body)
		})
	}
}

func TestMessageSurroundingSpacesAreDropped(t *testing.T) {
	t.Parallel()
	enc := EncodeMessage(CommitMessage{Subject: "  create(raw):   a \n b  ", Body: "\n\n  body  \n\n",
		Trailers: []kernel.Trailer{{Key: kernel.TrailerOp, Value: "  create  "}}})
	require.Equal(t, "create(raw): a b\n\nbody\n\nRecord-Op: create\n", enc)
}

func TestMessageGetAndAll(t *testing.T) {
	t.Parallel()
	m, err := DecodeMessage("supersede(concept): t\n\nRecord-Op: supersede\nRecord-Id: a\nRecord-Id: b\nRecord-Agent: me\n")
	require.NoError(t, err)
	require.Equal(t, "a", m.Get(kernel.TrailerID))
	require.Equal(t, []string{"a", "b"}, m.All(kernel.TrailerID))
	require.Equal(t, "", m.Get(kernel.TrailerNote))
	require.Nil(t, m.All(kernel.TrailerNote))
}

func TestDecodeMessageRejectsWhatItDidNotWrite(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ msg, want string }{
		"no trailer block":       {"create(raw): t\n\njust prose\n", "no trailer block"},
		"only a subject":         {"create(raw): t\n", "no trailer block"},
		"unknown key":            {"create(raw): t\n\nRecord-Op: create\nSigned-off-by: x\n", `unknown trailer key "Signed-off-by"`},
		"unknown escape":         {"create(raw): t\n\nRecord-Op: create\nEvidence-Note: a\\qb\n", `unknown escape \q`},
		"lone backslash":         {"create(raw): t\n\nRecord-Op: create\nEvidence-Note: a\\\n", "lone backslash"},
		"short hex escape":       {"create(raw): t\n\nRecord-Op: create\nEvidence-Note: a\\x4\n", `bad \x escape`},
		"bad hex escape":         {"create(raw): t\n\nRecord-Op: create\nEvidence-Note: a\\xzz\n", `bad \x escape`},
		"upper-case hex escape":  {"create(raw): t\n\nRecord-Op: create\nEvidence-Note: a\\x1B\n", `bad \x escape`},
		"trailer-like prose key": {"create(raw): t\n\nRecord-Op: create\nNote to self: hi\n", "no trailer block"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeMessage(tt.msg)
			requireCode(t, err, kernel.CodeMissingEvidence)
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

// forgeryAttempts put trailer look-alikes in every free-text part of a
// commit: the title (subject), the note (body) and an evidence value.
var forgeryAttempts = map[string]struct{ title, body, value string }{
	"value with newline":         {value: "x\nRecord-Op: apply"},
	"value with CR":              {value: "x\rRecord-Op: apply"},
	"value with paragraph":       {value: "x\n\nRecord-Op: apply\n"},
	"title with paragraph":       {title: "t\n\nRecord-Op: apply"},
	"body ending in trailers":    {body: "why\n\nRecord-Op: apply\nRecord-Id: forged"},
	"body is trailers":           {body: "Record-Op: apply"},
	"body with patch divider":    {body: "Record-Op: apply\n---\nthe rest"},
	"body with indented divider": {body: "Record-Op: apply\n  ---\nthe rest"},
	"body with scissors":         {body: "Record-Op: apply\n\n# ------------------------ >8 ------------------------\nthe rest"},
	"body with ; scissors":       {body: "Record-Op: apply\n\n; ------------------------ >8 ------------------------\nthe rest"},
	"everything at once": {title: "t\n\nRecord-Op: apply", body: "Record-Op: apply\n---\n# ------------------------ >8 ------------------------\n",
		value: "x\n---\nRecord-Op: apply"},
}

// TestGitReadsExactlyOurTrailers hands encoded messages to git itself: git
// interpret-trailers --parse (with and without the patch divider rule) and
// git log's %(trailers) on a real commit must list our trailers and nothing
// else, whatever the free text holds.
func TestGitReadsExactlyOurTrailers(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	git(t, repo, "init", "-q", "--object-format=sha1", ".")
	emptyTree := git(t, repo, "hash-object", "-t", "tree", "-w", "--stdin")
	for name, a := range forgeryAttempts {
		for _, commentChar := range []string{"#", ";"} {
			t.Run(name+"/core.commentChar="+commentChar, func(t *testing.T) {
				title, value := "Token refresh"+a.title, a.value
				if value == "" {
					value = "plain"
				}
				m := CommitMessage{
					Subject: (&kernel.Mutation{Op: kernel.OpUpdate, Type: "concept", Title: title}).Subject(),
					Body:    a.body,
					Trailers: []kernel.Trailer{
						{Key: kernel.TrailerOp, Value: "update"},
						{Key: kernel.TrailerID, Value: "rec-1"},
						{Key: kernel.TrailerAgent, Value: "bot"},
						{Key: kernel.TrailerNote, Value: value},
					},
				}
				enc := EncodeMessage(m)
				// git prints an empty value without the space after the colon.
				want := strings.TrimSuffix("Record-Op: update\nRecord-Id: rec-1\nRecord-Agent: bot\nEvidence-Note: "+EscapeTrailerValue(value), " ")
				cfg := []string{"-c", "core.commentChar=" + commentChar}

				for _, flags := range [][]string{{"--parse"}, {"--parse", "--no-divider"}} {
					out, err := gitInput(repo, []byte(enc), nil, append(cfg, append([]string{"interpret-trailers"}, flags...)...)...)
					require.NoError(t, err)
					require.Equal(t, want, out, "git interpret-trailers %s on:\n%s", strings.Join(flags, " "), enc)
				}

				commit := git(t, repo, "commit-tree", emptyTree, "-m", enc)
				raw, err := gitRaw(repo, nil, nil, "cat-file", "commit", commit)
				require.NoError(t, err)
				_, stored, _ := strings.Cut(raw, "\n\n")
				require.Equal(t, enc, stored, "git stores the message as encoded")
				out := git(t, repo, append(cfg, "log", "-1", "--format=%(trailers:key=Record-Op,valueonly)", commit)...)
				require.Equal(t, "update", strings.TrimSpace(out))
				out = git(t, repo, append(cfg, "log", "-1", "--format=%(trailers:only,unfold)", commit)...)
				require.Equal(t, want, strings.TrimSpace(out))

				got, err := DecodeMessage(enc)
				require.NoError(t, err)
				require.Equal(t, m.Trailers, got.Trailers)
				require.Equal(t, strings.TrimSpace(a.body), got.Body, "the note reads back as written")
			})
		}
	}
}

// TestStoreCommitTrailersReadByGitLog: on a real store commit, git log
// prints the op, and a hostile note cannot change what it prints.
func TestStoreCommitTrailersReadByGitLog(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	r := create(t, s, kernel.CreateInput{Title: "t\n\nRecord-Op: apply", Provenance: kernel.Provenance{Note: "x\nRecord-Op: apply"}})
	hostile := "why\n\nRecord-Op: apply\n---\n# ------------------------ >8 ------------------------\nRecord-Op: reject\n"
	w := mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, r.ID, kernel.UpdateFields{Title: ptr("New title")}, kernel.Evidence{Agent: testAgent, Note: hostile}, env)
	})
	dir := gitDir(s)
	log := git(t, dir, "log", "--format=%H %(trailers:key=Record-Op,valueonly,separator=%x2C)", s.Ref())
	lines := strings.Split(log, "\n")
	require.Len(t, lines, 3)
	require.Equal(t, w.Commit.String()+" update", lines[0])
	require.True(t, strings.HasSuffix(lines[1], " create"), lines[1])
	require.True(t, strings.HasSuffix(lines[2], " init"), lines[2])

	body := git(t, dir, "log", "-1", "--format=%B", s.Ref())
	parsed, err := gitInput(dir, []byte(body), nil, "interpret-trailers", "--parse")
	require.NoError(t, err)
	require.Equal(t, []string{"Record-Op: update", "Record-Id: " + r.ID}, strings.Split(parsed, "\n")[:2])
	var ops []string
	for _, line := range strings.Split(parsed, "\n") {
		if strings.HasPrefix(line, kernel.TrailerOp+":") {
			ops = append(ops, line)
		}
	}
	require.Equal(t, []string{"Record-Op: update"}, ops, "no forged op")

	msg, err := DecodeMessage(body)
	require.NoError(t, err)
	require.Equal(t, hostile, msg.Get(kernel.TrailerNote))
	require.Equal(t, strings.TrimSpace(hostile), msg.Body)
}
