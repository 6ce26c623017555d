package kernel

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Limits that keep a record a reviewable file and a commit message readable,
// and bound what any read or check of one record costs (docs/format.md, Limits).
const (
	MaxRecordBytes      = 1<<20 + 256<<10 // 1.25 MiB: a whole record file, refused before parsing
	MaxFrontmatterBytes = 256 << 10       // 256 KiB: the YAML between the delimiters
	MaxBodyBytes        = 1 << 20         // 1 MiB: larger payloads belong in payloads/ by hash
	MaxTitleBytes       = 1024
	MaxIDLength         = 128
	MaxSlugLength       = 200 // Addendum H.7; also the longest alias and link target
	MinIDPrefix         = 8   // Addendum H.7
	MaxTagLength        = 200
	MaxLabelBytes       = 1024 // a link's label
	MaxTags             = 256
	MaxAliases          = 64
	MaxLinks            = 4096 // frontmatter links; the body's wikilinks are bounded by its size
)

// CheckRecordSize applies the byte limits to an encoded record file and its
// frontmatter. The codec calls it before it parses a file and after it
// encodes one, so a file over the limits is never parsed nor written.
func CheckRecordSize(fileBytes, frontmatterBytes int) error {
	if fileBytes > MaxRecordBytes {
		return Errorf(CodeInvalidRecord, "record file is %d bytes; the limit is %d: move large content to payloads/ and reference it by hash", fileBytes, MaxRecordBytes)
	}
	if frontmatterBytes > MaxFrontmatterBytes {
		return Errorf(CodeInvalidRecord, "record frontmatter is %d bytes; the limit is %d: a record with a log this long should be superseded by a new one", frontmatterBytes, MaxFrontmatterBytes)
	}
	return nil
}

// checkCount bounds a list of a record.
func checkCount(field string, n, max int) error {
	if n > max {
		return Errorf(CodeInvalidRecord, "%s has %d entries; the limit is %d", field, n, max).WithField(field)
	}
	return nil
}

var (
	typePattern     = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$`)
	categoryPattern = regexp.MustCompile(`^[a-z0-9_-]+(\.[a-z0-9_-]+)*$`)
	slugPattern     = regexp.MustCompile(`^[a-z0-9]([a-z0-9._/-]*[a-z0-9])?$`)
	// Ids name files: one path segment, lowercase so case-insensitive file
	// systems cannot fold two records into one file.
	idPattern       = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	linkKindPattern = regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`)
)

// ValidateType checks a record type name.
func ValidateType(t string) error {
	if t == "" {
		return Errorf(CodeMissingEvidence, "type is required: one of %s, or a namespaced type like review.finding", strings.Join(TypeNames(), ", ")).WithField("type")
	}
	if _, ok := LookupType(t); !ok {
		return Errorf(CodeInvalidRecord, "type %q is unknown: use one of %s, or a namespaced type like review.finding", t, strings.Join(TypeNames(), ", ")).WithField("type")
	}
	return nil
}

// ValidateCategory checks a dot-separated category (contract §3).
func ValidateCategory(c string) error {
	if c == "" {
		return Errorf(CodeMissingEvidence, "category is required: a dot-separated path like engineering.api").WithField("category")
	}
	if !categoryPattern.MatchString(c) {
		return Errorf(CodeInvalidRecord, "category %q is malformed: segments must match [a-z0-9_-]+, separated by dots (engineering.api)", c).WithField("category")
	}
	return nil
}

// RuleAliasPath is the verify rule of ValidateAlias: a commit may not give
// a record an alias that is not a relative path of plain segments.
const RuleAliasPath = "alias-path"

// ValidateAlias checks an alias a record is about to claim: a slug
// (Addendum H.4) whose segments are plain names. Export names files by
// aliases, so no segment may be empty, ".", ".." or start with a dot, and
// nothing may be absolute (leading "/", a drive letter) or hold a
// backslash: an alias names a file inside any directory it is joined to.
func ValidateAlias(a string) error {
	if err := validateStoredAlias(a); err != nil {
		return err
	}
	for seg := range strings.SplitSeq(a, "/") {
		if seg == "" || seg[0] == '.' {
			return Errorf(CodeMissingEvidence, "aliases entry %q has the path segment %q: every segment between slashes is a name that does not start with a dot (no empty, '.' or '..' segments)", a, seg).WithField("aliases")
		}
	}
	return nil
}

// validateStoredAlias is what every alias on the branch satisfies, those
// written before ValidateAlias refused unsafe segments included: reading
// such a record keeps working, and export does not name files by it.
func validateStoredAlias(a string) error {
	if len(a) > MaxSlugLength || !slugPattern.MatchString(a) {
		return Errorf(CodeMissingEvidence, "aliases entry %q is not a slug: lowercase, matching %s (no backslash, no leading slash or drive letter), at most %d characters", a, slugPattern, MaxSlugLength).WithField("aliases")
	}
	return nil
}

// ValidateID checks a caller-supplied id. Ids become file names, so anything
// that could escape the layout (../x, /x, NUL) is refused.
func ValidateID(id string) error {
	if id == "" {
		return Errorf(CodeInvalidID, "id is empty").WithField("id")
	}
	if len(id) > MaxIDLength || !idPattern.MatchString(id) || strings.Contains(id, "..") {
		return Errorf(CodeInvalidID, "invalid id %q: an id is one lowercase path segment matching %s, without '..', at most %d characters", id, idPattern, MaxIDLength).WithField("id")
	}
	return nil
}

// ValidateLinkKind checks a link kind: unknown kinds are allowed (§2.2) but
// they must be a single plain word that cannot break a trailer or a file.
func ValidateLinkKind(k string) error {
	if !linkKindPattern.MatchString(k) {
		return Errorf(CodeMissingEvidence, "invalid link kind %q: use a lowercase word such as related, source, supersedes", k).WithField("links.kind")
	}
	return nil
}

// CheckUTF8 refuses text that is not valid UTF-8, naming what holds it and
// the first bad byte. It is the one check of raw input: the record rules
// run it on each text field, and every front-end runs it on what it was
// sent before decoding (argv, a contract request, an MCP call's
// arguments), since a JSON decoder turns each bad byte into U+FFFD and
// would store text nobody sent.
func CheckUTF8(what, s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	at := 0
	for at < len(s) {
		r, size := utf8.DecodeRuneInString(s[at:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		at += size
	}
	return Errorf(CodeInvalidRecord, "%s is not valid UTF-8 (byte %d is 0x%02x): send text as UTF-8", what, at, s[at]).WithField(what)
}

// CheckJSONText is CheckUTF8 for a JSON request, which can also spell a
// character that is not one: a \uD800-\uDFFF escape that is not half of
// a surrogate pair decodes to U+FFFD as well. The contract and MCP run it
// on what they were sent. JSON that does not parse is the decoder's to
// refuse.
func CheckJSONText(what, raw string) error {
	if err := CheckUTF8(what, raw); err != nil {
		return err
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(raw):
			i++
			if raw[i] != 'u' {
				continue
			}
			r, ok := hexRune(raw, i+1)
			if !ok {
				continue
			}
			i += 4
			if r < 0xD800 || r > 0xDFFF {
				continue
			}
			if low, ok := hexRune(raw, i+3); r < 0xDC00 && ok && strings.HasPrefix(raw[i+1:], "\\u") && low >= 0xDC00 && low <= 0xDFFF {
				i += 6 // a pair: one character
				continue
			}
			return Errorf(CodeInvalidRecord, "%s holds the escape \\u%04X, half of a UTF-16 surrogate pair: it is no character, and would be stored as U+FFFD", what, r).WithField(what)
		}
	}
	return nil
}

// hexRune reads the four hex digits of a \u escape at s[at:].
func hexRune(s string, at int) (rune, bool) {
	if at < 0 || at+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | (c - '0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | (c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | (c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// checkText rejects strings no reviewable text file should hold.
func checkText(field, s string, max int, oneLine bool) error {
	if max > 0 && len(s) > max {
		return Errorf(CodeInvalidRecord, "%s is %d bytes; the limit is %d", field, len(s), max).WithField(field)
	}
	if err := CheckUTF8(field, s); err != nil {
		return err
	}
	if strings.ContainsRune(s, 0) {
		return Errorf(CodeInvalidRecord, "%s contains a NUL byte", field).WithField(field)
	}
	if oneLine && strings.ContainsAny(s, "\r\n") {
		return Errorf(CodeInvalidRecord, "%s must be a single line", field).WithField(field)
	}
	return nil
}

// Validate checks a whole record as it would be written: the invariants
// every record file on the branch must satisfy.
func Validate(r *Record) error {
	if err := ValidateID(r.ID); err != nil {
		return err
	}
	if err := ValidateType(r.Type); err != nil {
		return err
	}
	if strings.TrimSpace(r.Title) == "" {
		return Errorf(CodeMissingEvidence, "title is required")
	}
	if err := checkText("title", r.Title, MaxTitleBytes, false); err != nil {
		return err
	}
	if err := ValidateCategory(r.Category); err != nil {
		return err
	}
	if err := checkText("body", r.Body, MaxBodyBytes, false); err != nil {
		return err
	}
	if r.Provenance.Agent == "" {
		return Errorf(CodeMissingEvidence, "provenance.agent is required: who or what created the record")
	}
	switch r.EffectiveStatus() {
	case StatusActive, StatusImplemented, StatusRetired:
	default:
		return Errorf(CodeInvalidRecord, "invalid status %q: active, implemented or retired", r.Status)
	}
	if r.Kind != "" && !validKinds[r.Kind] {
		return Errorf(CodeMissingEvidence, "invalid kind %q: entity, relation, event or snapshot", r.Kind).WithField("kind")
	}
	if r.Role != "" && !validRoles[r.Role] {
		return Errorf(CodeMissingEvidence, "invalid role %q: fact, claim or decision", r.Role).WithField("role")
	}
	if r.Authority != "" && !validAuthorities[r.Authority] {
		return Errorf(CodeMissingEvidence, "invalid authority %q: external, local or computed", r.Authority).WithField("authority")
	}
	for _, c := range []struct {
		field  string
		n, max int
	}{{"tags", len(r.Tags), MaxTags}, {"aliases", len(r.Aliases), MaxAliases}, {"links", len(r.Links), MaxLinks}} {
		if err := checkCount(c.field, c.n, c.max); err != nil {
			return err
		}
	}
	for _, t := range r.Tags {
		if t == "" {
			return Errorf(CodeMissingEvidence, "tags must not be empty strings").WithField("tags")
		}
		if err := checkText("tag", t, MaxTagLength, true); err != nil {
			return err
		}
	}
	for _, a := range r.Aliases {
		if err := validateStoredAlias(a); err != nil {
			return err
		}
	}
	for _, l := range r.Links {
		if err := validateLink(l); err != nil {
			return err
		}
	}
	if err := validateProperties(r.Properties); err != nil {
		return err
	}
	if err := validateWrittenAs(r.WrittenAs); err != nil {
		return err
	}
	if r.TTLSeconds != nil && !(*r.TTLSeconds > 0) {
		return Errorf(CodeMissingEvidence, "ttl_seconds must be a positive number of seconds").WithField("ttl_seconds")
	}
	if r.Kind == KindRelation {
		for _, end := range []struct{ field, v, what string }{
			{"from", r.From, "the record the edge goes from"}, {"to", r.To, "the record it goes to"},
			{"relation", r.Relation, "the relation type, such as depends_on"}} {
			if end.v == "" {
				return Errorf(CodeMissingEvidence, "%s is required: a relation record needs from, to and relation (%s)", end.field, end.what).WithField(end.field)
			}
		}
		if !linkKindPattern.MatchString(r.Relation) {
			return Errorf(CodeMissingEvidence, "relation %q is not a relation type: a lowercase word such as depends_on, or ns.name", r.Relation).WithField("relation")
		}
		if !IsCoreRelation(r.Relation) && !containsDot(r.Relation) {
			return Errorf(CodeMissingEvidence, "unknown relation %q: use a core relation (%s) or a namespaced one with maps_to", r.Relation, strings.Join(CoreRelations, ", ")).WithField("relation")
		}
		if containsDot(r.Relation) && !IsCoreRelation(r.MapsTo) {
			return Errorf(CodeMissingEvidence, "namespaced relation %q must declare maps_to, one of %s", r.Relation, strings.Join(CoreRelations, ", "))
		}
	}
	for _, s := range []struct{ name, v string }{{"provenance.agent", r.Provenance.Agent}, {"provenance.session_id", r.Provenance.SessionID}} {
		if err := checkText(s.name, s.v, 1024, true); err != nil {
			return err
		}
	}
	if r.Contract != nil && ImplementationKind(r.Type) == "" {
		return Errorf(CodeInvalidRecord, "extension_contract belongs to implementation records (kit.routine, kit.workflow, kit.extension), not to a %s", r.Type).WithField("extension_contract")
	}
	if r.Contract != nil {
		for _, v := range append(append([]string(nil), r.Contract.Accepts...), r.Contract.Produces...) {
			if strings.TrimSpace(v) == "" || strings.ContainsAny(v, " \t\r\n") {
				return Errorf(CodeInvalidRecord, "extension_contract entry %q must be one word", v).WithField("extension_contract")
			}
		}
	}
	return validateExecution(r)
}

// validateExecution: an execution record has an owner and a state, and
// every other record has neither.
func validateExecution(r *Record) error {
	if !IsExecutionType(r.Type) {
		if r.Owner != nil || r.Creator != nil || r.Execution != nil {
			return Errorf(CodeInvalidRecord, "owner, creator and execution belong to execution records (%s) only, not to a %s", strings.Join(ExecutionTypes, ", "), r.Type)
		}
		return nil
	}
	if r.Owner == nil || r.Execution == nil {
		return Errorf(CodeMissingEvidence, "an execution record needs an owner (--session, --agent) and an execution state").WithField("owner")
	}
	if !contains(stateNames(ExecStates), string(r.Execution.State)) {
		return Errorf(CodeInvalidRecord, "execution state %q is none of %s", r.Execution.State, joinStates(ExecStates))
	}
	if r.Execution.Depth < 0 {
		return Errorf(CodeInvalidRecord, "execution depth %d is negative", r.Execution.Depth)
	}
	fields := []struct{ name, v string }{{"owner.principal", r.Owner.Principal}, {"owner.session_key", r.Owner.SessionKey},
		{"owner.agent_id", r.Owner.AgentID}, {"owner.sandbox_name", r.Owner.SandboxName}}
	if r.Creator != nil {
		fields = append(fields, []struct{ name, v string }{{"creator.job_id", r.Creator.JobID},
			{"creator.dispatch_id", r.Creator.DispatchID}, {"creator.work_item_id", r.Creator.WorkItemID}}...)
	}
	for _, f := range fields {
		if err := checkText(f.name, f.v, 1024, true); err != nil {
			return err
		}
		// Receipts carry the lineage space-separated on one trailer line.
		if strings.ContainsAny(f.v, " \t") && f.name != "owner.principal" {
			return Errorf(CodeInvalidRecord, "%s %q must be one word", f.name, f.v).WithField(f.name)
		}
	}
	return nil
}

func validateLink(l Link) error {
	if l.TargetID == "" {
		return Errorf(CodeMissingEvidence, "a link needs target_id").WithField("links.target_id")
	}
	if err := checkText("link target_id", l.TargetID, MaxSlugLength, true); err != nil {
		return err
	}
	if err := ValidateLinkKind(l.Kind); err != nil {
		return err
	}
	return checkText("link label", l.Label, MaxLabelBytes, true)
}
