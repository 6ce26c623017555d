package kernel

import "strings"

// CheckIdent is the rule on a commit's author or committer line (header is
// "author" or "committer", value the line after it): the shape git fsck
// --strict accepts (fsck_ident), "Name <email> <seconds> <+hhmm>". Readers
// disagree on anything else: git skips any spaces before the date where
// go-git's rule (and our decoder) skips exactly one byte, so a line such as
// "A <a@x>1764000000 +0000" is dated 2025 by git and 1994 by us, and verify
// would judge a key's validity at a date git never shows. A record commit
// whose dates its readers could disagree on is refused.
func CheckIdent(header, value string) error {
	bad := func(what string) error {
		return Errorf(CodeVerifyFailed, "the %s line %q is malformed (%s): git fsck --strict refuses it, and readers disagree on its date", header, value, what)
	}
	if value == "" {
		return Errorf(CodeVerifyFailed, "the commit has no %s line", header)
	}
	if value[0] == '<' {
		return bad("no name before the email")
	}
	open := strings.IndexAny(value, "<>")
	if open < 0 || value[open] != '<' {
		return bad("no <email>")
	}
	if value[open-1] != ' ' {
		return bad("no space before the email")
	}
	end := strings.IndexAny(value[open+1:], "<>")
	if end < 0 || value[open+1+end] != '>' {
		return bad("bad email")
	}
	rest := value[open+1+end+1:]
	if !strings.HasPrefix(rest, " ") {
		return bad("no space before the date")
	}
	rest = rest[1:]
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	switch {
	case digits == 0 || digits >= len(rest) || rest[digits] != ' ':
		return bad("bad date")
	case rest[0] == '0' && digits > 1:
		return bad("zero-padded date")
	case digits > 18:
		return bad("date out of range")
	}
	zone := rest[digits+1:]
	if len(zone) != 5 || (zone[0] != '+' && zone[0] != '-') || strings.Trim(zone[1:], "0123456789") != "" {
		return bad("bad time zone")
	}
	return nil
}

// CheckCommitEncoding is the rule on a commit's encoding header: none, or
// UTF-8. Trailers, evidence and records are read from the commit's bytes as
// UTF-8, while git log re-encodes a message from the encoding the header
// names: under any other encoding a reviewer of the log would read text
// other than what was judged.
func CheckCommitEncoding(encoding string) error {
	switch strings.ToUpper(encoding) {
	case "", "UTF-8", "UTF8":
		return nil
	}
	return Errorf(CodeVerifyFailed, "the commit declares encoding %q: a record commit's message is UTF-8, which is what verify reads and what git log must show", encoding)
}
