package gitstore

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-records/git-records/kernel"
)

var _ kernel.ExecutionLister = (*View)(nil)

// ExecutionRecords lists the execution records at this view's tip by
// walking their types' directories: it costs the number of execution
// records, not of the store, and needs no index, so verify can ask it of
// any parent commit.
func (v *View) ExecutionRecords() ([]*kernel.Record, error) {
	if v.execRecords != nil {
		return v.execRecords, nil
	}
	out := []*kernel.Record{}
	_, recordsTree, err := v.typeDirs()
	if err != nil || recordsTree.IsZero() {
		return out, err
	}
	for _, typ := range kernel.ExecutionTypes {
		e, ok, err := v.trees.entry(recordsTree, typ)
		if err != nil {
			return nil, err
		}
		if !ok || e.Mode != filemode.Dir {
			continue
		}
		shards, err := v.trees.tree(e.Hash)
		if err != nil {
			return nil, err
		}
		for _, sh := range shards.Entries {
			if sh.Mode != filemode.Dir {
				continue
			}
			files, err := v.trees.tree(sh.Hash)
			if err != nil {
				return nil, err
			}
			for _, f := range files.Entries {
				if !strings.HasSuffix(f.Name, ".md") || f.Mode != filemode.Regular {
					continue
				}
				r, err := v.s.readRecord(f.Hash)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
		}
	}
	v.execRecords = out
	return out, nil
}

// BindingsPath is the extension bindings file (kernel/bindings.go).
const BindingsPath = kernel.BindingsPath

// Bindings reads the bindings file at this view's tip; nil when there is none.
func (v *View) Bindings() (*kernel.Bindings, error) {
	data, err := v.ReadFile(BindingsPath)
	if err != nil || data == nil {
		return nil, err
	}
	return kernel.ParseBindings(data)
}
