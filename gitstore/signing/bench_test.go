package signing

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchPayload is the size of a typical record commit: headers plus a
// message with a handful of trailers.
var benchPayload = []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
	"parent 0123456789abcdef0123456789abcdef01234567\n" +
	"author reviewer-bot <bot@example.com> 1700000000 +0100\n" +
	"committer reviewer-bot <bot@example.com> 1700000000 +0100\n\n" +
	"apply(concept): Token refresh policy\n\nAccept the proposal from the review of PR 42.\n\n" +
	"Record-Op: apply\nRecord-Id: rec_01jd8x\nRecord-Agent: reviewer-bot\nRecord-Format: 1\n" +
	"Evidence-Proposer: rec_01jd7q\nEvidence-Rationale: matches the RFC and the incident report\n")

func benchSigner(b *testing.B, opts ...Option) (Signer, string) {
	isolate(b)
	priv, pub := newKey(b, "bench")
	s, err := FromConfig(mapConfig{"records.signingkey": priv}, "", "", opts...)
	require.NoError(b, err)
	return s, pub
}

func BenchmarkSignSSHInProcess(b *testing.B) {
	s, _ := benchSigner(b)
	for b.Loop() {
		if _, err := s.Sign(benchPayload); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSignSSHKeygen(b *testing.B) {
	s, _ := benchSigner(b, ExecOnly())
	for b.Loop() {
		if _, err := s.Sign(benchPayload); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifySSH verifies against a 20-entry allowed-signers file with
// the signer listed last, the per-commit cost of `verify`.
func BenchmarkVerifySSH(b *testing.B) {
	s, pub := benchSigner(b)
	sig, err := s.Sign(benchPayload)
	require.NoError(b, err)
	var file strings.Builder
	for i := range 19 {
		_, other := newKey(b, fmt.Sprint("other", i))
		file.WriteString(AllowedSignersLine(fmt.Sprintf("user%d@example.com", i), other) + "\n")
	}
	file.WriteString(AllowedSignersLine("bench@example.com", pub) + "\n")
	signers := parseSigners(b, file.String())
	for b.Loop() {
		if _, _, err := VerifySSH(signers, benchPayload, sig, commitTime); err != nil {
			b.Fatal(err)
		}
	}
}
