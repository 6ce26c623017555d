package gitstore

import (
	"errors"
	"iter"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-records/git-records/kernel"
)

// FileChanges are changes as the judgment of a commit reads them
// (kernel.FileChange): record files decoded, once per walk, payload files
// read.
func (w *Walk) FileChanges(changes []Change) ([]kernel.FileChange, error) {
	out := make([]kernel.FileChange, 0, len(changes))
	for _, c := range changes {
		fc, err := w.fileChange(c)
		if err != nil {
			return nil, err
		}
		out = append(out, fc)
	}
	return out, nil
}

// FileChangesBetween are the FileChanges of every file that differs
// between the trees of two commits, as the sequence the judgment reads
// (kernel.CommitFacts.Files): the tree diff walks as the sequence is read
// and each change is read and decoded as it is handed out, so a commit of
// a hundred thousand records is judged holding one. Each reading of the
// sequence walks the diff again.
func (w *Walk) FileChangesBetween(from, to plumbing.Hash) iter.Seq2[kernel.FileChange, error] {
	return func(yield func(kernel.FileChange, error) bool) {
		a, err := w.rootOf(from)
		if err != nil {
			yield(kernel.FileChange{}, err)
			return
		}
		b, err := w.rootOf(to)
		if err != nil {
			yield(kernel.FileChange{}, err)
			return
		}
		stopped := errors.New("the reader stopped")
		err = diffTreesFunc(w.sharedTrees(), a, b, "", func(c Change) error {
			fc, err := w.fileChange(c)
			if err != nil {
				return err
			}
			if !yield(fc, nil) {
				return stopped
			}
			return nil
		})
		if err != nil && err != stopped {
			yield(kernel.FileChange{}, err)
		}
	}
}

func (w *Walk) fileChange(c Change) (kernel.FileChange, error) {
	fc := kernel.FileChange{Path: c.Path, Mode: c.Mode.String(), Regular: c.Mode == filemode.Regular,
		Added: c.Old.IsZero(), Deleted: c.New.IsZero()}
	if fc.Deleted {
		fc.Regular = true // a deleted file has no mode to judge
	}
	if kernel.IsPayloadPath(c.Path) && !fc.Deleted {
		data, err := w.s.Blob(c.New)
		if err != nil {
			return fc, err
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
	return fc, nil
}
