package gitdir

import "strings"

// wildmatch reports whether text matches the glob pattern as git's
// wildmatch does with WM_PATHNAME (and WM_CASEFOLD when fold), the matcher
// of includeIf conditions: "*" and "?" and bracket expressions never match
// "/", "**" as a whole path component ("**/", "/**", "/**/") matches any
// number of directories, "\" quotes the next character.
func wildmatch(pattern, text string, fold bool) bool {
	return matchFrom(pattern, 0, text, fold) == wmMatch
}

type wmResult int

const (
	wmMatch wmResult = iota
	wmNoMatch
	wmAbortAll        // the text is exhausted: no later start can match
	wmAbortToStarStar // a "/" stopped a single "*": only an outer "**" may go on
)

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// matchFrom matches pattern[p:] against all of text.
func matchFrom(pattern string, p int, text string, fold bool) wmResult {
	t := 0
	for ; p < len(pattern); p++ {
		pc := pattern[p]
		if t >= len(text) && pc != '*' {
			return wmAbortAll
		}
		var tc byte
		if t < len(text) {
			tc = text[t]
		}
		if fold {
			tc = lower(tc)
			pc = lower(pc)
		}
		switch pc {
		case '\\':
			p++
			if p >= len(pattern) {
				return wmNoMatch // a trailing backslash matches nothing
			}
			c := pattern[p]
			if fold {
				c = lower(c)
			}
			if tc != c {
				return wmNoMatch
			}
			t++
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
			t++
		case '*':
			start := p
			for p+1 < len(pattern) && pattern[p+1] == '*' {
				p++
			}
			crossSlash := false
			if p > start { // "**"
				next := p + 1
				atComponentStart := start == 0 || pattern[start-1] == '/'
				atComponentEnd := next == len(pattern) || pattern[next] == '/' ||
					(pattern[next] == '\\' && next+1 < len(pattern) && pattern[next+1] == '/')
				if atComponentStart && atComponentEnd {
					// "**/" may also match no directory at all.
					if next < len(pattern) && pattern[next] == '/' && matchFrom(pattern, next+1, text[t:], fold) == wmMatch {
						return wmMatch
					}
					crossSlash = true
				}
			}
			p++ // the pattern after the stars
			if p == len(pattern) {
				if !crossSlash && strings.IndexByte(text[t:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !crossSlash && pattern[p] == '/' {
				// A single "*" before "/": it spans exactly the rest of this component.
				slash := strings.IndexByte(text[t:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				t += slash
				p-- // match the "/" next round
				continue
			}
			for ; t < len(text); t++ {
				r := matchFrom(pattern, p, text[t:], fold)
				if r != wmNoMatch {
					if !crossSlash || r != wmAbortToStarStar {
						return r
					}
				} else if !crossSlash && text[t] == '/' {
					return wmAbortToStarStar
				}
			}
			return wmAbortAll
		case '[':
			n, ok := matchBracket(pattern, p+1, tc, fold)
			if n < 0 {
				return wmAbortAll // an unclosed bracket matches nothing
			}
			if !ok || tc == '/' {
				return wmNoMatch
			}
			p = n
			t++
		default:
			if tc != pc {
				return wmNoMatch
			}
			t++
		}
	}
	if t == len(text) {
		return wmMatch
	}
	return wmNoMatch
}

// matchBracket matches c against the bracket expression whose body starts
// at pattern[p] and returns the index of its closing "]" (-1 when there is
// none) and whether c is in it.
func matchBracket(pattern string, p int, c byte, fold bool) (int, bool) {
	negate := false
	if p < len(pattern) && (pattern[p] == '!' || pattern[p] == '^') {
		negate = true
		p++
	}
	matched := false
	first := true
	var prev byte
	for ; p < len(pattern); p++ {
		pc := pattern[p]
		if pc == ']' && !first {
			return p, matched != negate
		}
		first = false
		switch {
		case pc == '\\':
			p++
			if p >= len(pattern) {
				return -1, false
			}
			pc = pattern[p]
			if eqFold(pc, c, fold) {
				matched = true
			}
		case pc == '-' && prev != 0 && p+1 < len(pattern) && pattern[p+1] != ']':
			p++
			hi := pattern[p]
			if hi == '\\' {
				p++
				if p >= len(pattern) {
					return -1, false
				}
				hi = pattern[p]
			}
			if prev <= c && c <= hi {
				matched = true
			}
			if fold {
				if lc := lower(c); prev <= lc && lc <= hi {
					matched = true
				}
				if uc := upper(c); prev <= uc && uc <= hi {
					matched = true
				}
			}
			pc = 0 // a range cannot start another
		case pc == '[' && p+1 < len(pattern) && pattern[p+1] == ':':
			end := strings.Index(pattern[p+2:], ":]")
			if end < 0 {
				if eqFold('[', c, fold) {
					matched = true
				}
				break
			}
			class := pattern[p+2 : p+2+end]
			ok, known := inClass(class, c, fold)
			if !known {
				return -1, false // git: a malformed class aborts the match
			}
			if ok {
				matched = true
			}
			p += 2 + end + 1
			pc = 0
		default:
			if eqFold(pc, c, fold) {
				matched = true
			}
		}
		prev = pc
	}
	return -1, false
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func eqFold(a, b byte, fold bool) bool {
	if fold {
		return lower(a) == lower(b)
	}
	return a == b
}

// inClass is a POSIX character class, in the C locale.
func inClass(class string, c byte, fold bool) (ok, known bool) {
	isUpper, isLower := c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	switch class {
	case "alnum":
		return isUpper || isLower || isDigit, true
	case "alpha":
		return isUpper || isLower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return isLower || (fold && isUpper), true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !isUpper && !isLower && !isDigit, true
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r'), true
	case "upper":
		return isUpper || (fold && isLower), true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
