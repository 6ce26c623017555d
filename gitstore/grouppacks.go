package gitstore

import (
	"os"

	"github.com/git-records/git-records/gitstore/gitdir"
)

// Packs of commit groups. A store that shares writes (ShareWrites: a
// long-lived server) writes each commit group's objects as one pack, which
// costs one file and two fsyncs where loose objects cost a file and an
// fsync each. Left alone, a server would pile up a small pack per group,
// and every reader (ours, go-git's, git's) searches packs one by one. So
// the packs this process wrote are consolidated geometrically, as git's
// `repack --geometric=2` does: after each group, the newest packs are
// merged into one while the pack before them is less than twice their
// size. Each object is copied O(log n) times over the server's life and
// at most O(log n) of its packs exist at once. A merge copies the
// compressed entries (gitdir.PackWriter.AppendPack, each checked against
// its CRC and each pack against its checksum), makes the new pack durable
// and visible, and only then removes the merged ones, index first, as
// `git repack -d` does: a reader that has a removed pack open or mapped
// keeps reading it, one that misses an object lists the packs again and
// finds it in the new one. Only packs this process wrote are merged (never
// git's, nor one someone marked .keep); `git gc` consolidates the rest.

// groupPack is a pack this process wrote, by name (gitdir.PackWriter.Name)
// and size in bytes.
type groupPack struct {
	name string
	size int64
}

// addGroupPack notes the pack w made visible, if any.
func (s *Store) addGroupPack(w *gitdir.PackWriter) {
	if w == nil || w.Name() == "" {
		return
	}
	if n := len(s.groupPacks); n > 0 && s.groupPacks[n-1].name == w.Name() {
		return // nothing written since (a group that wrote no object)
	}
	fi, err := os.Stat(w.Name() + ".pack")
	if err != nil {
		return
	}
	s.groupPacks = append(s.groupPacks, groupPack{name: w.Name(), size: fi.Size()})
}

// mergeRun is the fewest packs a consolidation merges. Merging as soon
// as two packs qualify merged after every other group, and each merge
// costs two files, three fsyncs and the copy, while the next group waits:
// a run of 6 merges about a third as often (182 merges for 1,000 equal
// groups, against 500) for the same bytes copied, and leaves at most about
// 7 packs where 2 left 6.
const mergeRun = 6

// consolidatePacks merges the newest group packs while the one before
// them is less than twice their size, when that makes a run of mergeRun. A failure leaves every pack as it
// was (the merged pack is not made visible); a pack gone (a git gc took
// it) or kept is forgotten.
func (s *Store) consolidatePacks() {
	n := len(s.groupPacks)
	run, sum := 1, s.groupPacks[n-1].size
	for run < n && s.groupPacks[n-1-run].size < 2*sum {
		sum += s.groupPacks[n-1-run].size
		run++
	}
	if run < mergeRun {
		return
	}
	merged := s.groupPacks[n-run:]
	w := s.repo.NewPackWriter()
	for i, p := range merged {
		err := error(nil)
		if _, kept := os.Stat(p.name + ".keep"); kept == nil {
			err = os.ErrExist
		} else {
			err = w.AppendPack(p.name)
		}
		if err != nil {
			w.Abort()
			// Forget the pack that could not be taken: gone, kept or
			// damaged, it is not ours to merge; the others stay listed.
			s.groupPacks = append(s.groupPacks[:n-run+i], s.groupPacks[n-run+i+1:]...)
			return
		}
	}
	if err := w.Sync(); err != nil {
		return // the merged packs are all still there
	}
	for _, p := range merged {
		// Identical contents make an identically named pack: that
		// one is the merged pack now.
		if p.name != w.Name() {
			_ = gitdir.RemovePack(p.name)
		}
	}
	fi, err := os.Stat(w.Name() + ".pack")
	if err != nil {
		s.groupPacks = s.groupPacks[:n-run]
		return
	}
	s.groupPacks = append(s.groupPacks[:n-run], groupPack{name: w.Name(), size: fi.Size()})
}
