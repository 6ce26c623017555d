package cmdutil

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/git-records/git-records/kernel"
)

// Printer is where a command's result goes: one JSON document for machines
// (--json), one JSON object per line for tools that stream (jsonl), text
// for people. Every command prints through it, so output conventions
// (JSON encoding, and for text a pager or colour on a terminal) live in
// one place.
type Printer struct {
	Out    io.Writer
	JSONOn bool // --json: the command prints one JSON document
}

// JSON writes v as the project's JSON: indented, HTML characters kept.
func (p Printer) JSON(v any) error {
	enc := json.NewEncoder(p.Out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// JSONLine writes v as one line of JSON (the jsonl formats), HTML
// characters kept.
func (p Printer) JSONLine(v any) error {
	enc := json.NewEncoder(p.Out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// JSONArray writes the values each emits as one JSON array, byte for byte
// what JSON writes for the same slice, but element by element as they
// come: a listing of every record holds one record at a time, not the
// store. An error from each after the first element leaves the array
// unterminated (the exit status says so); the index only hands out
// records that decoded, so only an I/O error gets there.
func (p Printer) JSONArray(each func(emit func(any) error) error) error {
	w := bufio.NewWriterSize(p.Out, 1<<16)
	var elem bytes.Buffer
	enc := json.NewEncoder(&elem)
	enc.SetEscapeHTML(false)
	enc.SetIndent(arrayIndent, arrayIndent)
	n := 0
	err := each(func(v any) error {
		sep := ",\n  "
		if n == 0 {
			sep = "[\n  "
		}
		if a, ok := v.(JSONAppender); ok {
			// Encoded straight into the writer's buffer, no reflection.
			b := append(w.AvailableBuffer(), sep...)
			b, err := a.AppendJSON(b, arrayIndent, arrayIndent)
			if err != nil {
				return err
			}
			n++
			_, err = w.Write(b)
			return err
		}
		elem.Reset()
		if err := enc.Encode(v); err != nil {
			return err
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

// arrayIndent indents an element of JSONArray's array (prefix and step).
const arrayIndent = "  "

// JSONAppender is a value that encodes itself as json.Encoder with
// SetEscapeHTML(false) and SetIndent(prefix, indent) would, without the
// newline (kernel.Record: a full listing's records are most of its
// CPU through encoding/json).
type JSONAppender interface {
	AppendJSON(dst []byte, prefix, indent string) ([]byte, error)
}

// Text lets write print text for people, each write as it comes (watch
// streams its events through it).
func (p Printer) Text(write func(io.Writer) error) error { return write(p.Out) }

// Result prints v: as JSON with --json, else as text by write, buffered.
func (p Printer) Result(v any, write func(io.Writer) error) error {
	if p.JSONOn {
		return p.JSON(v)
	}
	return p.Buffered(write)
}

// Buffered lets write print text for people through a buffer flushed at
// the end: a listing of 10,000 lines is a few writes, not 10,000 (a tab
// writer writes each cell on its own).
func (p Printer) Buffered(write func(io.Writer) error) error {
	w := bufio.NewWriter(p.Out)
	err := write(w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Error prints a kernel error: the envelope {"error":{"code","message",…}}
// with --json, else one line for people (on errOut).
func (p Printer) Error(errOut io.Writer, e *kernel.Error) {
	if p.JSONOn {
		body := map[string]any{"code": e.Code, "message": e.Message}
		for k, v := range e.Extra {
			body[k] = v
		}
		_ = p.JSON(map[string]any{"error": body})
		return
	}
	fmt.Fprintf(errOut, "git-records: %s: %s\n", e.Code, e.Message)
}
