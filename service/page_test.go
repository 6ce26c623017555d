package service

import (
	"strings"
	"testing"
)

// TestOneLineIsFieldsJoined: the fast path returns a title as it is only
// when collapsing its whitespace would not change it.
func TestOneLineIsFieldsJoined(t *testing.T) {
	for _, s := range []string{"", " ", "a", "Seed record 283: Link finding", "a  b", " a", "a ", "a\tb", "a\nb",
		"a\u00a0b", "a\u2003b", "a\u0085b", "é b", "a\x7fb", "a \u3000", "x\r"} {
		if got, want := OneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", s, got, want)
		}
	}
}
