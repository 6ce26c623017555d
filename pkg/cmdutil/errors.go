package cmdutil

import (
	"errors"
	"maps"
	"strconv"
	"strings"

	"github.com/git-records/git-records/kernel"
)

// Exit codes. Documented in the README; scripts rely on them.
const (
	ExitOK       = 0
	ExitRefused  = 1 // the op was refused: bad input, missing evidence, not found, ambiguous, conflict of ids
	ExitUsage    = 2 // the command line itself is wrong
	ExitConflict = 3 // the branch kept moving (compare-and-swap lost too often)
	ExitDenied   = 4 // the policy forbids it
	ExitSetup    = 5 // no repository / store, no signing key, signing failed
	ExitInternal = 70
)

// ExitCode is the exit status a kernel error code ends the process with.
func ExitCode(code kernel.Code) int {
	switch code {
	case kernel.CodeUsage:
		return ExitUsage
	case kernel.CodeConflict:
		return ExitConflict
	case kernel.CodePermissionDenied, kernel.CodeNotOwner:
		return ExitDenied
	case kernel.CodeNotAStore, kernel.CodeNotInitialized, kernel.CodeNoSigningKey, kernel.CodeSigningFailed, kernel.CodeFormatTooNew, kernel.CodeFormatOutdated, kernel.CodeNotInstalled:
		return ExitSetup
	case kernel.CodeInternal:
		return ExitInternal
	}
	return ExitRefused
}

// SilentError ends a command with exit status 1 after the command has said
// all there is to say: verify's report, diff --exit-code's differences,
// fresh --exit-code's stale records, a hook's rejection, a contract error
// envelope already written. It is the only such value: a command that
// has reported its own failure returns it (or wraps it).
var SilentError = errors.New("exit status 1")

// FlagFor names, for each input field the kernel's errors speak of in the
// contract's terms, what sets it on the command line.
var FlagFor = map[string]string{
	"provenance.agent":          "--agent (or GIT_RECORDS_AGENT)",
	"evidence.agent":            "--agent (or GIT_RECORDS_AGENT)",
	"type":                      "--type",
	"title":                     "--title",
	"body":                      "--body",
	"category":                  "--category",
	"expires_at":                "--expires-at",
	"ttl_seconds":               "--ttl-seconds",
	"evidence.proposal":         "--proposal",
	"evidence.new_body":         "--body",
	"evidence.rationale":        "--rationale",
	"evidence.reason":           "--reason",
	"evidence.implementedByRef": "--implemented-by",
	"limit":                     "--limit",
	"evidence.session_id":       "--session",
	"owner":                     "--owner",
	"aliases":                   "--alias",
}

// InCLITerms rewrites an error about an input field so that it names the
// flag or variable to set, and says which in "flag".
func InCLITerms(e *kernel.Error) *kernel.Error {
	field, _ := e.Extra["field"].(string)
	flag, ok := FlagFor[field]
	if strings.HasPrefix(field, "--") { // the command line's own check names the flag
		flag, ok = field, true
	}
	if !ok {
		return e
	}
	out := *e
	out.Extra = maps.Clone(e.Extra)
	out.Message = strings.Replace(e.Message, field, flag, 1)
	out.Extra["flag"] = strings.Fields(flag)[0]
	return &out
}

// AsKernelError is err as the kernel error the CLI reports: a kernel error
// as is, anything else (cobra's own: unknown flags, wrong argument counts)
// as a usage error.
func AsKernelError(err error) *kernel.Error {
	var ke *kernel.Error
	if errors.As(err, &ke) {
		return ke
	}
	return &kernel.Error{Code: kernel.CodeUsage, Message: err.Error()}
}

// JSONRequested reports whether args hold --json (before any "--"), as
// pflag would read it: --json, or --json=<bool>. An unknown command, or a
// bad flag before --json, fails before the flags are parsed: a script that
// asked for JSON still gets its envelope.
func JSONRequested(args []string) bool {
	on := false
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "--json" {
			on = true
		} else if v, ok := strings.CutPrefix(arg, "--json="); ok {
			on, _ = strconv.ParseBool(v)
		}
	}
	return on
}
