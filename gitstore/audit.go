package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-records/git-records/kernel"
)

// Call is who asks the write path for an op and with what: the front-end
// (cli, contract, mcp), the op it asked for, the agent and the input, which
// the audit line keeps as a digest only. Decided ops are audited under the
// op they decided (a `signers add` is a policy commit); an op refused
// before it decided anything is audited under Call.Op.
type Call struct {
	Front string
	Op    string
	Agent string
	Input any
}

// Audit results, as kernel.AuditLine.Result has them.
const (
	AuditAllowed = kernel.AuditAllowed
	AuditDenied  = kernel.AuditDenied
)

// DefaultAuditMaxBytes is the size at which the audit log rotates.
const DefaultAuditMaxBytes = 8 << 20

// AuditLogPath is the local audit log: .git/records/audit.jsonl. Rotated
// parts are audit.jsonl.1, audit.jsonl.2, … (oldest first).
func (s *Store) AuditLogPath() string { return filepath.Join(s.dataDir(), "audit.jsonl") }

// SetCall names the caller of every op this store writes without a call of
// its own (Mutate, Merge, Init): a front-end sets it once per request.
func (s *Store) SetCall(c Call) { s.call = c }

// callFor is the store's call for an op of the store's own (init, merge):
// the front-end's, with the op and agent filled in when it named none.
func (s *Store) callFor(op kernel.Op, agent string) Call {
	c := s.call
	if c.Op == "" {
		c.Op = string(op)
	}
	if c.Agent == "" {
		c.Agent = agent
	}
	return c
}

// auditState is what one run of the write loop learnt, for its audit line.
type auditState struct {
	view *View
	m    *kernel.Mutation
	auth kernel.Authorization
	// streamed: m's records were written as they were decided
	// (stream.go): its trailers name them.
	streamed bool
}

// auditOp appends the one audit line of an op: whatever happened, allowed
// or refused at any step, the op leaves exactly one line.
func (s *Store) auditOp(call Call, st *auditState, approval kernel.Approval, start time.Time, w *Written, err error) {
	l := kernel.AuditLine{Time: kernel.At(start).String(), Op: call.Op, Front: call.Front, Agent: call.Agent,
		Principal: st.auth.Principal, Rule: st.auth.Decision.Rule, Reason: st.auth.Decision.Reason, Risk: st.auth.Decision.Risk}
	if call.Input != nil {
		l.InputDigest = kernel.AuditDigest(call.Input)
	}
	if m := st.m; m != nil {
		l.Op = string(m.Op)
		if l.Agent == "" {
			l.Agent = trailerValue(m.Trailers, kernel.TrailerAgent)
		}
		if l.InputDigest == "" {
			l.InputDigest = kernel.AuditDigest(map[string]any{"message": m.Message, "trailers": m.Trailers})
		}
		l.EvidenceRefs.Records = kernel.SortedIDs(m.Writes)
		if st.streamed {
			l.EvidenceRefs.Records = kernel.TrailerValues(m.Trailers, kernel.TrailerID) // sorted
		}
	}
	if r := st.auth.Record; r != "" && !slices.Contains(l.EvidenceRefs.Records, r) {
		l.EvidenceRefs.Records = append(l.EvidenceRefs.Records, r) // the record the deciding rule was about
	}
	if l.Risk == "" {
		l.Risk = kernel.OpSpecs()[kernel.Op(l.Op)].Risk
	}
	if l.Principal == "" {
		l.Principal = s.auditPrincipal(st.view)
	}
	if st.auth.ApprovedBy != "" {
		l.ApprovedBy, l.Approval = st.auth.ApprovedBy, "self"
		if approval.Token != "" {
			l.Approval = "token"
		}
	}
	commit := ""
	if err == nil && w != nil && !w.Commit.IsZero() {
		commit = w.Commit.String()
	}
	l.AuditOutcome(err, commit)
	l.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	s.appendAudit(l)
}

// auditPrincipal is who this store signs as, for an op refused before the
// gate named a principal: the principal of its key under the trust at v,
// else the committer's email.
func (s *Store) auditPrincipal(v *View) string {
	_, email := s.Ident()
	if v == nil {
		return email
	}
	tr, err := v.Trust()
	if err != nil || tr == nil {
		return email
	}
	if p, err := s.PrincipalAt(tr); err == nil {
		return p
	}
	return email
}

func trailerValue(ts []kernel.Trailer, key string) string {
	for _, t := range ts {
		if t.Key == key {
			return t.Value
		}
	}
	return ""
}

// appendAudit appends one line. The log is append-only: each line is one
// write(2) of the whole line under O_APPEND, so concurrent writers never
// interleave. A refusal's line is fsynced before the op returns (the line is
// its only record); an op that landed a commit has that commit, fsynced
// before the ref moved, as durable evidence, so its line is not (an fsync
// costs ~3 ms here, a sixth of a create). Rotation renames the
// full log aside under a lock; a writer still holding the old file appends
// to the rotated part, so no line is lost. Failing to write must not turn a
// clean refusal, or a commit that landed, into a crash: errors are dropped.
func (s *Store) appendAudit(l kernel.AuditLine) {
	line, err := kernel.EncodeAuditLine(l)
	if err != nil {
		return
	}
	path := s.AuditLogPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() >= s.auditMaxBytes() {
		s.rotateAudit(path)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	// A line torn by a power loss or a full disk must not swallow this one.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err == nil && l.Result != kernel.AuditAllowed {
		_ = f.Sync()
	}
}

func (s *Store) auditMaxBytes() int64 {
	if s.opts.AuditMaxBytes > 0 {
		return s.opts.AuditMaxBytes
	}
	return DefaultAuditMaxBytes
}

// lockAudit serializes rotation with itself and with readers listing the
// parts (flock on audit.lock next to the log).
func lockAudit(path string) (func(), error) {
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		return nil, err
	}
	f.Close()
	return lockDir(lock)
}

// rotateAudit renames the log to the next free part number, unless another
// writer rotated it first.
func (s *Store) rotateAudit(path string) {
	unlock, err := lockAudit(path)
	if err != nil {
		return
	}
	defer unlock()
	fi, err := os.Stat(path)
	if err != nil || fi.Size() < s.auditMaxBytes() {
		return
	}
	parts, err := auditParts(path)
	if err != nil {
		return
	}
	next := 1
	if len(parts) > 0 {
		next = parts[len(parts)-1] + 1
	}
	_ = os.Rename(path, path+"."+strconv.Itoa(next))
}

// auditParts lists the numbers of the rotated parts, ascending.
func auditParts(path string) ([]int, error) {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	prefix := filepath.Base(path) + "."
	var parts []int
	for _, e := range entries {
		if n, err := strconv.Atoi(strings.TrimPrefix(e.Name(), prefix)); err == nil && strings.HasPrefix(e.Name(), prefix) && n > 0 {
			parts = append(parts, n)
		}
	}
	sort.Ints(parts)
	return parts, nil
}

// AuditLog is what ReadAudit read: the lines in the order they were
// written, and how many lines it skipped because they do not parse (a line
// torn by a crash).
type AuditLog struct {
	Lines   []kernel.AuditLine
	Skipped int
	Files   []string // the files read, oldest first
}

// ReadAudit reads the audit log, every rotated part in order then the
// current one, keeping the lines written at or after since (zero: all).
// Lines of every older version of the log are read (kernel.ParseAuditLine).
func (s *Store) ReadAudit(since time.Time) (*AuditLog, error) {
	path := s.AuditLogPath()
	out := &AuditLog{}
	if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	files, err := openAuditFiles(path)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "read the audit log %s", path)
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, f := range files {
		out.Files = append(out.Files, f.Name())
		r := bufio.NewReader(f)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				if l, perr := kernel.ParseAuditLine(line); perr != nil {
					out.Skipped++
				} else if l.AuditSince(since) {
					out.Lines = append(out.Lines, l)
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, kernel.Wrap(kernel.CodeInternal, err, "read the audit log %s", f.Name())
			}
		}
	}
	return out, nil
}

// openAuditFiles opens the parts and the current log under the rotation
// lock, so a rotation cannot move a part between listing and opening.
func openAuditFiles(path string) ([]*os.File, error) {
	unlock, err := lockAudit(path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	parts, err := auditParts(path)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(parts)+1)
	for _, n := range parts {
		names = append(names, path+"."+strconv.Itoa(n))
	}
	names = append(names, path)
	var files []*os.File
	for _, name := range names {
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}
