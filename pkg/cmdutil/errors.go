package cmdutil

import (
	"errors"
	"maps"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

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
	ExitSkipped  = 6 // import left out notes it could not read, that break a rule or conflict with a change here; it imported the rest
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

// SkippedError ends import with exit status 6 after its report has named
// every note it left out (and the commit that holds the rest).
var SkippedError = errors.New("exit status 6")

// FlagFor names, for each input field the kernel's errors speak of in the
// contract's terms, what sets it on the command line. It is the one place
// an error about a field becomes an error about a flag; a command whose
// flag for a field differs says so with SetFlagFor.
var FlagFor = map[string]string{
	"provenance.agent":          "--agent (or GIT_RECORDS_AGENT)",
	"evidence.agent":            "--agent (or GIT_RECORDS_AGENT)",
	"id":                        "--id",
	"type":                      "--type",
	"title":                     "--title",
	"body":                      "--body",
	"category":                  "--category",
	"tags":                      "--tag",
	"tag":                       "--tag",
	"aliases":                   "--alias",
	"links":                     "--link",
	"links.target_id":           "--link",
	"links.kind":                "--link",
	"links.label":               "--link",
	"link target_id":            "--link",
	"link label":                "--link",
	"kind":                      "--kind",
	"role":                      "--role",
	"authority":                 "--authority",
	"from":                      "--from",
	"to":                        "--to",
	"relation":                  "--relation",
	"scope":                     "--scope",
	"extension_contract":        "--accepts or --produces",
	"expires_at":                "--expires-at",
	"ttl_seconds":               "--ttl-seconds",
	"provenance.session_id":     "--session",
	"provenance.note":           "--note",
	"evidence.note":             "--note",
	"evidence.proposal":         "--proposal",
	"evidence.new_body":         "--body",
	"evidence.rationale":        "--rationale",
	"evidence.reason":           "--reason",
	"evidence.implementedByRef": "--implemented-by",
	"proposer_id":               "--proposer",
	"target_status":             "--status",
	"since_commit":              "--since-commit",
	"records":                   "--record",
	"since":                     "--since",
	"bindings_from":             "--bindings-from",
	"ref":                       "--ref (or git config records.ref)",
	"store":                     "--store",
	"limit":                     "--limit",
	"evidence.session_id":       "--session",
	"owner":                     "--owner",
	"state":                     "--state",
	"parent-job":                "--parent-job",
	"parent-dispatch":           "--parent-dispatch",
	"parent-work-item":          "--parent-work-item",
	"format":                    "--format",
}

// flagForAnnotation prefixes the cobra annotation in which a command
// names its own flag for a field (SetFlagFor).
const flagForAnnotation = "flag-for:"

// SetFlagFor says that on c the flag for field is flag, not FlagFor's:
// link sets a link's target with --to, where create takes --link.
func SetFlagFor(c *cobra.Command, field, flag string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[flagForAnnotation+field] = flag
}

// InCLITerms is InCLITermsOf for no command in particular.
func InCLITerms(e *kernel.Error) *kernel.Error { return InCLITermsOf(nil, e) }

// InCLITermsOf rewrites an error about an input field so that it names the
// flag (or variable) of cmd that sets it, and says which in "flag". An
// error that names its flag already is left as it is.
func InCLITermsOf(cmd *cobra.Command, e *kernel.Error) *kernel.Error {
	if _, ok := e.Extra["flag"]; ok {
		return e
	}
	field, _ := e.Extra["field"].(string)
	if field == "" {
		return e
	}
	flag, ok := FlagFor[field]
	if cmd != nil {
		if own, set := cmd.Annotations[flagForAnnotation+field]; set {
			flag, ok = own, true
		}
	}
	if strings.HasPrefix(field, "--") { // the command line's own check names the flag
		flag, ok = field, true
	}
	if !ok {
		return e
	}
	return nameFlag(e, field, flag)
}

// AboutFlag is err, a refusal of the value flag gave, naming flag (in the
// message and in "flag"). Commands use it where what they pass on from a
// flag reaches a check that knows no field: a revision that resolves to
// nothing, a store directory that cannot be made. An error that is not
// coded, or names a field or flag already (InCLITerms maps it), is
// returned as it is.
func AboutFlag(flag string, err error) error {
	var ke *kernel.Error
	if !errors.As(err, &ke) {
		return err
	}
	_, hasFlag := ke.Extra["flag"]
	if _, hasField := ke.Extra["field"]; hasFlag || hasField {
		return err
	}
	return nameFlag(ke, "", flag)
}

// nameFlag is e naming flag where it names field: the field's first whole
// word in the message becomes the flag, else the message is prefixed with
// it. "flag" is the flag alone, without what the text adds.
func nameFlag(e *kernel.Error, field, flag string) *kernel.Error {
	out := *e
	out.Extra = maps.Clone(e.Extra)
	if out.Extra == nil {
		out.Extra = map[string]any{}
	}
	if at := wordIndex(e.Message, field); field != "" && at >= 0 {
		out.Message = e.Message[:at] + flag + e.Message[at+len(field):]
	} else if !strings.HasPrefix(e.Message, flag) {
		out.Message = flag + ": " + e.Message
	}
	out.Extra["flag"] = strings.Fields(flag)[0]
	return &out
}

// wordIndex is where word first stands on its own in s (not inside a
// longer name such as "invalid" for "id"), or -1.
func wordIndex(s, word string) int {
	inName := func(c byte) bool {
		return c == '_' || c == '.' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(word)
		// A field ending a sentence ("… the id.") still stands alone.
		after := end == len(s) || !inName(s[end]) || s[end] == '.' && (end+1 == len(s) || s[end+1] == ' ')
		if (i == 0 || !inName(s[i-1])) && after {
			return i
		}
		from = i + 1
	}
	return -1
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
