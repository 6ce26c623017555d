package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// capabilityWriteOps are the ops whose policy decision resolves a write capability.
var capabilityWriteOps = []kernel.Op{kernel.OpCreate, kernel.OpLink, kernel.OpVerify}

func (a *app) capabilitiesCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "capabilities",
		Short: "Say which Agent Kit capabilities this store offers here, and why not when it cannot",
		Long: `capabilities answers the Agent Kit's capability resolution for this place:
for record.read/write/query, relation.read/write/query, observe.records,
execute.action verify_record, transform.normalize and subscribe.changes, the
state (available, blocked, unconfigured, unsupported, stale, denied,
errored), the reason, the requirements, the risk and a suggested recovery.
It reads and never writes: a --store DIR that does not exist yet is reported
as set up on first use, not created.

subscribe.changes is available by polling: keep the tip you saw, and ask
git records log --format jsonl --since-commit <tip>.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			facts := a.capabilityFacts()
			caps := kernel.ResolveCapabilities(facts)
			if a.jsonOut {
				a.writeJSON(struct {
					Extension    string                        `json:"extension"`
					Ref          string                        `json:"ref,omitempty"`
					Principal    string                        `json:"principal,omitempty"`
					Capabilities []kernel.CapabilityResolution `json:"capabilities"`
				}{kernel.ExtensionName, facts.Ref, facts.Principal, caps})
				return nil
			}
			var buf bytes.Buffer
			w := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
			for _, c := range caps {
				name := c.Capability
				if c.Action != "" {
					name += " " + c.Action
				}
				note := c.Reason
				if c.Mode != "" {
					note = c.Mode
				}
				if c.SuggestedRecovery != "" {
					note += ": " + c.SuggestedRecovery
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", name, c.State, c.Risk, strings.TrimPrefix(note, ": "))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			for _, line := range strings.SplitAfter(buf.String(), "\n") {
				fmt.Fprint(a.out, strings.TrimRight(line, " \n"), strings.Repeat("\n", strings.Count(line, "\n")))
			}
			return nil
		},
	}
}

// capabilityFacts finds out what the rules need, without writing anything.
func (a *app) capabilityFacts() kernel.CapabilityFacts {
	f := kernel.CapabilityFacts{Decisions: map[kernel.Op]kernel.Decision{}}
	wd, _ := os.Getwd()
	if repo, err := gitdir.Discover(wd); err == nil && repo.WorkTree != "" {
		f.InWork = true
	}
	s, err := a.openForFacts(&f)
	if err != nil {
		f.StoreErr, f.StoreMessage = kernel.CodeOf(err), err.Error()
		return f
	}
	if s == nil { // a standalone store not created yet
		return f
	}
	f.Ref = s.Ref()
	tip, err := s.Tip()
	if err != nil {
		f.StoreErr, f.StoreMessage = kernel.CodeOf(err), err.Error()
		return f
	}
	f.HasBranch = !tip.IsZero()
	f.Upstream, f.Behind = upstreamOf(s, tip)

	signer, err := s.Signer()
	if err != nil {
		f.SignerErr, f.SignerMessage = kernel.CodeOf(err), err.Error()
	} else {
		f.SignerFormat = signer.Format()
	}
	_, f.Principal = s.Ident()
	if !f.HasBranch {
		return f
	}
	v, err := s.ViewAt(tip)
	if err != nil {
		f.StoreErr, f.StoreMessage = kernel.CodeOf(err), err.Error()
		return f
	}
	tr, err := v.Trust()
	if err != nil {
		f.StoreErr, f.StoreMessage = kernel.CodeOf(err), err.Error()
		return f
	}
	if signer != nil {
		if p := tr.Principal(signer.Principal()); p != "" {
			f.SignerListed, f.Principal = true, p
		}
	}
	if err := tr.Err(); err != nil {
		f.PolicyErr = err.Error()
	}
	if f.PolicyErr == "" {
		for _, op := range capabilityWriteOps {
			// No type or category: may this principal run the op anywhere?
			f.Decisions[op] = tr.Decide(f.Principal, op, "", "")
		}
	}
	return f
}

// openForFacts opens the store like every command does, except that a
// standalone store that is not there yet is left alone (nil, nil): opening
// it would create it.
func (a *app) openForFacts(f *kernel.CapabilityFacts) (*gitstore.Store, error) {
	if a.storeDir == "" {
		return a.open()
	}
	f.AutoInit = true
	abs, err := filepath.Abs(a.storeDir)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeUsage, err, "store path %q", a.storeDir)
	}
	if _, err := os.Stat(filepath.Join(abs, ".git")); err != nil {
		return nil, nil
	}
	return gitstore.Open(abs, gitstore.Options{Ref: a.ref})
}

// upstreamOf is the remote-tracking branch of the records branch (from
// branch.<name>.remote, else origin) and how many commits it has that tip
// lacks, as of the last fetch: capabilities never goes to the network.
func upstreamOf(s *gitstore.Store, tip plumbing.Hash) (string, int) {
	name := strings.TrimPrefix(s.Ref(), "refs/heads/")
	remote, ok := s.ConfigValue("branch." + name + ".remote")
	if !ok || remote == "" || remote == "." {
		remote = "origin"
	}
	ref := "refs/remotes/" + remote + "/" + name
	up, err := s.ReadRef(ref)
	if err != nil || up.IsZero() {
		return "", 0
	}
	spec := up.String()
	if !tip.IsZero() {
		spec = tip.String() + ".." + spec
	}
	behind, err := s.RevList(spec)
	if err != nil {
		return ref, 0
	}
	return strings.TrimPrefix(ref, "refs/remotes/"), len(behind)
}
