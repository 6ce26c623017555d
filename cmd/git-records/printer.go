package main

import (
	"encoding/json"
	"io"
)

// printer is where a command's result goes: one JSON document for machines
// (--json), text for people. New commands print through it, so output
// conventions (JSON encoding, and for text a pager or colour on a
// terminal) live in one place.
type printer struct {
	out io.Writer
}

func (a *app) printer() printer { return printer{out: a.out} }

// JSON writes v as the project's JSON: indented, HTML characters kept.
func (p printer) JSON(v any) error {
	enc := json.NewEncoder(p.out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Text lets write print text for people.
func (p printer) Text(write func(io.Writer) error) error { return write(p.out) }
