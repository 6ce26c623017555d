package cmdutil

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestJSONArrayWritesWhatJSONWrites: list --json streams its array; the
// bytes must be those the one-document printer writes for the same slice.
func TestJSONArrayWritesWhatJSONWrites(t *testing.T) {
	type rec struct {
		ID    string            `json:"id"`
		Title string            `json:"title"`
		Tags  []string          `json:"tags,omitempty"`
		Extra map[string]string `json:"extra,omitempty"`
	}
	for _, values := range [][]rec{
		{},
		{{ID: "a", Title: "<b> & \"quoted\""}},
		{{ID: "a", Title: "one", Tags: []string{"x", "y"}}, {ID: "b", Title: "two", Extra: map[string]string{"k": "v"}}, {ID: "c"}},
	} {
		var want, got bytes.Buffer
		require.NoError(t, Printer{Out: &want}.JSON(values))
		require.NoError(t, Printer{Out: &got}.JSONArray(func(emit func(any) error) error {
			for _, v := range values {
				if err := emit(v); err != nil {
					return err
				}
			}
			return nil
		}))
		require.Equal(t, want.String(), got.String())
	}

	var out bytes.Buffer
	boom := errors.New("boom")
	err := Printer{Out: &out}.JSONArray(func(emit func(any) error) error {
		require.NoError(t, emit(rec{ID: "a"}))
		return boom
	})
	require.ErrorIs(t, err, boom, "an error while streaming is returned, for the exit status")
}

// TestPrinterFormats: jsonl is one compact object a line; Result picks
// JSON or text by --json; an error is the envelope on stdout with --json
// and one line on stderr without.
func TestPrinterFormats(t *testing.T) {
	var out bytes.Buffer
	p := Printer{Out: &out}
	require.NoError(t, p.JSONLine(map[string]any{"a": "<x>"}))
	require.NoError(t, p.JSONLine(map[string]any{"b": 1}))
	assert.Equal(t, "{\"a\":\"<x>\"}\n{\"b\":1}\n", out.String())

	out.Reset()
	text := func(w interface{ Write([]byte) (int, error) }) error { _, err := w.Write([]byte("text\n")); return err }
	require.NoError(t, Printer{Out: &out}.Result(1, func(w io.Writer) error { return text(w) }))
	require.NoError(t, Printer{Out: &out, JSONOn: true}.Result(1, func(w io.Writer) error { return text(w) }))
	assert.Equal(t, "text\n1\n", out.String())

	var errOut bytes.Buffer
	out.Reset()
	e := kernel.Errorf(kernel.CodeNotFound, "no record nope").WithExtra("handle", "nope")
	Printer{Out: &out}.Error(&errOut, e)
	assert.Equal(t, "git-records: NOT_FOUND: no record nope\n", errOut.String())
	assert.Empty(t, out.String())
	errOut.Reset()
	Printer{Out: &out, JSONOn: true}.Error(&errOut, e)
	assert.JSONEq(t, `{"error":{"code":"NOT_FOUND","message":"no record nope","handle":"nope"}}`, out.String())
	assert.Empty(t, errOut.String())
}
