// Package transfer brings records in from folders of notes and JSONL and
// takes them out again: `git records import` and `git records export`.
//
// Import reads an Obsidian vault, a zk notebook, a Hugo or Jekyll content
// tree (front matter in YAML, TOML or JSON, read with adrg/frontmatter), a
// Knowledge Kit default store (records/<id>.md with graph-index.json) or
// JSONL of contract records, maps each note to a record, resolves its
// [[wikilinks]] to ids and hands the records to kernel.Import, which holds
// each to a create's rules; the store writes them as one commit. Export
// writes the branch as a vault Obsidian and zk open as they are, or JSONL.
// The rules stay in kernel; this package only reads and writes files.
package transfer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/adrg/frontmatter"
	"go.yaml.in/yaml/v3"

	"github.com/git-records/git-records/internal/nesting"
	"github.com/git-records/git-records/kernel"
)

// Formats of an import source.
const (
	FormatVault = "vault" // a folder of Markdown notes
	FormatKK    = "kk"    // a Knowledge Kit default store: records/<id>.md and graph-index.json
	FormatJSONL = "jsonl" // one contract record per line
)

// unit is one note or JSONL line as read: where it came from, its front
// matter (nil when it has none) and its body.
type unit struct {
	origin string // the file's path relative to the source (slashes), or "file.jsonl:N"
	front  map[string]any
	body   string
	record *kernel.Record // set when the file is a canonical record file
	// isRecord: the unit is a record of a Knowledge Kit store or a JSONL
	// line, whose front matter names the record's fields.
	isRecord bool
	// unreadable says why the note cannot be imported (its front matter
	// does not parse, it is too large, ...); "" when it was read.
	unreadable string
	// sum is the sha256 of the bytes read: an import reads a source twice
	// and takes a note only as it was the first time.
	sum [sha256.Size]byte
}

// source is an import source as listed: its notes are read by readChunks,
// as often as an import needs them, never all held at once.
type source struct {
	format      string
	root        string
	notes       []string          // a folder's notes, relative paths (slashes) in walk order
	attachments map[string]string // relative path (slashes) -> absolute path, of every file that is not a note
	kind        sourceKind
}

// maxInputFile bounds one input file: a record file is at most
// kernel.MaxRecordBytes, and a foreign note's front matter and body fit the
// same bounds or are refused by the kernel anyway.
const maxInputFile = 4 * kernel.MaxRecordBytes

// A chunk of notes is read at once, by one worker per core: at most
// chunkNotes notes, and no more once chunkBytes are read, so memory
// holds a chunk whatever the size of the source.
const (
	chunkNotes = 256
	chunkBytes = 16 << 20
)

// readSource lists path as the format it is: a .jsonl/.ndjson file, a
// directory holding graph-index.json and records/ (a Knowledge Kit store),
// or any other directory (a folder of notes). format forces one.
func readSource(p, format string) (*source, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, kernel.Errorf(kernel.CodeUsage, "cannot read the import source %s: %v", p, err)
	}
	if format == "" {
		switch {
		case !fi.IsDir():
			format = FormatJSONL
		case exists(filepath.Join(p, "graph-index.json")) && isDir(filepath.Join(p, "records")):
			format = FormatKK
		default:
			format = FormatVault
		}
	}
	src := &source{format: format, root: p, attachments: map[string]string{}}
	switch format {
	case FormatJSONL:
		if fi.IsDir() {
			return nil, kernel.Errorf(kernel.CodeUsage, "--format jsonl reads a file, and %s is a directory", p)
		}
	case FormatVault, FormatKK:
		if !fi.IsDir() {
			return nil, kernel.Errorf(kernel.CodeUsage, "--format %s reads a directory, and %s is a file", format, p)
		}
		err = src.listDir(p)
	default:
		return nil, kernel.Errorf(kernel.CodeUsage, "--format %q is not an import format: vault, kk or jsonl", format).WithExtra("flag", "--format")
	}
	if err != nil {
		return nil, err
	}
	return src, nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func isDir(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }

// isNote says which files are notes; every other file may be an attachment.
func isNote(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// listDir walks a folder of notes in lexical order, skipping hidden files
// and folders (.obsidian, .zk, .git, .trash): they are the tools' state.
func (s *source) listDir(root string) error {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		// A copy: filepath.Rel slices the walk's whole path, which the
		// note's name would keep while the import runs.
		rel = strings.Clone(filepath.ToSlash(rel))
		if isNote(rel) {
			s.notes = append(s.notes, rel)
		} else {
			s.attachments[rel] = p
		}
		return nil
	})
	if err != nil {
		return kernel.Wrap(kernel.CodeUsage, err, "read %s", root)
	}
	s.notes = slices.Clone(s.notes) // to its size: an import keeps it while it runs
	s.kind = detectKind(root)
	return nil
}

// readChunks reads the source's notes (or lines) in order, a chunk at a
// time, and gives each chunk to fn with the index of its first unit.
// digest, when not nil, hears the input as its evidence digests it.
func (s *source) readChunks(digest io.Writer, fn func(first int, units []unit) error) error {
	if s.format == FormatJSONL {
		return s.readJSONL(s.root, digest, fn)
	}
	for first := 0; first < len(s.notes); {
		units := s.readNotes(first)
		if digest != nil {
			for _, u := range units {
				fmt.Fprintf(digest, "%s\x00%x\n", u.origin, u.sum)
			}
		}
		if err := fn(first, units); err != nil {
			return err
		}
		first += len(units)
	}
	return nil
}

// readNotes reads and parses the notes from first on, one worker per core,
// up to chunkNotes of them, stopping once chunkBytes are read.
func (s *source) readNotes(first int) []unit {
	units := make([]unit, min(chunkNotes, len(s.notes)-first))
	var next, read atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Indices are taken in order, so those read are a prefix.
			for read.Load() < chunkBytes {
				i := int(next.Add(1) - 1)
				if i >= len(units) {
					return
				}
				rel := s.notes[first+i]
				data, err := readBounded(filepath.Join(s.root, filepath.FromSlash(rel)))
				if err != nil {
					units[i] = unit{origin: rel, unreadable: errorText(err)}
					continue
				}
				read.Add(int64(len(data)))
				units[i] = parseNote(rel, data, s.format == FormatKK && strings.HasPrefix(rel, "records/"))
				units[i].sum = sha256.Sum256(data)
			}
		}()
	}
	wg.Wait()
	return units[:min(int(next.Load()), len(units))]
}

func readBounded(p string) ([]byte, error) {
	// One open, fstat and read: a vault is thousands of small files.
	f, size, err := openNote(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func(size int64) error {
		return kernel.Errorf(kernel.CodeInvalidRecord, "%s is %d bytes; a note may have at most %d (a record's body at most %d): split it, or leave it out of the folder",
			p, size, maxInputFile, kernel.MaxBodyBytes)
	}
	if size > maxInputFile {
		return nil, tooLarge(size)
	}
	// One buffer of the size fstat gave, plus a byte to see the end in
	// the same read; bytes.Buffer.ReadFrom would allocate it twice.
	data := make([]byte, size+1)
	n, err := io.ReadFull(f, data)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF: // the size fstat gave, or it shrank since
		return data[:n], nil
	case err != nil:
		return nil, err
	}
	// It grew since the fstat: read on, up to the bound.
	rest, err := io.ReadAll(io.LimitReader(f, maxInputFile+1-int64(n)))
	if err != nil {
		return nil, err
	}
	data = append(data, rest...)
	if len(data) > maxInputFile {
		return nil, tooLarge(int64(len(data)))
	}
	return data, nil
}

// frontFormats are adrg/frontmatter's formats with YAML read by yaml.v3,
// which refuses duplicate keys and gives nested maps string keys.
// Each is bounded in depth (depth.go).
var frontFormats = []*frontmatter.Format{
	frontmatter.NewFormat("---", "---", bounded(nesting.YAML, yaml.Unmarshal)),
	frontmatter.NewFormat("---yaml", "---", bounded(nesting.YAML, yaml.Unmarshal)),
	frontmatter.NewFormat("+++", "+++", bounded(nesting.TOML, toml.Unmarshal)),
	frontmatter.NewFormat("---toml", "---", bounded(nesting.TOML, toml.Unmarshal)),
	frontmatter.NewFormat(";;;", ";;;", bounded(nesting.JSON, json.Unmarshal)),
	frontmatter.NewFormat("---json", "---", bounded(nesting.JSON, json.Unmarshal)),
	{Start: "{", End: "}", Unmarshal: bounded(nesting.JSON, json.Unmarshal), UnmarshalDelims: true, RequiresNewLine: true},
}

// parseNote splits a note into front matter and body. A file that is a
// record file of ours (an export of ours) is decoded by the store's own
// strict codec, so it comes back exactly; anything else is a foreign note,
// read through adrg/frontmatter, whatever keys its front matter has: an
// id or a type there is the source's data (a Dendron note's id), not a
// claim to be one of our records. In a Knowledge Kit store's records/
// folder (kkRecord) the front matter is a record's. A note that cannot be
// read comes back unreadable, saying why.
func parseNote(origin string, data []byte, kkRecord bool) unit {
	// The record format writes id first; only such a file can be one.
	if bytes.HasPrefix(data, []byte("---\nid: ")) {
		if r, err := decodeCanonical(data); err == nil {
			return unit{origin: origin, record: r, body: r.Body}
		}
	}
	if !utf8.Valid(data) {
		return unit{origin: origin, unreadable: "it is not UTF-8 text: save it as UTF-8"}
	}
	var front map[string]any
	rest, err := frontmatter.Parse(bytes.NewReader(data), &front, frontFormats...)
	if err != nil {
		return unit{origin: origin, unreadable: "its front matter does not parse: " + oneLine(err.Error())}
	}
	if front == nil && opensFrontMatter(data) {
		// adrg/frontmatter returns an unclosed block as body without an
		// error; a closed block holding nothing or only comments (how
		// Jekyll marks a page) is empty front matter.
		if len(rest) == len(data) {
			return unit{origin: origin, unreadable: "its front matter is never closed: end it with a line of " + opener(data)}
		}
		front = map[string]any{}
	}
	if kkRecord {
		// A Knowledge Kit record is written as ours are: one blank line
		// after the front matter, not part of the body.
		return unit{origin: origin, front: front, body: trimLeadingBlankLine(string(rest)), isRecord: true}
	}
	// A foreign note's body is all that follows its front matter, byte for
	// byte, so that export can give the note back as it was.
	return unit{origin: origin, front: front, body: string(rest)}
}

// oneLine joins a multi-line message (yaml.v3 lists its errors a line
// each) into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func opensFrontMatter(data []byte) bool { return opener(data) != "" }

func opener(data []byte) string {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	switch strings.TrimSpace(string(line)) {
	case "---", "---yaml", "---toml", "---json":
		return "---"
	case "+++":
		return "+++"
	case ";;;":
		return ";;;"
	}
	return ""
}

// trimLeadingBlankLine drops the one blank line that separates front
// matter from the body, as the record format writes it.
func trimLeadingBlankLine(s string) string {
	if t, ok := strings.CutPrefix(s, "\r\n"); ok {
		return t
	}
	return strings.TrimPrefix(s, "\n")
}

// readJSONL reads one JSON object per line, blank lines skipped, in
// chunks as readChunks does.
func (s *source) readJSONL(p string, digest io.Writer, fn func(first int, units []unit) error) error {
	f, err := os.Open(p)
	if err != nil {
		return kernel.Wrap(kernel.CodeUsage, err, "read %s", p)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), maxInputFile)
	base := filepath.Base(p)
	var lines [][]byte
	var origins []string
	first, size := 0, 0
	flush := func() error {
		units := make([]unit, len(lines))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1) - 1); i < len(lines); i = int(next.Add(1) - 1) {
					units[i] = parseLine(origins[i], lines[i])
				}
			}()
		}
		wg.Wait()
		err := fn(first, units)
		first += len(units)
		lines, origins, size = lines[:0], origins[:0], 0
		return err
	}
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if digest != nil {
			digest.Write(line)
			digest.Write([]byte{'\n'})
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lines, origins = append(lines, bytes.Clone(line)), append(origins, fmt.Sprintf("%s:%d", base, n))
		if size += len(line); len(lines) == chunkNotes || size >= chunkBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return kernel.Wrap(kernel.CodeInvalidRecord, err, "read %s", p)
	}
	if len(lines) > 0 {
		return flush()
	}
	return nil
}

// parseLine reads one JSONL line as a unit.
func parseLine(origin string, line []byte) unit {
	var front map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&front); err != nil {
		return unit{origin: origin, unreadable: "not a JSON object: " + err.Error(), sum: sha256.Sum256(line)}
	}
	body, _ := front["body"].(string)
	delete(front, "body")
	return unit{origin: origin, front: front, body: body, isRecord: true, sum: sha256.Sum256(line)}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
