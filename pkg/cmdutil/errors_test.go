package cmdutil

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// TestExitCodes: each class of kernel error ends the process with the
// status the README documents.
func TestExitCodes(t *testing.T) {
	for code, want := range map[kernel.Code]int{
		kernel.CodeUsage:            ExitUsage,
		kernel.CodeConflict:         ExitConflict,
		kernel.CodePermissionDenied: ExitDenied,
		kernel.CodeNotOwner:         ExitDenied,
		kernel.CodeNotInitialized:   ExitSetup,
		kernel.CodeNoSigningKey:     ExitSetup,
		kernel.CodeNotInstalled:     ExitSetup,
		kernel.CodeInternal:         ExitInternal,
		kernel.CodeNotFound:         ExitRefused,
		kernel.CodeMissingEvidence:  ExitRefused,
	} {
		assert.Equal(t, want, ExitCode(code), code)
	}
}

// TestErrorsInCLITerms: an error about an input field names the flag; one
// that is not a kernel error is a usage error; a wrapped SilentError is
// still silent.
func TestErrorsInCLITerms(t *testing.T) {
	e := kernel.Errorf(kernel.CodeMissingEvidence, "provenance.agent is required").WithExtra("field", "provenance.agent")
	got := InCLITerms(e)
	assert.Equal(t, "--agent (or GIT_RECORDS_AGENT) is required", got.Message)
	assert.Equal(t, "--agent", got.Extra["flag"])
	assert.Nil(t, e.Extra["flag"], "the original is left alone")

	assert.Equal(t, kernel.CodeUsage, AsKernelError(errors.New(`unknown flag: --bogus`)).Code)
	assert.Equal(t, kernel.CodeNotFound, AsKernelError(fmt.Errorf("wrapped: %w", kernel.Errorf(kernel.CodeNotFound, "x"))).Code)
	assert.ErrorIs(t, fmt.Errorf("verify: %w", SilentError), SilentError)

	assert.True(t, JSONRequested([]string{"frobnicate", "--json"}))
	assert.False(t, JSONRequested([]string{"--json=false"}))
	assert.False(t, JSONRequested([]string{"--", "--json"}), "after -- it is an argument")
}

// TestFlagNaming: the field stands replaced by its flag only where it is a
// word of its own; a message that does not name its field starts with the
// flag; a command's own flag for a field wins over FlagFor; AboutFlag names
// the flag of an error that knows no field and leaves one that does.
func TestFlagNaming(t *testing.T) {
	e := kernel.Errorf(kernel.CodeInvalidID, `invalid id "X Y": an id is one segment`).WithField("id")
	assert.Equal(t, `invalid --id "X Y": an id is one segment`, InCLITerms(e).Message)

	e = kernel.Errorf(kernel.CodeMissingEvidence, `invalid link kind "K"`).WithField("links.kind")
	assert.Equal(t, `--link: invalid link kind "K"`, InCLITerms(e).Message)
	link := &cobra.Command{Use: "link"}
	SetFlagFor(link, "links.kind", "--kind")
	got := InCLITermsOf(link, e)
	assert.Equal(t, `--kind: invalid link kind "K"`, got.Message)
	assert.Equal(t, "--kind", got.Extra["flag"])

	rev := kernel.Errorf(kernel.CodeNotFound, `unknown revision "r"`)
	assert.Equal(t, `--at: unknown revision "r"`, AboutFlag("--at", rev).(*kernel.Error).Message)
	typ := kernel.Errorf(kernel.CodeInvalidRecord, `type "T" is unknown`).WithField("type")
	assert.Same(t, typ, AboutFlag("--at", typ), "an error about a field is InCLITerms' to name")
	_, err := service.Selection{Filter: service.Filter{Type: "T"}}.Query()
	bad := err.(*kernel.Error)
	assert.Equal(t, kernel.CodeUsage, bad.Code, "a filter's bad value is a usage error")
	assert.True(t, strings.HasPrefix(InCLITerms(bad).Message, `--type "T" is unknown`), InCLITerms(bad).Message)
	_, err = service.Selection{Status: "gone"}.Query()
	assert.Equal(t, `--status "gone" is not one of active, implemented, retired`, err.(*kernel.Error).Message)
}
