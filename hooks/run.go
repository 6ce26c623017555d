package hooks

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// RuleHistory: a records branch only grows; it is never rewound or deleted.
const RuleHistory = "history"

// RefUpdate is one ref a push changes.
type RefUpdate struct {
	Ref      string
	Old, New plumbing.Hash
}

// isRecordsRef reports whether a pushed ref carries records: the store's
// own ref, or any branch whose tip has .records/format (feature record
// branches under review).
func isRecordsRef(s *gitstore.Store, u RefUpdate) bool {
	if u.Ref == s.Ref() {
		return true
	}
	if u.New.IsZero() || !strings.HasPrefix(u.Ref, "refs/heads/") {
		return false
	}
	v, err := s.ViewAt(u.New)
	if err != nil {
		return false
	}
	h, _ := v.FileHash(gitstore.FormatPath)
	return !h.IsZero()
}

// VerifyUpdates judges the commits a push brings to records refs. The
// store's ref is judged old..new (the first one whole). On the server
// (excludeAll), a review branch is judged for every commit that neither the
// store's ref nor its own old tip (when that was a records tip, and so
// judged) already holds: a tag or a branch without records is never judged,
// so what it holds counts for nothing. Client side (pre-push) a ref is
// judged old..new, a new one whole. Rewinding a records ref or deleting the
// store's ref is a violation.
func VerifyUpdates(s *gitstore.Store, updates []RefUpdate, excludeAll bool, opts Options) (*Report, error) {
	total := &Report{Violations: []Finding{}, Warnings: []Finding{}}
	storeTip, err := s.Tip()
	if err != nil {
		return nil, err
	}
	if excludeAll && !storeTip.IsZero() {
		// The server moves its index to the branch's tip, judged already,
		// before it judges what a push brings: the handles the push's
		// commits ask for then cost a catch-up over the last push, not
		// over every push since the index was built. A cache: failing to
		// move it only costs speed.
		if v, err := s.View(); err == nil {
			_, _ = v.Index()
		}
	}
	// A commit that several pushed refs bring is judged, and counted,
	// once: the person pushing reads one summary of the push.
	judged := map[plumbing.Hash]bool{}
	for _, u := range updates {
		if !isRecordsRef(s, u) {
			continue
		}
		if u.New.IsZero() {
			if u.Ref == s.Ref() {
				total.Violations = append(total.Violations, Finding{Commit: u.Old.String(), Rule: RuleHistory, Severity: "error",
					Message: "deleting " + u.Ref + " would delete every record", Fix: "records are retired or superseded, never deleted"})
			}
			continue
		}
		if !u.Old.IsZero() && !s.IsAncestor(u.Old, u.New) {
			total.Violations = append(total.Violations, Finding{Commit: u.New.String(), Rule: RuleHistory, Severity: "error",
				Message: fmt.Sprintf("%s would be rewound from %s: records history is append-only", u.Ref, u.Old.String()[:12]),
				Fix:     "fetch and merge (git records sync) instead of force-pushing"})
			continue
		}
		args := []string{u.New.String()}
		switch {
		case u.Ref == s.Ref() || !excludeAll:
			if !u.Old.IsZero() {
				args = append(args, "^"+u.Old.String())
			}
		default:
			// A review branch on the server. Only the store's ref and a
			// records tip this ref had were judged when pushed; "--not
			// --all" would trust a tag or a code branch that carried a
			// forged commit in first.
			if !storeTip.IsZero() {
				args = append(args, "^"+storeTip.String())
			}
			if !u.Old.IsZero() && isRecordsRef(s, RefUpdate{Ref: u.Ref, New: u.Old}) {
				args = append(args, "^"+u.Old.String())
			}
		}
		listed, err := s.RevList(args...)
		if err != nil {
			return nil, err
		}
		commits := listed[:0:0]
		for _, c := range listed {
			if !judged[c] {
				judged[c] = true
				commits = append(commits, c)
			}
		}
		rep, err := Verify(s, commits, opts)
		if err != nil {
			return nil, err
		}
		total.Commits += rep.Commits
		total.Violations = append(total.Violations, rep.Violations...)
		total.Warnings = append(total.Warnings, rep.Warnings...)
	}
	total.OK = len(total.Violations) == 0
	return total, nil
}

// ParseRefUpdates reads "<old> <new> <ref>" lines (pre-receive) or, with
// prePush, "<local ref> <local sha> <remote ref> <remote sha>" lines.
func ParseRefUpdates(r io.Reader, prePush bool) ([]RefUpdate, error) {
	var out []RefUpdate
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if prePush && len(f) == 4 {
			// What matters is the ref the push changes on the remote:
			// the local side may be "(delete)", a commit id or HEAD.
			out = append(out, RefUpdate{Ref: f[2], New: plumbing.NewHash(f[1]), Old: plumbing.NewHash(f[3])})
			continue
		}
		if !prePush && len(f) == 3 {
			out = append(out, RefUpdate{Ref: f[2], Old: plumbing.NewHash(f[0]), New: plumbing.NewHash(f[1])})
			continue
		}
		return nil, kernel.Errorf(kernel.CodeUsage, "unexpected hook input line %q", sc.Text())
	}
	return out, sc.Err()
}

// PreCommitFrameworkUpdates is what a pre-push hook run by the pre-commit
// framework is about to push. pre-commit reads git's pre-push input itself
// and hands its hooks the first ref it will push instead:
// PRE_COMMIT_REMOTE_BRANCH (the ref on the remote), PRE_COMMIT_LOCAL_BRANCH
// (the local one), PRE_COMMIT_TO_REF (its commit)
// and PRE_COMMIT_FROM_REF (the last commit the remote already has; unset
// when the whole history is new). Without them there is nothing to judge.
func PreCommitFrameworkUpdates(s *gitstore.Store, getenv func(string) string) ([]RefUpdate, error) {
	local, to, from := getenv("PRE_COMMIT_LOCAL_BRANCH"), getenv("PRE_COMMIT_TO_REF"), getenv("PRE_COMMIT_FROM_REF")
	if to == "" {
		to = local
	}
	if to == "" {
		return nil, nil
	}
	u := RefUpdate{Ref: getenv("PRE_COMMIT_REMOTE_BRANCH")} // the ref the push changes, as for git's own pre-push
	if u.Ref == "" {
		u.Ref = local
	}
	var err error
	if u.New, err = s.ResolveRev(to); err != nil {
		return nil, err
	}
	if from != "" {
		if u.Old, err = s.ResolveRev(from); err != nil {
			return nil, err
		}
	}
	return []RefUpdate{u}, nil
}

// WriteRejection prints a report for the person pushing: git shows a hook's
// output prefixed with "remote:", so every finding is one readable block.
// An accepted report prints nothing unless it has warnings.
func WriteRejection(w io.Writer, what string, rep *Report) {
	if rep.OK {
		if len(rep.Warnings) > 0 {
			WriteVerified(w, rep)
		}
		return
	}
	fmt.Fprintf(w, "git-records: %s rejected: %d violations in %d commits\n", what, len(rep.Violations), rep.Commits)
	for _, f := range rep.Violations {
		where := f.Commit
		if len(where) > 12 {
			where = where[:12]
		}
		if f.Record != "" {
			where += " record " + f.Record
		}
		fmt.Fprintf(w, "  ✗ [%s] %s: %s\n      fix: %s\n", f.Rule, where, f.Message, f.Fix)
	}
}

// WriteVerified is the one line a hook prints about what it accepted.
func WriteVerified(w io.Writer, rep *Report) {
	line := "git-records: " + plural(rep.Commits, "commit") + " verified"
	if len(rep.Warnings) > 0 {
		line += ", " + plural(len(rep.Warnings), "warning")
	}
	fmt.Fprintln(w, line)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// onRecordsBranch reports whether HEAD is a records branch checked out for
// hand edits (pre-commit and commit-msg do nothing elsewhere).
func onRecordsBranch(s *gitstore.Store) bool {
	head := s.HeadBranch()
	if head == "" {
		return false
	}
	if head == s.Ref() {
		return true
	}
	changes, err := s.StagedChanges()
	if err != nil {
		return false
	}
	for _, c := range changes {
		if c.Path == gitstore.FormatPath || strings.HasPrefix(c.Path, "records/") {
			if tip, err := s.ResolveRev("HEAD"); err == nil {
				v, err := s.ViewAt(tip)
				if err == nil {
					h, _ := v.FileHash(gitstore.FormatPath)
					return !h.IsZero()
				}
			}
			return c.Path == gitstore.FormatPath
		}
	}
	return false
}

// PreCommit validates the staged records of a hand edit: each parses, sits
// at its path, keeps its immutable fields, and only appends to its log.
func PreCommit(s *gitstore.Store, w io.Writer) (bool, error) {
	if !onRecordsBranch(s) {
		return true, nil
	}
	changes, err := s.StagedChanges()
	if err != nil {
		return false, err
	}
	files, err := s.Walk().FileChanges(changes)
	if err != nil {
		return false, err
	}
	verdict, err := kernel.JudgeCommit(kernel.CommitFacts{Staged: true, Files: kernel.FileList(files)})
	if err != nil {
		return false, err
	}
	rep := &Report{Commits: 1}
	for _, f := range findingsOf("staged", verdict.Violations) {
		if f.Severity == "error" {
			rep.Violations = append(rep.Violations, f)
		}
	}
	rep.OK = len(rep.Violations) == 0
	WriteRejection(w, "commit", rep)
	return rep.OK, nil
}

// CommitMsg makes a hand-written commit on a records branch carry the
// evidence trailers: when the message has none it derives them from the
// mutation-log entries the staged records append; when it has some, they
// must be complete.
func CommitMsg(s *gitstore.Store, msgFile string, w io.Writer) (bool, error) {
	if !onRecordsBranch(s) {
		return true, nil
	}
	data, err := os.ReadFile(msgFile)
	if err != nil {
		return false, kernel.Wrap(kernel.CodeUsage, err, "read commit message")
	}
	text := messageAsCommitted(s, string(data))
	if msg, err := gitstore.DecodeMessage(text); err == nil && msg.Get(kernel.TrailerOp) != "" {
		return true, nil // written by git records or by hand: verify judges it on push
	}
	changes, err := s.StagedChanges()
	if err != nil {
		return false, err
	}
	files, err := s.Walk().FileChanges(changes)
	if err != nil {
		return false, err
	}
	agent, mergedFrom := os.Getenv("GIT_RECORDS_AGENT"), ""
	if head, err := s.ResolveRev("MERGE_HEAD"); err == nil {
		// git merge / git pull: the merge driver merged the records; the
		// commit is a merge of MERGE_HEAD, whatever ops the sides appended.
		mergedFrom = head.String()
		if agent == "" {
			_, agent = s.Ident()
		}
	}
	trailers, problem := kernel.ImpliedTrailers(files, mergedFrom, agent)
	if problem != "" {
		fmt.Fprintf(w, "git-records: %s\n", problem)
		return false, nil
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(text, "\n"))
	b.WriteString("\n\n")
	for _, t := range trailers {
		fmt.Fprintf(&b, "%s: %s\n", t.Key, gitstore.EscapeTrailerValue(t.Value))
	}
	return true, os.WriteFile(msgFile, []byte(b.String()), 0o644)
}

// messageAsCommitted is the message file as git will commit it, so the
// trailers go at its real end. git runs commit-msg with GIT_EDITOR=: when
// no editor was opened (-m, -F): then, unless commit.cleanup says strip,
// every line is kept, a subject starting with "#" too. After an editor git
// strips comment lines and, with -v, everything from the scissors line on
// (the diff): the trailers must come before those, not after.
func messageAsCommitted(s *gitstore.Store, text string) string {
	cleanup, _ := s.ConfigValue("commit.cleanup")
	if os.Getenv("GIT_EDITOR") == ":" && cleanup != "strip" && cleanup != "scissors" {
		return text
	}
	comment := "#"
	if c, ok := s.ConfigValue("core.commentChar"); ok && len(c) == 1 {
		comment = c
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l == comment+" ------------------------ >8 ------------------------" {
			break
		}
		if !strings.HasPrefix(l, comment) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
