package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// printer is where a command's result goes: one JSON document for machines
// (--json), text for people. New commands print through it, so output
// conventions (JSON encoding, and for text a pager or colour on a
// terminal) live in one place.
type printer struct {
	out  io.Writer
	json bool // --json: the command prints one JSON document
}

func (a *app) printer() printer { return printer{out: a.out, json: a.jsonOut} }

// JSON writes v as the project's JSON: indented, HTML characters kept.
func (p printer) JSON(v any) error {
	enc := json.NewEncoder(p.out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// JSONArray writes the values each emits as one JSON array, byte for byte
// what JSON writes for the same slice, but element by element as they
// come: a listing of every record holds one record at a time, not the
// store. An error from each after the first element leaves the array
// unterminated (the exit status says so); the index only hands out
// records that decoded, so only an I/O error gets there.
func (p printer) JSONArray(each func(emit func(any) error) error) error {
	w := bufio.NewWriterSize(p.out, 1<<16)
	var elem bytes.Buffer
	enc := json.NewEncoder(&elem)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	n := 0
	err := each(func(v any) error {
		elem.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		sep := ",\n  "
		if n == 0 {
			sep = "[\n  "
		}
		n++
		w.WriteString(sep)
		_, err := w.Write(bytes.TrimSuffix(elem.Bytes(), []byte("\n")))
		return err
	})
	if err != nil {
		w.Flush()
		return err
	}
	if n == 0 {
		w.WriteString("[]\n")
	} else {
		w.WriteString("\n]\n")
	}
	return w.Flush()
}

// Text lets write print text for people.
func (p printer) Text(write func(io.Writer) error) error { return write(p.out) }
