// Package verbtest holds the tests of the pkg/cmd/<noun>/<verb> commands,
// one file per verb (<noun>_<verb>_test.go). Each test builds its command
// with NewCmd<Verb> and runs it in-process through cmdtest.Run against a
// real repository (real git). They live together so that `make test` links
// one test binary for them instead of one per verb: each of those binaries
// linked about 360 packages, about 2 s of CPU apiece, for one small file.
//
// A test of a verb goes in that verb's file here; what it needs from the
// verb package must be exported (links.WriteLine is, for its test).
package verbtest

import (
	"testing"

	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m) }
