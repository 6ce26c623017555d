package gitstore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// adversarialMessages are commit messages a committer with a valid key could
// write by hand to make git's trailer readers and ours disagree: refused
// means DecodeMessage must refuse it (git reads other trailers than we
// would, or the message is not one our encoder writes); accepted ones must
// decode, and to exactly what git reads.
var adversarialMessages = []struct {
	name    string
	msg     string
	refused bool
}{
	{"canonical", "update(concept): t\n\nwhy\n\nRecord-Op: update\nRecord-Id: rec-1\nRecord-Agent: bot\n", false},
	{"canonical without body", "update(concept): t\n\nRecord-Op: update\nRecord-Id: rec-1\n", false},
	{"trailing blank lines", "update(concept): t\n\nRecord-Op: update\nRecord-Id: rec-1\n\n\n", false},
	{"empty value", "update(concept): t\n\nRecord-Op: update\nEvidence-Note: \n", false},
	{"escaped value", "update(concept): t\n\nRecord-Op: update\nEvidence-Note: a\\nRecord-Op: apply\n", false},
	{"indented divider in body", "update(concept): t\n\nwhy\n ---\nmore\n\nRecord-Op: update\n", false},

	{"fake block, divider, real block", "update(concept): t\n\nRecord-Op: apply\nRecord-Id: rec-1\n---\n\nRecord-Op: update\nRecord-Id: rec-1\n", true},
	{"real block, divider, fake block", "update(concept): t\n\nRecord-Op: update\nRecord-Id: rec-1\n---\nRecord-Op: apply\n", true},
	{"divider with trailing space", "update(concept): t\n\nRecord-Op: apply\n--- \n\nRecord-Op: update\n", true},
	{"divider in body before the block", "update(concept): t\n\nwhy\n---\nmore\n\nRecord-Op: update\nRecord-Id: rec-1\n", true},
	{"divider as the subject", "--- x\n\nRecord-Op: update\nRecord-Id: rec-1\n", true},
	{"fake block, scissors, real block", "update(concept): t\n\nRecord-Op: apply\n\n# ------------------------ >8 ------------------------\n\nRecord-Op: update\n", true},
	{"fake block, ; scissors, real block", "update(concept): t\n\nRecord-Op: apply\n\n; ------------------------ >8 ------------------------\n\nRecord-Op: update\n", true},
	{"scissors right after the subject", "update(concept): t\n# ------------------------ >8 ------------------------\n\nRecord-Op: update\n", true},
	{"two trailer blocks", "update(concept): t\n\nRecord-Op: apply\nRecord-Id: rec-1\n\nRecord-Op: update\nRecord-Id: rec-1\n", true},
	{"lower-case trailer in body", "update(concept): t\n\nrecord-op: apply\n\nRecord-Op: update\n", true},
	{"spaced trailer in body", "update(concept): t\n\nRecord-Op :apply\n\nRecord-Op: update\n", true},
	{"trailers in the title paragraph", "Record-Op: apply\nRecord-Id: rec-1\n", true},
	{"no blank line after the subject", "update(concept): t\nRecord-Op: update\nRecord-Id: rec-1\n", true},
	{"whitespace line splits the block", "update(concept): t\n\nRecord-Op: apply\n \nRecord-Op: update\n", true},
	{"tab line splits the block", "update(concept): t\n\nRecord-Op: apply\n\t\nRecord-Op: update\n", true},
	{"CR line splits the block", "update(concept): t\n\nRecord-Op: apply\n\r\nRecord-Op: update\n", true},
	{"CRLF trailer lines", "update(concept): t\n\nRecord-Op: update\r\nRecord-Id: rec-1\r\n", true},
	{"padded value", "update(concept): t\n\nRecord-Op:  update \nRecord-Id: rec-1\n", true},
	{"tab in value", "update(concept): t\n\nRecord-Op: update\nEvidence-Note: a\tb\n", true},
	{"space before separator", "update(concept): t\n\nRecord-Op : update\n", true},
	{"continuation line", "update(concept): t\n\nRecord-Op: update\nEvidence-Note: a\n b\n", true},
	{"comment line in the block", "update(concept): t\n\nRecord-Op: update\n# Record-Op: apply\n", true},
	{"comment after the block", "update(concept): t\n\nRecord-Op: update\n\n# comment\n", true},
	{"conflicts block after the block", "update(concept): t\n\nRecord-Op: update\n\nConflicts:\n\tfile\n", true},
	{"prose in the last paragraph", "update(concept): t\n\nwhy\nRecord-Op: update\nSigned-off-by: a <a@b>\n", true},
	{"git-generated prefix", "update(concept): t\n\nRecord-Op: update\n(cherry picked from commit 1234)\n", true},
}

// TestDecodeMessageAgreesWithGit is the property that closes break 6: for
// every message DecodeMessage accepts, git interpret-trailers --parse (with
// and without the divider rule) and git log's %(trailers) on a real commit,
// under the comment characters a server may use, give exactly our trailers.
func TestDecodeMessageAgreesWithGit(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	git(t, repo, "init", "-q", "--object-format=sha1", ".")
	emptyTree := git(t, repo, "hash-object", "-t", "tree", "-w", "--stdin")
	for _, tt := range adversarialMessages {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeMessage(tt.msg)
			if tt.refused {
				requireCode(t, err, kernel.CodeMissingEvidence)
				return
			}
			require.NoError(t, err)
			requireGitReads(t, repo, emptyTree, tt.msg, got.Trailers)
		})
	}
}

// requireGitReads asserts that every git trailer reader finds exactly want in msg.
func requireGitReads(t *testing.T, repo, tree, msg string, want []kernel.Trailer) {
	t.Helper()
	var lines []string
	for _, tr := range want {
		lines = append(lines, tr.Key+": "+EscapeTrailerValue(tr.Value))
	}
	commit, err := gitInput(repo, []byte(msg), nil, "commit-tree", tree)
	require.NoError(t, err)
	for _, commentChar := range []string{"#", ";"} {
		cfg := []string{"-c", "core.commentChar=" + commentChar}
		for _, flags := range [][]string{{"--parse"}, {"--parse", "--no-divider"}} {
			out, err := gitInput(repo, []byte(msg), nil, append(cfg, append([]string{"interpret-trailers"}, flags...)...)...)
			require.NoError(t, err)
			require.Equal(t, lines, gitTrailerLines(out), "git interpret-trailers %s, core.commentChar=%s, on:\n%q", strings.Join(flags, " "), commentChar, msg)
		}
		out := git(t, repo, append(cfg, "log", "-1", "--format=%(trailers:only,unfold)", commit)...)
		require.Equal(t, lines, gitTrailerLines(out), "git log %%(trailers), core.commentChar=%s, on:\n%q", commentChar, msg)
	}
}

// gitTrailerLines normalises git's listing: git prints an empty value
// without the space after the colon.
func gitTrailerLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		if strings.HasSuffix(l, ":") {
			l += " "
		}
		lines = append(lines, l)
	}
	return lines
}

// FuzzMessageRoundTrip: whatever the free text holds, DecodeMessage accepts
// what EncodeMessage writes and gives back its trailers, subject and note.
func FuzzMessageRoundTrip(f *testing.F) {
	for _, v := range hostileValues {
		f.Add("t", v, v)
	}
	for _, a := range forgeryAttempts {
		f.Add(a.title, a.body, a.value)
	}
	for _, m := range adversarialMessages {
		f.Add(m.msg, m.msg, m.msg)
	}
	f.Fuzz(func(t *testing.T, title, body, value string) {
		m := CommitMessage{
			Subject: (&kernel.Mutation{Op: kernel.OpUpdate, Type: "concept", Title: title}).Subject(),
			Body:    body,
			Trailers: []kernel.Trailer{
				{Key: kernel.TrailerOp, Value: "update"},
				{Key: kernel.TrailerNote, Value: value},
			},
		}
		enc := EncodeMessage(m)
		got, err := DecodeMessage(enc)
		require.NoError(t, err, "message:\n%q", enc)
		require.Equal(t, oneLine(m.Subject), got.Subject)
		require.Equal(t, strings.TrimSpace(body), got.Body)
		require.Equal(t, "update", got.Get(kernel.TrailerOp))
		require.Equal(t, strings.TrimSpace(EscapeTrailerValue(value)), EscapeTrailerValue(got.Get(kernel.TrailerNote)))

		// Any subject, not only an op's: the encoder escapes it too.
		m.Subject = title
		got, err = DecodeMessage(EncodeMessage(m))
		require.NoError(t, err, "message:\n%q", EncodeMessage(m))
		require.Equal(t, oneLine(title), got.Subject)
	})
}
