package kernel_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestCheckJSONText: a JSON request is refused when decoding it would put
// U+FFFD where the sender wrote something else (a byte that is not UTF-8,
// a lone surrogate escape, in a key or a value), and passes otherwise; an
// escaped backslash before "u" is no escape.
func TestCheckJSONText(t *testing.T) {
	for raw, refused := range map[string]bool{
		`{"a":"\ud83d\ude00"}`:    false,
		`{"a":"\u00e9 \u0041"}`:   false,
		`{"a":"\\udc80"}`:         false,
		`{"a":"\\\ud83d\ude00"}`:  false,
		`{"a":"x","b":["\"\\"]}`:  false,
		`{"a":"\udc80"}`:          true,
		`{"a":"\ud800x"}`:         true,
		`{"a":"\ud800\u0041"}`:    true,
		`{"a":"\ud800\ud800"}`:    true,
		`{"\udfff":1}`:            true,
		`{"a":"\\\udc80"}`:        true,
		"{\"a\":\"caf\xe9\"}":     true,
		"{\"a\":\"\xc3\"}":        true,
		`{"a":"\ud800`:            true, // cut short: still no character
		`{"a":"ok"} trailing \ud`: false,
	} {
		err := kernel.CheckJSONText("the request", raw)
		if !refused {
			assert.NoError(t, err, "%s", raw)
			continue
		}
		require.Error(t, err, "%s", raw)
		assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err), "%s", raw)
		if json.Valid([]byte(raw)) {
			var v any
			require.NoError(t, json.Unmarshal([]byte(raw), &v))
			out, _ := json.Marshal(v)
			assert.Contains(t, string(out), "\uFFFD", "%s: what the check keeps out is what the decoder would replace", raw)
		}
	}
}
