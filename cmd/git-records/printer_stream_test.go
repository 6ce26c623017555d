package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
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
		require.NoError(t, printer{out: &want}.JSON(values))
		require.NoError(t, printer{out: &got}.JSONArray(func(emit func(any) error) error {
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
	err := printer{out: &out}.JSONArray(func(emit func(any) error) error {
		require.NoError(t, emit(rec{ID: "a"}))
		return boom
	})
	require.ErrorIs(t, err, boom, "an error while streaming is returned, for the exit status")
}
