package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTermLen bounds a term: longer runs (base64, hashes pasted in a body)
// are cut, so a hostile record cannot make the dictionary hold huge keys.
const maxTermLen = 64

// token is one term of a text and where it is (byte offsets).
type token struct {
	term       string
	start, end int
}

// tokenize splits s into lower-cased runs of letters and digits; every
// other character separates. Nothing is stemmed: a query finds the words
// it names (and, with tok*, the words they begin).
func tokenize(s string, emit func(t token)) {
	start := -1
	for i := 0; i <= len(s); {
		if i < len(s) && s[i] < utf8.RuneSelf {
			// ASCII, most of any text: a table says what is a word.
			if asciiWord[s[i]] {
				if start < 0 {
					start = i
				}
			} else if start >= 0 {
				emit(token{term: normalize(s[start:i]), start: start, end: i})
				start = -1
			}
			i++
			continue
		}
		r, size := utf8.RuneError, 1
		if i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		word := i < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			emit(token{term: normalize(s[start:i]), start: start, end: i})
			start = -1
		}
		if i == len(s) {
			break
		}
		i += size
	}
}

// asciiWord says which ASCII bytes are letters or digits.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = isASCIIWord(rune(c))
	}
	return t
}()

func isASCIIWord(r rune) bool {
	return r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
}

// normalize lower-cases a term and cuts it to maxTermLen bytes on a rune
// boundary.
func normalize(w string) string {
	lower := true
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			lower = false
			break
		}
	}
	if !lower {
		w = strings.ToLower(w)
	}
	if len(w) > maxTermLen {
		cut := maxTermLen
		for cut > 0 && !utf8.RuneStart(w[cut]) {
			cut--
		}
		w = w[:cut]
	}
	return w
}

// terms returns the terms of s in order.
func terms(s string) []string {
	var out []string
	tokenize(s, func(t token) { out = append(out, t.term) })
	return out
}
