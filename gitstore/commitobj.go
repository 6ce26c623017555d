package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Commit and tree objects are decoded and encoded here, not with go-git's
// plumbing/object: that package is the only way into the binary of go-git's
// storage and config (gcfg, a URL parser with package-level regexps),
// OpenPGP with its curves, merkletrie and the diff packages (63 packages,
// about 5% of a --version's CPU in package init). What gitstore reads of a
// commit is its headers and message; a signature is checked over the raw
// bytes (signing.SplitSignature), never over a re-encoding.

var (
	errMalformedCommit   = errors.New("malformed commit")
	errMalformedTree     = errors.New("malformed tree")
	errUnsupportedObject = errors.New("unsupported object type")
)

// Signature is a commit's author or committer line.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is a decoded commit object: the fields gitstore, hooks and the
// services read. Decoding follows go-git v5's (git's) rules: the tree header
// first, then the contiguous parents, author and committer in their places
// (out-of-place ones dropped), the first encoding and mergetag, every gpgsig
// concatenated, other headers skipped with their continuation lines.
type Commit struct {
	Hash         plumbing.Hash
	Author       Signature
	Committer    Signature
	MergeTag     string
	PGPSignature string
	Encoding     string
	Message      string
	TreeHash     plumbing.Hash
	ParentHashes []plumbing.Hash
	// AuthorLine and CommitterLine are the author and committer header
	// values as stored ("" when the commit has none), for kernel.CheckIdent:
	// Author and Committer are what go-git's lenient rule reads from them.
	AuthorLine, CommitterLine string
}

// treeObj is a decoded tree: its entries in git's order.
type treeObj struct {
	Hash    plumbing.Hash
	Entries []treeEntry
}

// treeEntry is one entry of a tree.
type treeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// NumParents is the number of parents.
func (c *Commit) NumParents() int { return len(c.ParentHashes) }

// decodeCommit decodes the content of commit object h.
func decodeCommit(h plumbing.Hash, raw []byte) (*Commit, error) {
	c := &Commit{Hash: h, Encoding: "UTF-8"}
	rest := raw
	next := func() []byte { // the next line with its newline, or the tail
		if len(rest) == 0 {
			return nil
		}
		i := bytes.IndexByte(rest, '\n')
		var line []byte
		if i < 0 {
			line, rest = rest, nil
		} else {
			line, rest = rest[:i+1], rest[i+1:]
		}
		return line
	}
	var pending []byte
	read := func() []byte {
		if pending != nil {
			l := pending
			pending = nil
			return l
		}
		return next()
	}

	line := read()
	if len(line) == 0 || isBlankLine(line) {
		return nil, fmt.Errorf("%w: missing tree header", errMalformedCommit)
	}
	key, data := splitHeader(line)
	if key != "tree" {
		return nil, fmt.Errorf("%w: tree header must be first", errMalformedCommit)
	}
	th, err := parseObjectIDHex(data, "tree")
	if err != nil {
		return nil, err
	}
	c.TreeHash = th

	// ended reads the next line into line and says whether the headers end
	// there: at the end of the object, or at the blank line before the
	// message (which it keeps).
	ended := func() bool {
		line = read()
		if len(line) == 0 {
			return true
		}
		if isBlankLine(line) {
			c.Message = string(rest)
			return true
		}
		return false
	}

	// The parents, then author and committer at their places: a line that
	// is not the one expected goes on to the next step.
	for {
		if ended() {
			return c, nil
		}
		key, data = splitHeader(line)
		if key != "parent" {
			pending = line
			break
		}
		ph, err := parseObjectIDHex(data, "parent")
		if err != nil {
			return nil, err
		}
		c.ParentHashes = append(c.ParentHashes, ph)
	}
	for _, slot := range []struct {
		key  string
		sig  *Signature
		line *string
	}{{"author", &c.Author, &c.AuthorLine}, {"committer", &c.Committer, &c.CommitterLine}} {
		if ended() {
			return c, nil
		}
		if key, data = splitHeader(line); key == slot.key {
			slot.sig.decode(data)
			*slot.line = string(data)
		} else {
			pending = line
		}
	}

	// The other headers; cont is where continuation lines (" ...") of the
	// header just read go, nil when they are dropped.
	var cont *string
	sawEncoding, sawMergetag := false, false
	for {
		line = read()
		if len(line) == 0 {
			return c, nil
		}
		if line[0] == ' ' {
			if cont != nil {
				*cont += string(line[1:])
			}
			continue
		}
		if isBlankLine(line) {
			c.Message = string(rest)
			return c, nil
		}
		cont = nil
		key, data = splitHeader(line)
		switch key {
		case "encoding":
			if !sawEncoding {
				c.Encoding = string(data)
				sawEncoding = true
			}
		case "mergetag":
			if !sawMergetag {
				c.MergeTag += string(data) + "\n"
				sawMergetag = true
				cont = &c.MergeTag
			}
		case "gpgsig":
			c.PGPSignature += string(data) + "\n"
			cont = &c.PGPSignature
		}
	}
}

// Signed says whether the commit carries signature text. A gpgsig header
// with nothing in it (go-git's rule stores it as "\n") is no signature:
// git reports N for it and verify finds nothing to check.
func (c *Commit) Signed() bool { return strings.TrimSpace(c.PGPSignature) != "" }

// isBlankLine is the line that ends the headers.
func isBlankLine(line []byte) bool { return len(line) == 1 && line[0] == '\n' }

// splitHeader is a header line's key and value (nil when it has none).
func splitHeader(line []byte) (string, []byte) {
	trimmed := bytes.TrimRight(line, "\n")
	key, value, ok := bytes.Cut(trimmed, []byte{' '})
	if !ok {
		return string(trimmed), nil
	}
	return string(key), value
}

func parseObjectIDHex(data []byte, header string) (plumbing.Hash, error) {
	id := string(data)
	if !plumbing.IsHash(id) {
		return plumbing.ZeroHash, fmt.Errorf("%w: bad %s hash", errMalformedCommit, header)
	}
	return plumbing.NewHash(id), nil
}

// decode reads "Name <email> seconds +hhmm"; what it cannot read it leaves
// zero, as git's own parser does.
func (s *Signature) decode(b []byte) {
	open := bytes.LastIndexByte(b, '<')
	end := bytes.LastIndexByte(b, '>')
	if open == -1 || end == -1 || end < open {
		return
	}
	s.Name = string(bytes.Trim(b[:open], " "))
	s.Email = string(b[open+1 : end])
	if end+2 >= len(b) {
		return
	}
	b = b[end+2:]
	space := bytes.IndexByte(b, ' ')
	if space == -1 {
		space = len(b)
	}
	ts, err := strconv.ParseInt(string(b[:space]), 10, 64)
	if err != nil {
		return
	}
	s.When = time.Unix(ts, 0).In(time.UTC)
	tzStart := space + 1
	if tzStart >= len(b) || tzStart+5 > len(b) {
		return
	}
	tz := string(b[tzStart : tzStart+5])
	hours, err1 := strconv.ParseInt(tz[0:3], 10, 64)
	mins, err2 := strconv.ParseInt(tz[3:], 10, 64)
	if err1 != nil || err2 != nil {
		return
	}
	// The sign is the first character: go-git takes it from the hours, so
	// "-0030" became +00:30; git keeps it, and so do we.
	if tz[0] == '-' {
		hours, mins = -max(hours, -hours), -mins
	}
	s.When = s.When.In(time.FixedZone("", int(hours*60*60+mins*60)))
}

// Line is the author or committer line s is written as (after its header).
func (s Signature) Line() string {
	var b strings.Builder
	s.encode(&b)
	return b.String()
}

func (s *Signature) encode(b *strings.Builder) {
	u := s.When.Unix()
	if u < 0 {
		u = 0
	}
	b.WriteString(s.Name)
	b.WriteString(" <")
	b.WriteString(s.Email)
	b.WriteString("> ")
	b.WriteString(strconv.FormatInt(u, 10))
	b.WriteByte(' ')
	b.WriteString(s.When.Format("-0700"))
}

// encode is the commit object's content: with includeSig, the gpgsig
// header; without, the payload that signature is made over.
func (c *Commit) encode(includeSig bool) []byte {
	var b strings.Builder
	b.WriteString("tree " + c.TreeHash.String() + "\n")
	for _, p := range c.ParentHashes {
		b.WriteString("parent " + p.String() + "\n")
	}
	b.WriteString("author ")
	c.Author.encode(&b)
	b.WriteString("\ncommitter ")
	c.Committer.encode(&b)
	if c.MergeTag != "" {
		b.WriteString("\nmergetag ")
		b.WriteString(strings.Join(strings.Split(strings.TrimSuffix(c.MergeTag, "\n"), "\n"), "\n "))
	}
	if c.Encoding != "" && c.Encoding != "UTF-8" {
		b.WriteString("\nencoding " + c.Encoding)
	}
	if c.PGPSignature != "" && includeSig {
		b.WriteString("\ngpgsig ")
		b.WriteString(strings.Join(strings.Split(strings.TrimSuffix(c.PGPSignature, "\n"), "\n"), "\n "))
	}
	b.WriteString("\n\n")
	b.WriteString(c.Message)
	return []byte(b.String())
}
