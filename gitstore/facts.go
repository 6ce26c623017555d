package gitstore

import (
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-records/git-records/kernel"
)

// FileChanges are changes as the judgment of a commit reads them
// (kernel.FileChange): record files decoded, once per walk, payload files
// read.
func (w *Walk) FileChanges(changes []Change) ([]kernel.FileChange, error) {
	out := make([]kernel.FileChange, 0, len(changes))
	for _, c := range changes {
		fc := kernel.FileChange{Path: c.Path, Mode: c.Mode.String(), Regular: c.Mode == filemode.Regular,
			Added: c.Old.IsZero(), Deleted: c.New.IsZero()}
		if fc.Deleted {
			fc.Regular = true // a deleted file has no mode to judge
		}
		if kernel.IsPayloadPath(c.Path) && !fc.Deleted {
			data, err := w.s.Blob(c.New)
			if err != nil {
				return nil, err
			}
			fc.Data = data
		}
		if typ, id, ok := ParseRecordPath(c.Path); ok {
			fc.IsRecord, fc.Type, fc.ID = true, typ, id
			if !c.Old.IsZero() {
				if old, err := w.RecordFromBlob(c.Old); err == nil {
					fc.Old = old
				} else {
					fc.OldBroken = true
				}
			}
			if !c.New.IsZero() {
				fc.New, fc.NewErr = w.RecordFromBlob(c.New)
			}
		}
		out = append(out, fc)
	}
	return out, nil
}
