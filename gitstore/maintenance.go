package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Housekeeping. git's porcelain runs `git maintenance run --auto` after a
// commit, a merge or a fetch, so loose objects and small packs never pile
// up. Our write path commits without the porcelain, and a standalone store
// or a records-only repository may see no other git command for months:
// every create left three or four loose objects, and every MCP server
// session a few packs, for every later reader to search. So after a write
// lands, the store makes git's own estimate (gc.auto loose objects,
// counted in objects/17 as git counts them; gc.autoPackLimit packs) and
// only when it says maintenance is due starts `git maintenance run --auto`,
// which decides for itself, honours the user's configuration, takes git's
// locks and detaches. The common write pays two directory reads, not a
// process, and an opened store starts it at most once.

// Defaults of gc.auto and gc.autoPackLimit (git-gc(1)).
const (
	defaultGCAuto          = 6700
	defaultGCAutoPackLimit = 50
)

// maintenanceRun is a `git maintenance run --auto` this process started.
type maintenanceRun struct {
	done chan struct{} // closed when it has exited
	err  error         // its exit, once done
}

// maintainAfterWrite starts git's auto maintenance when it is due.
func (s *Store) maintainAfterWrite() {
	if s.maintenance != nil || !s.maintenanceDue() {
		return
	}
	run := &maintenanceRun{done: make(chan struct{})}
	s.maintenance = run
	cmd := exec.Command("git", "--git-dir="+s.repo.GitDir, "maintenance", "run", "--auto", "--quiet")
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if err := cmd.Start(); err != nil {
		run.err = err
		close(run.done)
		return
	}
	go func() {
		run.err = cmd.Wait()
		close(run.done)
	}()
}

// maintenanceDue is git's estimate (too_many_loose_objects,
// too_many_packs in builtin/gc.c) of whether `gc --auto` has work, with the
// user's switches: maintenance.auto=false and gc.auto=0 turn it off.
func (s *Store) maintenanceDue() bool {
	if !s.config.Bool("maintenance.auto", true) {
		return false
	}
	auto := s.config.Int("gc.auto", defaultGCAuto)
	if auto <= 0 {
		return false
	}
	objects := s.repo.ObjectDir
	// git samples one fan-out directory: more than gc.auto/256 loose
	// objects in objects/17 means about gc.auto in all.
	if names, err := os.ReadDir(filepath.Join(objects, "17")); err == nil {
		loose := 0
		for _, e := range names {
			if len(e.Name()) == 38 && isHex(e.Name()) {
				loose++
			}
		}
		if loose > int((auto+255)/256) {
			return true
		}
	}
	limit := s.config.Int("gc.autoPackLimit", defaultGCAutoPackLimit)
	if limit <= 0 {
		return false
	}
	names, err := os.ReadDir(filepath.Join(objects, "pack"))
	if err != nil {
		return false
	}
	packs := 0
	for _, e := range names {
		switch filepath.Ext(e.Name()) {
		case ".pack":
			packs++
		case ".keep":
			packs-- // a kept pack is not counted, as git does not
		}
	}
	return packs > int(limit)
}

func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdef") == ""
}
