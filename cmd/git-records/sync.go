package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// syncCommand builds sync, pull and push: one mechanism, three directions.
func (a *app) syncCommand(use string, pull, push bool, short string) *cobra.Command {
	var agent string
	c := &cobra.Command{
		Use:   use + " [<remote>]",
		Short: short,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			remote := s.DefaultRemote()
			if len(args) == 1 {
				remote = args[0]
			}
			if agent == "" {
				_, agent = s.Ident()
			}
			approval, err := a.gateApproval()
			if err != nil {
				return err
			}
			var refused *hooks.Report
			var incoming []plumbing.Hash
			res, err := s.Sync(gitstore.SyncOptions{Remote: remote, Pull: pull, Push: push, Agent: agent, Approval: approval,
				Check: func(commits []plumbing.Hash) error {
					incoming = append(incoming, commits...)
					meter := a.progressMeter("Verifying commits")
					rep, err := hooks.Verify(s, commits, hooks.Options{Progress: meter.Func()})
					meter.Stop()
					if err != nil {
						return err
					}
					if !rep.OK {
						refused = rep
						return kernel.Errorf(kernel.CodeVerifyFailed, "refused %d commits from %s: %d violations; nothing was merged", len(commits), remote, len(rep.Violations)).
							WithExtra("violations", rep.Violations)
					}
					return nil
				}})
			if refused != nil && !a.jsonOut {
				hooks.WriteRejection(a.err, "sync from "+remote, refused)
			}
			// The signers may have changed with what came in: keep the file
			// git verify-commit and git log --show-signature read current.
			_ = s.ExportAllowedSigners()
			if err != nil {
				return err
			}
			if res.Merge != nil && res.Merge.Kind == "fast-forward" && len(res.Merge.Conflicts) == 0 {
				// The clone that fast-forwards over a merge commit learns
				// what that merge resolved from its Evidence-Conflict
				// trailers: a conflict is never silent on either clone.
				res.Merge.Conflicts = resolvedConflicts(s, incoming)
			}
			if a.jsonOut {
				a.writeJSON(res)
				return nil
			}
			a.printSync(res)
			return nil
		},
	}
	c.Flags().StringVar(&agent, "agent", os.Getenv("GIT_RECORDS_AGENT"), "agent recorded on merge commits (default: user.email)")
	if pull {
		a.approvalFlags(c)
	}
	return c
}

func (a *app) printSync(res *gitstore.SyncResult) {
	if res.Merge != nil {
		m := res.Merge
		switch m.Kind {
		case "up-to-date":
			fmt.Fprintf(a.out, "%s: up to date with %s\n", res.Ref, res.Remote)
		case "fast-forward":
			fmt.Fprintf(a.out, "%s: fast-forward to %s (%d new commits verified)\n", res.Ref, m.Commit.String()[:12], res.Incoming)
			if len(m.Conflicts) > 0 {
				fmt.Fprintf(a.out, "%s: the merges brought in resolved %d conflicts:\n", res.Ref, len(m.Conflicts))
			}
			for _, c := range m.Conflicts {
				fmt.Fprintf(a.out, "  both changed %s %s: kept the value from %s, the other is in its mutation log\n", c.ID, c.Field, short12(c.Kept))
			}
		default:
			fmt.Fprintf(a.out, "%s: merged %d commits from %s in %s: %d records, %d conflicts resolved\n",
				res.Ref, res.Incoming, res.Remote, m.Commit.String()[:12], len(m.Records), len(m.Conflicts))
			for _, c := range m.Conflicts {
				fmt.Fprintf(a.out, "  both changed %s %s: kept the value from %s, the other is in its mutation log\n", c.ID, c.Field, short12(c.Kept))
			}
		}
	}
	if res.Pushed {
		fmt.Fprintf(a.out, "%s: pushed to %s\n", res.Ref, res.Remote)
	}
}

func short12(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// resolvedConflicts reads the conflicts that the merge commits among
// commits resolved, from their Evidence-Conflict trailers
// ("<id> <field> kept <commit>").
func resolvedConflicts(s *gitstore.Store, commits []plumbing.Hash) []kernel.Conflict {
	var out []kernel.Conflict
	for _, h := range commits {
		c, err := s.Commit(h)
		if err != nil || len(c.ParentHashes) < 2 {
			continue
		}
		msg, err := gitstore.DecodeMessage(c.Message)
		if err != nil {
			continue
		}
		for _, v := range msg.All(kernel.TrailerConflict) {
			f := strings.Fields(v)
			if len(f) != 4 || f[2] != "kept" {
				continue
			}
			out = append(out, kernel.Conflict{ID: f[0], Field: f[1], Kept: f[3]})
		}
	}
	return out
}

func (a *app) mergeCommand() *cobra.Command {
	var agent string
	c := &cobra.Command{
		Use:   "merge <branch>",
		Short: "Merge a reviewed records branch into the records branch, record by record",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			theirs, err := s.ResolveRev(args[0])
			if err != nil {
				return err
			}
			tip, err := s.Tip()
			if err != nil {
				return err
			}
			rangeArgs := []string{theirs.String()}
			if !tip.IsZero() {
				rangeArgs = append(rangeArgs, "--not", tip.String())
			}
			commits, err := s.RevList(rangeArgs...)
			if err != nil {
				return err
			}
			rep, err := hooks.Verify(s, commits, hooks.Options{})
			if err != nil {
				return err
			}
			if !rep.OK {
				hooks.WriteRejection(a.err, "merge of "+args[0], rep)
				return kernel.Errorf(kernel.CodeVerifyFailed, "%s has %d violations: nothing was merged", args[0], len(rep.Violations))
			}
			if agent == "" {
				_, agent = s.Ident()
			}
			approval, err := a.gateApproval()
			if err != nil {
				return err
			}
			out, err := s.MergeApproved(theirs, agent, approval)
			if err != nil {
				return err
			}
			_ = s.ExportAllowedSigners()
			if a.jsonOut {
				a.writeJSON(out)
				return nil
			}
			a.printSync(&gitstore.SyncResult{Ref: s.Ref(), Remote: args[0], Incoming: len(commits), Merge: out})
			return nil
		},
	}
	c.Flags().StringVar(&agent, "agent", os.Getenv("GIT_RECORDS_AGENT"), "agent recorded on the merge commit")
	a.approvalFlags(c)
	return c
}

// mergeDriverCommand is git's merge driver for record files
// (merge.records.driver = git-records merge-driver %O %A %B %P): git merge
// and git pull of records branches use the same record-level merge.
func (a *app) mergeDriverCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "merge-driver <base> <ours> <theirs> [<path>]",
		Short:  "Merge one record file three ways (git's merge driver)",
		Hidden: true,
		Args:   cobra.RangeArgs(3, 4),
		RunE: func(cmd *cobra.Command, args []string) error {
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
			base, err := read(args[0])
			if err != nil {
				return err
			}
			ours, err := read(args[1])
			if err != nil {
				return err
			}
			theirs, err := read(args[2])
			if err != nil {
				return err
			}
			agent := os.Getenv("GIT_RECORDS_AGENT")
			if agent == "" {
				agent = "git merge"
			}
			oursID, theirsID := mergeDriverSides()
			res := kernel.MergeRecord(base, kernel.Side{Record: ours, Commit: oursID}, kernel.Side{Record: theirs, Commit: theirsID},
				kernel.MergeInfo{At: time.Now().Truncate(time.Second), Agent: agent, Text: gitstore.MergeText})
			if res.Record == nil {
				return nil
			}
			data, err := gitstore.EncodeRecord(res.Record)
			if err != nil {
				return err
			}
			return os.WriteFile(args[1], data, 0o644)
		},
	}
}

// mergeDriverSides names the two sides of the merge git is running, so a
// tie between equal mutation times goes to the larger commit id exactly as
// in sync, and the log entries name commits: ours is HEAD, theirs the
// commit git announces to merge drivers as GITHEAD_<id>. Outside a merge
// the sides keep the labels "ours" and "theirs".
func mergeDriverSides() (ours, theirs string) {
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
