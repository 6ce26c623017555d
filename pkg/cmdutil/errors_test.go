package cmdutil

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/kernel"
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
