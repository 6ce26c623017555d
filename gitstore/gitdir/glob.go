package gitdir

import "strings"

// globMatch reports whether text, a slash-separated path, matches pattern
// as includeIf conditions match (git-config(1), "Conditional includes",
// which refers to gitignore(5)'s pattern format and fnmatch(3) with
// FNM_PATHNAME):
//
//   - "*" matches any run of characters but "/", "?" any one character but
//     "/", and "[...]" one character of a set (ranges "a-z", classes
//     "[:digit:]", negated by a leading "!" or "^", "]" first taken
//     literally);
//   - "**" (or more stars) as a whole path component matches any number of
//     components: "**/x" x in any directory, "a/**/b" b zero or more
//     directories below a, and a trailing "a/**" everything inside a (not
//     a itself); elsewhere "**" is "*";
//   - a backslash takes the next character literally.
//
// fold makes letters match either case (gitdir/i:).
func globMatch(pattern, text string, fold bool) bool {
	return matchComponents(splitPattern(pattern), strings.Split(text, "/"), fold)
}

// splitPattern cuts pattern at its slashes, an escaped one ("\\/") too,
// but not inside a set: no character of a component matches "/".
func splitPattern(pattern string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			if i+1 < len(pattern) && pattern[i+1] == '/' {
				parts = append(parts, pattern[start:i])
				start = i + 2
			}
			i++
		case '[':
			if end, ok := setEnd(pattern, i); ok {
				i = end
			}
		case '/':
			parts = append(parts, pattern[start:i])
			start = i + 1
		}
	}
	return append(parts, pattern[start:])
}

// matchComponents matches path components against pattern components.
// A component of two stars or more is "**".
func matchComponents(patterns, names []string, fold bool) bool {
	for len(patterns) > 0 {
		if isStars(patterns[0]) {
			rest := patterns[1:]
			if len(rest) == 0 {
				return len(names) > 0
			}
			for skip := 0; skip <= len(names); skip++ {
				if matchComponents(rest, names[skip:], fold) {
					return true
				}
			}
			return false
		}
		if len(names) == 0 || !matchName(patterns[0], names[0], fold) {
			return false
		}
		patterns, names = patterns[1:], names[1:]
	}
	return len(names) == 0
}

// matchName matches one component. A star first matches nothing; when
// what follows it fails, the last star takes one more character and the
// rest is tried again from there, which bounds the work by the product of
// the two lengths.
func matchName(pattern, name string, fold bool) bool {
	p, n := 0, 0
	lastStar, starTook := -1, 0 // the pattern after the last star, the name where it stopped
	for n < len(name) {
		if p < len(pattern) && pattern[p] == '*' {
			for p < len(pattern) && pattern[p] == '*' {
				p++
			}
			lastStar, starTook = p, n
			continue
		}
		if width, ok := matchOne(pattern[p:], name[n], fold); ok {
			p += width
			n++
			continue
		}
		if lastStar < 0 {
			return false
		}
		starTook++
		p, n = lastStar, starTook
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchOne matches the pattern element at the start of pattern (not a
// star) against c, and returns the element's width.
func matchOne(pattern string, c byte, fold bool) (int, bool) {
	if pattern == "" {
		return 0, false
	}
	switch pattern[0] {
	case '?':
		return 1, true
	case '\\':
		if len(pattern) < 2 {
			return 0, false // a trailing backslash matches nothing
		}
		return 2, sameChar(pattern[1], c, fold)
	case '[':
		end, ok := setEnd(pattern, 0)
		if !ok {
			return 0, false // an unclosed set matches nothing
		}
		return end + 1, inSet(pattern[1:end], c, fold)
	}
	return 1, sameChar(pattern[0], c, fold)
}

// setEnd returns the index of the "]" that closes the set opening at
// pattern[open]; ok is false when nothing closes it or a class in it is
// not one of POSIX's.
func setEnd(pattern string, open int) (int, bool) {
	i := open + 1
	if i < len(pattern) && (pattern[i] == '!' || pattern[i] == '^') {
		i++
	}
	if i < len(pattern) && pattern[i] == ']' {
		i++ // a "]" first is a member
	}
	for ; i < len(pattern); i++ {
		switch {
		case pattern[i] == ']':
			return i, true
		case pattern[i] == '\\':
			i++
		case strings.HasPrefix(pattern[i:], "[:"):
			end := strings.Index(pattern[i+2:], ":]")
			if end < 0 {
				continue // "[" is a member
			}
			if _, known := inClass(pattern[i+2:i+2+end], 'a', false); !known {
				return 0, false
			}
			i += 2 + end + 1
		}
	}
	return 0, false
}

// inSet says whether c is in the set whose members are body (the text
// between "[" and "]").
func inSet(body string, c byte, fold bool) bool {
	negated := body != "" && (body[0] == '!' || body[0] == '^')
	if negated {
		body = body[1:]
	}
	found := false
	for i := 0; i < len(body); i++ {
		lo := body[i]
		switch {
		case lo == '[' && strings.HasPrefix(body[i:], "[:") && strings.Contains(body[i+2:], ":]"):
			end := i + 2 + strings.Index(body[i+2:], ":]")
			in, _ := inClass(body[i+2:end], c, fold)
			found = found || in
			i = end + 1
			continue
		case lo == '\\' && i+1 < len(body):
			i++
			lo = body[i]
		}
		hi := lo
		if i+2 < len(body) && body[i+1] == '-' {
			hi = body[i+2]
			i += 2
			if hi == '\\' && i+1 < len(body) {
				i++
				hi = body[i]
			}
		}
		// The first character of a range is a member even when the range
		// is empty ("z-a"), as git reads it.
		found = found || sameChar(lo, c, fold) || inRange(c, lo, hi) ||
			fold && (inRange(toLower(c), lo, hi) || inRange(toUpper(c), lo, hi))
	}
	return found != negated
}

func isStars(component string) bool {
	return len(component) >= 2 && strings.Trim(component, "*") == ""
}

func inRange(c, lo, hi byte) bool { return lo <= c && c <= hi }

func sameChar(a, b byte, fold bool) bool {
	return a == b || fold && toLower(a) == toLower(b)
}

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func toUpper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// inClass says whether c is in the POSIX character class named class (in
// the C locale); known is false for a name that is not a class. Folding
// case, [:lower:] and [:upper:] hold letters of either case.
func inClass(class string, c byte, fold bool) (in, known bool) {
	upper, lower, digit := 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9'
	switch class {
	case "alnum":
		return upper || lower || digit, true
	case "alpha":
		return upper || lower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return 0x20 < c && c < 0x7f, true
	case "lower":
		return lower || fold && upper, true
	case "print":
		return 0x20 <= c && c < 0x7f, true
	case "punct":
		return 0x20 < c && c < 0x7f && !upper && !lower && !digit, true
	case "space":
		return c == ' ' || '\t' <= c && c <= '\r', true
	case "upper":
		return upper || fold && lower, true
	case "xdigit":
		return digit || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F', true
	}
	return false, false
}
