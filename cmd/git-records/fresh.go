package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

func (a *app) freshCommand() *cobra.Command {
	var record, exitCode bool
	var ev kernel.Evidence
	c := &cobra.Command{
		Use:   "fresh [<handle>…] [--record --agent A]",
		Short: "Check records against the working tree as it is now: current, stale, superseded, unknown, unavailable",
		Long: `fresh derives each record's freshness from content, not commit ids: a record
whose scoped files hash as they did when it was written is current, even after
a rebase or unrelated commits; an edit to a scoped file makes it stale at
once, committed or not. Past expires_at / ttl_seconds is stale too, an inbound
supersedes link makes it superseded, no scope is unknown, and a scope that
cannot be read here is unavailable. Without handles it checks every record
that is not retired. --record writes changed verdicts back in one verify
commit (records whose verdict did not change are not rewritten).
--exit-code exits 1 when any record checked is stale, for CI.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			scanner := a.scanner()
			judge := func(v *gitstore.View) ([]kernel.Verdict, error) {
				records, err := a.freshnessTargets(v, args)
				if err != nil {
					return nil, err
				}
				return freshness(v, records, scanner, time.Now())
			}
			var verdicts []kernel.Verdict
			if !record {
				v, err := a.view()
				if err != nil {
					return err
				}
				if verdicts, err = judge(v); err != nil {
					return err
				}
			} else {
				// The verdicts are derived from the tip they are written
				// on: a record updated meanwhile is judged as it is now.
				w, err := a.mutate(func(kv kernel.View, env kernel.Env) (*kernel.Mutation, error) {
					var err error
					if verdicts, err = judge(kv.(*gitstore.View)); err != nil {
						return nil, err
					}
					return kernel.RecordVerdicts(kv, verdicts, scanner.Head(), "", ev, env)
				})
				if err != nil {
					return err
				}
				if !a.jsonOut {
					if w.Commit.IsZero() {
						fmt.Fprintln(a.err, "no verdict changed: nothing written")
					} else {
						fmt.Fprintf(a.err, "recorded %d verdicts in %s\n", len(w.Mutation.Writes), w.Commit.String()[:12])
					}
				}
			}
			if a.jsonOut {
				a.writeJSON(verdicts)
			} else {
				for _, vd := range verdicts {
					extra := ""
					if len(vd.ChangedPaths) > 0 {
						extra = ": " + strings.Join(vd.ChangedPaths, ", ")
					}
					fmt.Fprintf(a.out, "%-8s %-11s %s%s\n", shortID(vd.ID), vd.State, vd.Reason, extra)
				}
			}
			if exitCode && slices.ContainsFunc(verdicts, func(vd kernel.Verdict) bool { return vd.State == kernel.FreshnessStale }) {
				return errSilent
			}
			return nil
		},
	}
	c.Flags().BoolVar(&record, "record", false, "write changed verdicts back as a verify commit")
	c.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when any record is stale (for CI)")
	a.evidenceFlags(c, &ev)
	return c
}

// scanner evaluates scopes against the working tree around the current directory.
func (a *app) scanner() *gitstore.ScopeScanner {
	wd, _ := os.Getwd()
	return gitstore.NewScopeScanner(wd)
}

func (a *app) freshnessTargets(v *gitstore.View, handles []string) ([]*kernel.Record, error) {
	if len(handles) == 0 {
		return v.List(gitstore.Filter{})
	}
	var out []*kernel.Record
	for _, h := range handles {
		r, err := v.Get(h)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, kernel.Errorf(kernel.CodeNotFound, "no record matches %q", h)
		}
		out = append(out, r)
	}
	return out, nil
}

// freshness derives the verdict of each record; superseded comes from the
// index's backlinks, scoped content from the scanner.
func freshness(v *gitstore.View, records []*kernel.Record, scanner *gitstore.ScopeScanner, now time.Time) ([]kernel.Verdict, error) {
	ix, err := v.Index()
	if err != nil {
		return nil, err
	}
	out := make([]kernel.Verdict, 0, len(records))
	for _, r := range records {
		superseded := false
		for _, e := range ix.Reverse(r.ID) {
			if e.Kind == kernel.LinkSupersedes {
				superseded = true
				break
			}
		}
		out = append(out, kernel.DeriveFreshness(r, now, superseded, scanner.State))
	}
	return out, nil
}

// captureScope fills a scope given by paths (relative to the current
// directory) with the working tree's HEAD, base and content hashes.
func (a *app) captureScope(paths []string) (*kernel.Scope, error) {
	return a.capture(&kernel.Scope{Paths: paths})
}

// capture is gitstore.CaptureScope from the current directory.
func (a *app) capture(sc *kernel.Scope) (*kernel.Scope, error) {
	wd, _ := os.Getwd()
	return gitstore.CaptureScope(wd, sc)
}
