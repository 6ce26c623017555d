package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-records/git-records/gitstore"
)

// manyWriters is the workload of BenchmarkManyWriters: writer clones and
// records each (BENCH_MANY_WRITERS=4x5 narrows it for a quick look).
func manyWriters(b *testing.B) (writers, each int) {
	writers, each = 16, 20
	if s := os.Getenv("BENCH_MANY_WRITERS"); s != "" {
		w, e, ok := strings.Cut(s, "x")
		var err1, err2 error
		writers, err1 = strconv.Atoi(w)
		each, err2 = strconv.Atoi(e)
		if !ok || err1 != nil || err2 != nil || writers < 1 || each < 1 {
			b.Fatalf("BENCH_MANY_WRITERS=%q: want WRITERSxRECORDS, such as 16x20", s)
		}
	}
	return writers, each
}

// BenchmarkManyWriters: writer clones, each with its own key (added by a
// maintainer), create records and publish after every create to one bare
// remote, all at once; the aggregate time per record published.
//
//   - records-sync: `git records create` then `git records sync`, to a
//     remote with the server hooks installed (`hooks install --server`):
//     every push is judged there. Afterwards the remote must hold every
//     record, no sync may have given up, the records branch must have no
//     merge commit, and `git records verify` must pass on it.
//   - git-pull-rebase: plain git doing the same: one signed commit (ssh
//     key, commit.gpgsign) of one file per record, then `git pull --rebase`
//   - `git push` until the push is accepted, to a bare remote.
//
// Each run starts from copies of the same two worlds (the remote and its
// clones), made before the loop.
func BenchmarkManyWriters(b *testing.B) {
	bin := bin(b)
	writers, each := manyWriters(b)
	label := fmt.Sprintf("@%dx%d", writers, each)
	root := b.TempDir()
	records := buildRecordsWorld(b, bin, filepath.Join(root, "records"), writers)
	plain := buildPlainWorld(b, filepath.Join(root, "plain"), writers)
	var gaveUp, merges, lost, retries atomic.Int64
	b.ResetTimer()
	interleave(b,
		op{"records-sync" + label, func(i int) time.Duration {
			w := records.copyTo(b, filepath.Join(root, fmt.Sprint("r", i)))
			defer os.RemoveAll(w.root)
			ids := make([][]string, writers)
			var failed atomic.Int64
			d := timed(func() {
				w.each(func(k int, dir string) {
					for n := 0; n < each; n++ {
						id, err := run(dir, nil, nil, bin, "create", "--type", "concept", "--category", "bench.writers",
							"--title", fmt.Sprintf("Writer %d record %d", k, n), "--agent", fmt.Sprint("writer-", k), "--body", cliBody(n))
						if err != nil {
							b.Error(err)
							return
						}
						ids[k] = append(ids[k], id)
						// A sync that gives up is counted, and the writer
						// syncs again: what it wrote must still be published.
						for {
							if _, err := run(dir, nil, nil, bin, "sync"); err == nil {
								break
							} else if !strings.Contains(err.Error(), "CONFLICT") {
								b.Error(err)
								return
							}
							failed.Add(1)
						}
					}
				})
			})
			gaveUp.Add(failed.Load())
			b.StopTimer()
			lost.Add(int64(w.missing(b, ids)))
			merges.Add(int64(w.merges(b)))
			mustRun(b, w.clones[0], nil, nil, bin, "sync")
			mustRun(b, w.clones[0], nil, nil, bin, "verify")
			b.StartTimer()
			return d / time.Duration(writers*each)
		}},
		op{"git-pull-rebase" + label, func(i int) time.Duration {
			w := plain.copyTo(b, filepath.Join(root, fmt.Sprint("g", i)))
			defer os.RemoveAll(w.root)
			var tries atomic.Int64
			d := timed(func() {
				w.each(func(k int, dir string) {
					for n := 0; n < each; n++ {
						name := fmt.Sprintf("notes/w%d-%d.md", k, n)
						if err := os.WriteFile(filepath.Join(dir, name), []byte(cliBody(n)), 0o644); err != nil {
							b.Error(err)
							return
						}
						if _, err := run(dir, nil, nil, "git", "add", name); err != nil {
							b.Error(err)
							return
						}
						if _, err := run(dir, nil, nil, "git", "commit", "-q", "-m", fmt.Sprintf("create(concept): Writer %d record %d", k, n)); err != nil {
							b.Error(err)
							return
						}
						for {
							if _, err := run(dir, nil, nil, "git", "pull", "-q", "--rebase", "origin", "main"); err != nil {
								b.Error(err)
								return
							}
							if _, err := run(dir, nil, nil, "git", "push", "-q", "origin", "main"); err == nil {
								break
							}
							tries.Add(1)
						}
					}
				})
			})
			retries.Add(tries.Load())
			b.StopTimer()
			got := 0
			for _, name := range strings.Fields(mustRun(b, w.remote, nil, nil, "git", "ls-tree", "--name-only", "main:notes")) {
				if strings.HasPrefix(name, "w") {
					got++
				}
			}
			if got != writers*each {
				b.Errorf("plain git: the remote holds %d of %d notes", got, writers*each)
			}
			b.StartTimer()
			return d / time.Duration(writers*each)
		}},
	)
	b.ReportMetric(float64(gaveUp.Load())/float64(b.N), "gave-up/run")
	b.ReportMetric(float64(merges.Load())/float64(b.N), "merges/run")
	b.ReportMetric(float64(lost.Load())/float64(b.N), "lost/run")
	b.ReportMetric(float64(retries.Load())/float64(b.N), "git-push-retries/run")
	if gaveUp.Load()+merges.Load()+lost.Load() > 0 {
		b.Errorf("many writers: %d syncs gave up, %d merge commits, %d records lost over %d runs; want none", gaveUp.Load(), merges.Load(), lost.Load(), b.N)
	}
}

// writersWorld is a bare remote and writer clones of it.
type writersWorld struct {
	root, remote string
	clones       []string // the maintainer's clone first (records), then the writers
	writers      []string
}

// each runs fn for every writer at once and waits for all of them.
func (w *writersWorld) each(fn func(k int, dir string)) {
	var wg sync.WaitGroup
	for k, dir := range w.writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(k, dir)
		}()
	}
	wg.Wait()
}

// copyTo is a copy of w under root, its clones pointed at the copy's remote.
func (w *writersWorld) copyTo(b *testing.B, root string) *writersWorld {
	b.Helper()
	mustRun(b, "", nil, nil, "cp", "-a", w.root, root)
	c := &writersWorld{root: root, remote: filepath.Join(root, filepath.Base(w.remote))}
	for _, dir := range w.clones {
		d := filepath.Join(root, filepath.Base(dir))
		mustRun(b, d, nil, nil, "git", "remote", "set-url", "origin", c.remote)
		c.clones = append(c.clones, d)
	}
	for _, dir := range w.writers {
		c.writers = append(c.writers, filepath.Join(root, filepath.Base(dir)))
	}
	return c
}

// buildRecordsWorld is a bare remote with the server hooks, a maintainer's
// clone that set up the store, and writers clones that each made a key the
// maintainer added to the allowed signers.
func buildRecordsWorld(b *testing.B, bin, root string, writers int) *writersWorld {
	b.Helper()
	w := &writersWorld{root: root, remote: filepath.Join(root, "remote.git")}
	mustRun(b, "", nil, nil, "git", "init", "-q", "--bare", w.remote)
	mustRun(b, w.remote, nil, nil, bin, "hooks", "install", "--server")
	maint := filepath.Join(root, "maintainer")
	mustRun(b, "", nil, nil, "git", "init", "-q", maint)
	identify(b, maint, "maintainer")
	mustRun(b, maint, nil, nil, bin, "init", "--generate-key")
	mustRun(b, maint, nil, nil, "git", "remote", "add", "origin", w.remote)
	mustRun(b, maint, nil, nil, bin, "sync")
	w.clones = append(w.clones, maint)
	for k := 0; k < writers; k++ {
		dir := filepath.Join(root, fmt.Sprint("writer", k))
		mustRun(b, "", nil, nil, "git", "clone", "-q", w.remote, dir)
		identify(b, dir, fmt.Sprint("writer", k))
		mustRun(b, dir, nil, nil, bin, "sync")
		mustRun(b, dir, nil, nil, bin, "init", "--generate-key")
		pub, err := os.ReadFile(filepath.Join(dir, ".git", "records", "signing_key.pub"))
		if err != nil {
			b.Fatal(err)
		}
		mustRun(b, maint, nil, nil, bin, "signers", "add", fmt.Sprintf("writer%d@example.com", k), strings.TrimSpace(string(pub)),
			"--rationale", "a writer joins", "--agent", "maintainer")
		w.clones = append(w.clones, dir)
		w.writers = append(w.writers, dir)
	}
	mustRun(b, maint, nil, nil, bin, "sync")
	for _, dir := range w.writers {
		mustRun(b, dir, nil, nil, bin, "sync")
	}
	return w
}

// buildPlainWorld is a bare remote with one commit on main and writer
// clones that sign every commit with an ssh key of their own.
func buildPlainWorld(b *testing.B, root string, writers int) *writersWorld {
	b.Helper()
	w := &writersWorld{root: root, remote: filepath.Join(root, "remote.git")}
	mustRun(b, "", nil, nil, "git", "init", "-q", "--bare", "-b", "main", w.remote)
	seed := filepath.Join(root, "seed")
	mustRun(b, "", nil, nil, "git", "init", "-q", "-b", "main", seed)
	identify(b, seed, "seed")
	if err := os.MkdirAll(filepath.Join(seed, "notes"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seed, "notes", "README.md"), []byte("notes\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	mustRun(b, seed, nil, nil, "git", "add", ".")
	mustRun(b, seed, nil, nil, "git", "commit", "-q", "-m", "notes")
	mustRun(b, seed, nil, nil, "git", "push", "-q", w.remote, "main")
	for k := 0; k < writers; k++ {
		dir := filepath.Join(root, fmt.Sprint("writer", k))
		mustRun(b, "", nil, nil, "git", "clone", "-q", w.remote, dir)
		identify(b, dir, fmt.Sprint("writer", k))
		key := filepath.Join(dir, ".git", "signing_key")
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", key).CombinedOutput(); err != nil {
			b.Fatalf("ssh-keygen: %v: %s", err, out)
		}
		for _, kv := range [][2]string{{"gpg.format", "ssh"}, {"user.signingkey", key}, {"commit.gpgsign", "true"}} {
			mustRun(b, dir, nil, nil, "git", "config", kv[0], kv[1])
		}
		w.clones = append(w.clones, dir)
		w.writers = append(w.writers, dir)
	}
	return w
}

func identify(b *testing.B, dir, name string) {
	b.Helper()
	mustRun(b, dir, nil, nil, "git", "config", "user.name", name)
	mustRun(b, dir, nil, nil, "git", "config", "user.email", name+"@example.com")
}

// missing counts the records the writers created that the remote's
// records branch lacks.
func (w *writersWorld) missing(b *testing.B, ids [][]string) int {
	b.Helper()
	have := map[string]bool{}
	for _, p := range strings.Fields(mustRun(b, w.remote, nil, nil, "git", "ls-tree", "-r", "--name-only", "records", "records/")) {
		have[p] = true
	}
	n := 0
	for k, list := range ids {
		for _, id := range list {
			if !have[gitstore.RecordPath("concept", id)] {
				b.Errorf("writer %d's record %s is not on the remote", k, id)
				n++
			}
		}
	}
	return n
}

// merges counts the merge commits on the remote's records branch.
func (w *writersWorld) merges(b *testing.B) int {
	b.Helper()
	return len(strings.Fields(mustRun(b, w.remote, nil, nil, "git", "rev-list", "--merges", "records")))
}
