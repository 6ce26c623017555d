package gitstore

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

var _ kernel.MigrateView = (*View)(nil)

// Format is the branch's format version at this view (0 when the branch
// or its format file does not exist yet).
func (v *View) Format() (int, error) {
	data, err := v.ReadFile(FormatPath)
	if err != nil || data == nil {
		return 0, err
	}
	return kernel.ParseFormat(data)
}

// checkFormat refuses a tip in a format newer than this tool reads
// (kernel.CheckReadable), once per tip per process: every read goes
// through a view.
func (s *Store) checkFormat(v *View) error {
	if v.tip.IsZero() || v.tip == s.formatChecked {
		return nil
	}
	f, err := v.Format()
	if err != nil {
		return err
	}
	if f == 0 {
		return nil // not a records store: the callers say so
	}
	if err := kernel.CheckReadable(f); err != nil {
		return err
	}
	s.formatChecked = v.tip
	return nil
}

// AllRecords reads every record at this view, for a migration.
func (v *View) AllRecords() ([]*kernel.Record, error) {
	ix, err := v.Index()
	if err != nil {
		return nil, err
	}
	var blobs []plumbing.Hash
	ix.Each(func(e *IndexEntry) bool {
		blobs = append(blobs, e.Blob)
		return true
	})
	out := make([]*kernel.Record, 0, len(blobs))
	for _, b := range blobs {
		r, err := v.s.readRecord(b)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Migrate rewrites the store to the current format in one signed commit
// (kernel.Migrate with the released migrations); nothing when it is
// current.
func (s *Store) Migrate(agent string, approval kernel.Approval) (*Written, error) {
	return s.MutateApproved(func(kv kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		f, err := kv.(*View).Format()
		if err != nil {
			return nil, err
		}
		if err := kernel.CheckReadable(f); err != nil {
			return nil, err
		}
		return kernel.Migrate(kv, f, kernel.Migrations, agent, env)
	}, approval)
}
