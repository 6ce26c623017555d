package service

import (
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// What only git has: the hooks that verify record commits where git runs
// them, the merge driver git merge calls for record files, and hand-commit
// signing in a checkout of the records branch.

// Where a forge runs a server repository's custom hooks (HooksRequest.Forge).
const (
	ForgeGitea  = string(hooks.ForgeGitea)  // hooks/<hook>.d/git-records; Forgejo's too
	ForgeGitLab = string(hooks.ForgeGitLab) // custom_hooks/<hook>.d/git-records
)

// HooksRequest says which hooks to install and where.
type HooksRequest struct {
	Server bool   // pre-receive and update, for a bare server repository
	Forge  string // with Server: gitea, forgejo, gitlab, none, or "" to detect
	Binary string // the git-records the hooks run
}

// InstalledHook reports what an install did for one hook.
type InstalledHook struct {
	Hook    string `json:"hook"`
	Path    string `json:"path"`
	Chained string `json:"chained,omitempty"` // the previous hook, now run first
	// Forge is set when the hook went where a forge runs custom hooks: the
	// forge's own hook runs it.
	Forge string `json:"forge,omitempty"`
	// Restored is a forge's own hook that an earlier install of ours in
	// its place had chained: it is back, and runs ours from its directory.
	Restored string `json:"restored,omitempty"`
}

// HandSigning is how `git commit` in a worktree with the records branch
// checked out signs with the key git-records signs with: what was set,
// or the user's own settings kept and the command to sign with instead.
type HandSigning struct {
	Key   string            `json:"key"`
	Scope string            `json:"scope,omitempty"` // where Set went: "worktree" or "repository"
	Set   map[string]string `json:"set,omitempty"`
	Kept  map[string]string `json:"kept,omitempty"`
	Run   string            `json:"run"`
}

// HooksInstalled is what InstallHooks did.
type HooksInstalled struct {
	Hooks []InstalledHook
	// AttributesCommit is the commit that put the .gitattributes routing
	// record files to the merge driver on the branch ("" for none), and
	// AttributesErr why it was not committed: the hooks are in either way.
	AttributesCommit string
	AttributesErr    error
	HandSigning      *HandSigning
}

// InstallHooks installs the client hooks (pre-commit, commit-msg,
// pre-push), the merge driver with the branch's .gitattributes for it, and
// hand-commit signing; or, with Server, the server hooks.
func (s *Service) InstallHooks(req HooksRequest) (*HooksInstalled, error) {
	g, err := s.needsGit("hooks")
	if err != nil {
		return nil, err
	}
	forge, err := hooks.ParseForge(req.Forge)
	if err != nil {
		return nil, err
	}
	if req.Forge != "" && !req.Server {
		return nil, kernel.Errorf(kernel.CodeUsage, "--forge places the server hooks: add --server").WithExtra("flag", "--forge")
	}
	var done []hooks.Installed
	if req.Server {
		done, err = hooks.InstallServer(g, forge, req.Binary)
	} else {
		done, err = hooks.Install(g, false, req.Binary)
	}
	if err != nil {
		return nil, err
	}
	out := &HooksInstalled{Hooks: each(done, func(h hooks.Installed) InstalledHook { return InstalledHook(h) })}
	if req.Server {
		return out, nil
	}
	// The hooks are in; the branch's .gitattributes is a convenience for
	// plain git merge, and committing it can fail for reasons that must
	// not undo the install (no signing key yet, a contributor's profile).
	out.AttributesCommit, out.AttributesErr = s.installMergeDriver(g, req.Binary)
	hs, err := hooks.SetUpHandSigning(g)
	if err != nil {
		return out, err // what was installed, and why signing was not set up
	}
	if hs != nil {
		h := HandSigning(*hs)
		out.HandSigning = &h
	}
	return out, nil
}

// installMergeDriver registers the driver and, when the branch lacks it,
// commits the .gitattributes that routes record files to it, returning
// that commit ("" when nothing was committed).
func (s *Service) installMergeDriver(g *gitstore.Store, bin string) (string, error) {
	if err := hooks.InstallMergeDriver(g, bin); err != nil {
		return "", err
	}
	tip, err := g.Tip()
	if err != nil || tip.IsZero() {
		return "", err
	}
	if g.HeadBranch() == g.Ref() {
		// Moving the checked-out branch under its index would make the
		// next hand commit delete the file again.
		if v, err := g.View(); err != nil {
			return "", err
		} else if cur, err := v.ReadFile(kernel.AttributesPath); err != nil || string(cur) == gitstore.Attributes {
			return "", err
		}
		return "", kernel.Errorf(kernel.CodeUsage, "%s is checked out here; run hooks install from a checkout of another branch to commit it", g.Ref())
	}
	_, email := g.Ident()
	res, err := s.write("", kernel.Approval{}, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		snap, err := snapshotOf(v)
		if err != nil {
			return nil, err
		}
		cur, err := snap.ReadFile(kernel.AttributesPath)
		if err != nil || string(cur) == gitstore.Attributes {
			return nil, err
		}
		return &kernel.Mutation{Op: kernel.OpInit, Type: "store", Title: "route record files to the records merge driver",
			Files: map[string][]byte{kernel.AttributesPath: []byte(gitstore.Attributes)},
			Trailers: []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpInit)}, {Key: kernel.TrailerAgent, Value: email},
				{Key: kernel.TrailerFormat, Value: kernel.FormatVersion}}}, nil
	})
	if err != nil {
		return "", err
	}
	return res.Commit, nil
}

// RemovedHook is one hook an uninstall took out, and the hook it had
// chained, back in its place.
type RemovedHook struct {
	Hook     string `json:"hook"`
	Path     string `json:"path"`
	Restored string `json:"restored,omitempty"`
}

// UninstallHooks removes the hooks, from hooks/ and from where forges run
// them, and puts back the ones they chained.
func (s *Service) UninstallHooks() ([]RemovedHook, error) {
	g, err := s.needsGit("hooks")
	if err != nil {
		return nil, err
	}
	removed, err := hooks.Uninstall(g)
	return each(removed, func(r hooks.Removed) RemovedHook { return RemovedHook(r) }), err
}

// HookRun is one run of a git hook, as the installed hook scripts call it.
type HookRun struct {
	Name   string    // the git hook: pre-commit, commit-msg, pre-push, pre-receive, update
	Args   []string  // git's arguments to it
	In     io.Reader // its standard input (the ref updates of a push)
	ErrOut io.Writer // where it says what it refused or accepted
	Getenv func(string) string
}

// RunHook runs a git hook: ok is false when it refuses what git is about
// to do (it said why on ErrOut).
func (s *Service) RunHook(h HookRun) (ok bool, err error) {
	g, err := s.needsGit("a git hook")
	if err != nil {
		return false, err
	}
	switch h.Name {
	case "pre-commit":
		return hooks.PreCommit(g, h.ErrOut)
	case "commit-msg":
		if len(h.Args) < 1 {
			return false, kernel.Errorf(kernel.CodeUsage, "commit-msg needs the message file")
		}
		return hooks.CommitMsg(g, h.Args[0], h.ErrOut)
	case "pre-push", "pre-receive", "update":
		var updates []hooks.RefUpdate
		switch h.Name {
		case "update":
			if len(h.Args) < 3 {
				return false, kernel.Errorf(kernel.CodeUsage, "update needs <ref> <old> <new>")
			}
			updates = []hooks.RefUpdate{{Ref: h.Args[0], Old: plumbing.NewHash(h.Args[1]), New: plumbing.NewHash(h.Args[2])}}
		case "pre-push":
			if h.Getenv("PRE_COMMIT") == "1" {
				updates, err = hooks.PreCommitFrameworkUpdates(g, h.Getenv)
				break
			}
			updates, err = hooks.ParseRefUpdates(h.In, true)
		default:
			updates, err = hooks.ParseRefUpdates(h.In, false)
		}
		if err != nil {
			return false, err
		}
		if h.Name == "update" && hooks.TakeReceipt(g, updates[0], time.Now()) {
			return true, nil // pre-receive judged and accepted this ref update
		}
		rep, err := hooks.VerifyUpdates(g, updates, h.Name != "pre-push", hooks.Options{Receipt: true})
		if err != nil {
			return false, err
		}
		if h.Name == "pre-receive" && rep.OK {
			hooks.LeaveReceipts(g, updates, time.Now())
		}
		switch {
		case !rep.OK:
			hooks.WriteRejection(h.ErrOut, "push", rep)
		case h.Name == "pre-push":
			hooks.WriteRejection(h.ErrOut, "push", rep) // quiet unless there are warnings
		case h.Name == "update" && hooks.PreReceiveInstalled(g):
			// pre-receive said it for the whole push
		case rep.Commits > 0:
			hooks.WriteVerified(h.ErrOut, rep)
		}
		return rep.OK, nil
	}
	return false, kernel.Errorf(kernel.CodeUsage, "unknown hook %q", h.Name)
}

// WriteRejection says what a verification refused, rule by rule with its
// fix, as the hooks say it (or, for a report that passed, its warnings).
func WriteRejection(w io.Writer, what string, rep *Report) {
	hooks.WriteRejection(w, what, hooksReport(rep))
}

func hooksReport(r *Report) *hooks.Report {
	finding := func(f Finding) hooks.Finding { return hooks.Finding(f) }
	return &hooks.Report{Commits: r.Commits, OK: r.OK, Violations: each(r.Violations, finding), Warnings: each(r.Warnings, finding)}
}

// MergeRecordFiles is git's merge driver for one record file: the record
// three ways (base, ours, theirs: files, empty where the record does not
// exist on that side), written back to ours. A conflict in a field is
// resolved as the branch's merge resolves it, the losing value kept in the
// record's mutation log under agent.
func MergeRecordFiles(base, ours, theirs, agent string) error {
	read := func(p string) (*kernel.Record, error) {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, kernel.Wrap(kernel.CodeUsage, err, "read %s", p)
		}
		if len(strings.TrimSpace(string(data))) == 0 {
			return nil, nil // the file does not exist on that side
		}
		return gitstore.DecodeRecord(data)
	}
	b, err := read(base)
	if err != nil {
		return err
	}
	o, err := read(ours)
	if err != nil {
		return err
	}
	t, err := read(theirs)
	if err != nil {
		return err
	}
	oursID, theirsID := mergeSides()
	res := kernel.MergeRecord(b, kernel.Side{Record: o, Commit: oursID}, kernel.Side{Record: t, Commit: theirsID},
		kernel.MergeInfo{At: time.Now().Truncate(time.Second), Agent: agent, Text: gitstore.MergeText})
	if res.Record == nil {
		return nil
	}
	data, err := gitstore.EncodeRecord(res.Record)
	if err != nil {
		return err
	}
	return os.WriteFile(ours, data, 0o644)
}

// mergeSides names the two sides of the merge git is running, so a tie
// between equal mutation times goes to the larger commit id exactly as in
// sync, and the log entries name commits: ours is HEAD, theirs the commit
// git announces to merge drivers as GITHEAD_<id>. Outside a merge the
// sides keep the labels "ours" and "theirs".
func mergeSides() (ours, theirs string) {
	ours, theirs = "ours", "theirs"
	if run := gitdir.Run("", "rev-parse", "--verify", "-q", "HEAD"); run.Err == nil {
		ours = strings.TrimSpace(string(run.Stdout))
	}
	var heads []string
	for _, kv := range os.Environ() {
		if name, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(name, "GITHEAD_") && len(name) == len("GITHEAD_")+40 {
			heads = append(heads, strings.ToLower(strings.TrimPrefix(name, "GITHEAD_")))
		}
	}
	if len(heads) == 1 {
		theirs = heads[0]
	}
	return ours, theirs
}
