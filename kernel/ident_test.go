package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// CheckIdent accepts what git fsck --strict accepts and refuses its
// badDate, badTimezone, badEmail, zeroPaddedDate, missingSpaceBeforeDate,
// missingSpaceBeforeEmail and missingNameBeforeEmail shapes (the git CLI
// parity is in hooks' TestVerifyRefusesAMalformedIdent).
func TestCheckIdent(t *testing.T) {
	for _, ok := range []string{
		"Ann <ann@example.com> 1764000000 +0000",
		"Ann Lee <ann@example.com> 0 -0130",
		"A <> 1764000000 +0100",
		"x <a@x> 1 +9999",
	} {
		assert.NoError(t, CheckIdent("committer", ok), "%q", ok)
	}
	for _, bad := range []string{
		"",
		"<a@x> 1764000000 +0000",
		"A <a@x>1764000000 +0000",
		"A <a@x>  1764000000 +0000",
		"A <a@x> x1764000000 +0000",
		"A <a@x> 01764000000 +0000",
		"A <a@x> 1764000000",
		"A <a@x> 1764000000 +000",
		"A <a@x> 1764000000 +00000",
		"A <a@x> 1764000000 0000",
		"A <a@x> 1764000000 +00a0",
		"A <a@x> 1764000000 +0000 ",
		"A<a@x> 1764000000 +0000",
		"A <a@x <b@y> 1764000000 +0000",
		"A > <a@x> 1764000000 +0000",
		"A <a@x> <b@y> 1764000000 +0000",
		"A a@x 1764000000 +0000",
		"A <a@x> 99999999999999999999 +0000",
	} {
		assert.Error(t, CheckIdent("committer", bad), "%q", bad)
	}
}

func TestCheckCommitEncoding(t *testing.T) {
	for _, ok := range []string{"", "UTF-8", "utf-8", "UTF8"} {
		assert.NoError(t, CheckCommitEncoding(ok), "%q", ok)
	}
	for _, bad := range []string{"ISO-8859-1", "latin1", "UTF-16", "utf-8 "} {
		assert.Error(t, CheckCommitEncoding(bad), "%q", bad)
	}
}
