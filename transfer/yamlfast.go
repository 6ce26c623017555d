package transfer

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// unmarshalYAML is yaml.v3's Unmarshal, with a fast path for the front
// matter most notes have: one line per key, each value a plain word or a
// flow list of plain words (tags: [a, b], aliases: [Home]). Those decode
// to strings and lists of strings whatever the YAML version; anything
// else (quotes, nesting, comments, numbers, booleans, a repeated key)
// goes to yaml.v3, which decides as it always did. FuzzSimpleYAML holds
// the fast path to yaml.v3's answers.
func unmarshalYAML(data []byte, v any) error {
	if m, ok := v.(*map[string]any); ok && *m == nil {
		if out, ok := simpleYAML(data); ok {
			*m = out
			return nil
		}
	}
	return yaml.Unmarshal(data, v)
}

// simpleYAML reads data when every line is blank or `key: word` or
// `key: [word, word, ...]`; ok is false for anything else.
func simpleYAML(data []byte) (map[string]any, bool) {
	if bytes.IndexByte(data, '\r') >= 0 {
		return nil, false
	}
	out := map[string]any{}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if len(bytes.TrimRight(line, " ")) == 0 {
			if len(line) > 0 {
				return nil, false // whitespace-only lines: leave them to yaml.v3
			}
			continue
		}
		key, value, found := bytes.Cut(line, []byte(": "))
		if !found || !plainWord(key, false) {
			return nil, false
		}
		k := string(key)
		if _, dup := out[k]; dup {
			return nil, false // yaml.v3 refuses it, with its message
		}
		value = bytes.TrimRight(value, " ")
		if len(value) > 0 && value[0] == '[' {
			if value[len(value)-1] != ']' {
				return nil, false
			}
			items := bytes.Split(value[1:len(value)-1], []byte(","))
			list := make([]any, 0, len(items))
			for _, it := range items {
				it = bytes.Trim(it, " ")
				if !plainWord(it, true) {
					return nil, false
				}
				list = append(list, string(it))
			}
			out[k] = list
			continue
		}
		if !plainWord(value, true) {
			return nil, false
		}
		out[k] = string(value)
	}
	if len(out) == 0 {
		return nil, false
	}
	return out, true
}

// plainWord reports whether w is a plain scalar that every YAML resolver
// reads as the string it is: it starts with an ASCII letter, holds only
// letters, digits, '_', '-', '.' (and single spaces inside, with spaces),
// and is none of the words a resolver may read as a boolean or null.
func plainWord(w []byte, spaces bool) bool {
	if len(w) == 0 || len(w) > 200 || !isLetter(w[0]) || w[len(w)-1] == ' ' {
		return false
	}
	for i, c := range w {
		switch {
		case isLetter(c), c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		case c == ' ' && spaces && w[i-1] != ' ':
		default:
			return false
		}
	}
	switch strings.ToLower(string(w)) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
