package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"

	"github.com/git-records/git-records/internal/testenv"
)

// write is one value a clone wrote into a record field, the commit that
// wrote it (the clone's tip right after the command, in the clone's
// directory dir) and the tip that published it (the clone's tip after the
// sync that pushed it: the commit replayed on the remote's tip).
type write struct {
	clone, dir, id, field, value, commit, published string
}

// requirePresent checks that a write survived: the record holds the value,
// a merge entry of its log names it (kept or lost), or a later write to the
// same field overwrote it in sequence, made on a branch that already held
// it (its commit descends from the tip that published this write), as a
// person who reads a value and then changes it would. Only a value that
// vanished without any of those was lost.
func requirePresent(t testing.TB, r record, wr write, writes []write) {
	t.Helper()
	if inRecord(t, r, wr) {
		return
	}
	for _, later := range writes {
		if later.id == wr.id && later.field == wr.field && later.commit != wr.commit && wr.published != "" &&
			hasObject(t, later.dir, wr.published) && isAncestor(t, later.dir, wr.published, later.commit) {
			return
		}
	}
	t.Errorf("%s's %s %q on %s (commit %s) is neither the value (%q), nor in a merge entry, nor overwritten by a write that had it",
		wr.clone, wr.field, wr.value, wr.id, wr.commit, fieldOf(t, r, wr.field))
}

// inRecord reports whether the record holds the write's value, or one of
// its merge entries names it as kept or lost.
func inRecord(t testing.TB, r record, wr write) bool {
	t.Helper()
	if wr.field == "tag" {
		return slices.Contains(r.Tags, wr.value)
	}
	cur := fieldOf(t, r, wr.field)
	if wr.field == "body" && strings.Contains(cur, wr.value) || cur == wr.value {
		return true
	}
	for _, e := range r.MutationLog {
		if e.Op != "merge" || e.Evidence["field"] != wr.field {
			continue
		}
		kept, _ := e.Evidence["kept"].(string)
		lost, _ := e.Evidence["lost"].(string)
		if kept == wr.value || lost == wr.value || wr.field == "body" && (strings.Contains(kept, wr.value) || strings.Contains(lost, wr.value)) {
			return true
		}
	}
	return false
}

func fieldOf(t testing.TB, r record, field string) string {
	t.Helper()
	switch field {
	case "title":
		return r.Title
	case "category":
		return r.Category
	case "body":
		return r.Body
	}
	t.Fatalf("unknown field %s", field)
	return ""
}

// hasObject reports whether the repository at dir holds object h.
func hasObject(t testing.TB, dir, h string) bool {
	t.Helper()
	r, err := runIn(dir, nil, "git", "cat-file", "-e", h)
	require.NoError(t, err)
	return r.code == 0
}

// isAncestor reports whether commit a is an ancestor of (or equal to) b.
func isAncestor(t testing.TB, dir, a, b string) bool {
	t.Helper()
	r, err := runIn(dir, nil, "git", "merge-base", "--is-ancestor", a, b)
	require.NoError(t, err)
	require.Contains(t, []int{0, 1}, r.code, "git merge-base --is-ancestor %s %s: %s", a, b, r)
	return r.code == 0
}

// syncOnce runs sync and accepts one failure only: the remote kept moving
// for as long as sync retries (other clones pushing all the while);
// anything else is an error. It reports whether the sync published.
func (c *clone) syncOnce() (bool, error) {
	_, err := c.try("sync")
	if err != nil && strings.Contains(err.Error(), "kept moving") {
		return false, nil
	}
	return err == nil, err
}

// A value one clone wrote and another clone overwrote after it had synced
// it is not lost: the overwrite is a later write in sequence, so the record
// holds the new value and no merge entry, and the history shows that the
// overwriting commit descends from the first. The concurrent test below
// accepts such a write for that reason (it once failed reporting one as
// lost, when a slow clone's retried sync took another's last title before
// writing its own).
func TestAValueOverwrittenAfterSyncIsSupersededNotLost(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	id := a.create(t, "Shared", "s\n")
	a.sync(t)
	b.sync(t)

	a.rec(t, "update", id, "--agent", "A", "--title", "A says 1")
	byA := write{clone: "A", dir: a.dir, id: id, field: "title", value: "A says 1", commit: a.tip()}
	a.sync(t)
	byA.published = a.tip()
	b.sync(t)
	b.rec(t, "update", id, "--agent", "B", "--title", "B says 1")
	byB := write{clone: "B", dir: b.dir, id: id, field: "title", value: "B says 1", commit: b.tip()}
	b.sync(t)
	a.sync(t)

	r := show(t, a.dir, id)
	assert.Equal(t, "B says 1", r.Title)
	assert.False(t, inRecord(t, r, byA), "A's title is neither the value nor in a merge entry: it was overwritten, not merged")
	assert.True(t, isAncestor(t, b.dir, byA.published, byB.commit), "B wrote on a branch that held A's title")
	requirePresent(t, r, byA, []write{byA, byB})
}

// Three clones write at the same time — each to records of its own and to
// two shared records, one where they all change the same field and one
// where they change different fields and different lines of the body — and
// sync while the others push. After every clone syncs twice more, all three
// hold the same branch, every write is there (as the value or as the losing
// value in a merge entry), the branch has no merge commit, every commit
// verifies with git records and with git's own signature check, and every
// tip any clone published is an ancestor of the final one.
func TestThreeClonesWriteConcurrentlyAndConverge(t *testing.T) {
	t.Parallel()
	concurrentWritesConverge(t, testenv.Scaled(2, 1), "A", "B", "C")
}

// concurrentWritesConverge is the three-clone test for any number of
// clones (the first three write the shared record's fields; more clones
// write titles) and rounds.
func concurrentWritesConverge(t *testing.T, rounds int, names ...string) {
	w := newWorld(t, "", names...)
	a := w.clones[0]
	same := a.create(t, "Same field", "s\n")
	diff := a.create(t, "Different fields", "one\ntwo\nthree\nfour\nfive\n", "--tag", "base")
	a.sync(t)
	for _, c := range w.clones[1:] {
		c.sync(t)
	}

	var (
		mu     sync.Mutex
		writes []write
		own    = map[string][]string{} // clone -> ids it created
		wg     sync.WaitGroup
		errs   = make(chan error, len(w.clones))
	)
	// wrote notes a write once its command has returned: the clone's tip is
	// then the commit that wrote it (a clone runs one command at a time).
	wrote := func(c *clone, wr write) {
		wr.commit, wr.dir = c.tip(), c.dir
		mu.Lock()
		writes = append(writes, wr)
		mu.Unlock()
	}
	// published notes the clone's tip as the one that published its writes
	// not published yet, once a sync of it has pushed them.
	published := func(c *clone) {
		tip := c.tip()
		mu.Lock()
		for i := range writes {
			if writes[i].clone == c.name && writes[i].published == "" {
				writes[i].published = tip
			}
		}
		mu.Unlock()
	}
	for i, c := range w.clones {
		wg.Add(1)
		go func(i int, c *clone) {
			defer wg.Done()
			errs <- func() error {
				for round := 0; round < rounds; round++ {
					for k := 0; k < 2; k++ {
						title := fmt.Sprintf("%s own %d.%d", c.name, round, k)
						out, err := c.try("create", "--type", "concept", "--title", title, "--category", "eng", "--agent", c.name,
							"--body", "by "+c.name+"\n")
						if err != nil {
							return err
						}
						id := strings.TrimSpace(out)
						mu.Lock()
						own[c.name] = append(own[c.name], id)
						mu.Unlock()
						wrote(c, write{clone: c.name, id: id, field: "title", value: title})
					}
					title := fmt.Sprintf("%s says %d", c.name, round)
					if _, err := c.try("update", same, "--agent", c.name, "--title", title); err != nil {
						return err
					}
					wrote(c, write{clone: c.name, id: same, field: "title", value: title})
					// A body edit changes one line of the body as it is now,
					// as a person editing it would.
					editLine := func(n int, line string) (string, error) {
						out, err := c.try("show", diff, "--json")
						if err != nil {
							return "", err
						}
						var r record
						if err := json.Unmarshal([]byte(out), &r); err != nil {
							return "", err
						}
						lines := strings.Split(r.Body, "\n")
						lines[n] = line
						return strings.Join(lines, "\n"), nil
					}
					var (
						args    []string
						pending []write // what the update below writes
					)
					will := func(field, value string) {
						pending = append(pending, write{clone: c.name, id: diff, field: field, value: value})
					}
					switch i {
					case 0:
						v := fmt.Sprintf("title by A %d", round)
						line := fmt.Sprintf("one (A %d)", round)
						body, err := editLine(0, line)
						if err != nil {
							return err
						}
						args = []string{"--title", v, "--body", body}
						will("title", v)
						will("body", line)
					case 1:
						v := fmt.Sprintf("eng.b%d", round)
						args = []string{"--category", v}
						will("category", v)
					default:
						v := fmt.Sprintf("title by %s %d", c.name, round)
						args = []string{"--title", v}
						will("title", v)
					case 2:
						line := fmt.Sprintf("five (C %d)", round)
						tag := fmt.Sprintf("c%d", round)
						body, err := editLine(4, line)
						if err != nil {
							return err
						}
						args = []string{"--body", body, "--tag", "base", "--tag", tag}
						will("body", line)
						will("tag", tag)
					}
					if _, err := c.try(append([]string{"update", diff, "--agent", c.name}, args...)...); err != nil {
						return err
					}
					for _, wr := range pending {
						wrote(c, wr)
					}
					ok, err := c.syncOnce()
					if err != nil {
						return err
					}
					if ok {
						published(c)
					}
				}
				return nil
			}()
		}(i, c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	for round := 0; round < 2; round++ {
		for _, c := range w.clones {
			c.sync(t)
			published(c)
		}
	}

	final := a.tip()
	require.NotEmpty(t, final)
	assert.Equal(t, final, w.remoteTip(t))
	for _, c := range w.clones {
		assert.Equal(t, final, c.tip(), "%s converged", c.name)
	}
	for _, c := range w.clones {
		requireValid(t, c.dir)
		assert.Empty(t, gitc(t, c.dir, "rev-list", "--merges", final), "%s: the records branch is linear", c.name)
		c.mu.Lock()
		tips := append([]string(nil), c.tips...)
		c.mu.Unlock()
		// Every tip is an ancestor of the final one (one rev-list, not a
		// merge-base --is-ancestor per tip).
		reachable := map[string]bool{}
		for _, h := range strings.Fields(gitc(t, c.dir, "rev-list", final)) {
			reachable[h] = true
		}
		for _, tip := range tips {
			assert.True(t, reachable[tip], "%s's published tip %s is lost", c.name, tip)
		}
		t.Logf("%s published %d tips", c.name, len(tips))
	}
	requireValid(t, w.remote)

	// Each clone's records as list --json prints them (whole records, as
	// show prints them: one process per clone, not one per record).
	listed := map[string]map[string]record{}
	for _, c := range w.clones {
		byID := map[string]record{}
		for _, r := range jsonOf[[]record](t, mustRec(t, c.dir, "list", "--json")) {
			byID[r.ID] = r
		}
		listed[c.name] = byID
	}
	records := map[string]record{}
	wanted := []string{same, diff}
	for name, ids := range own {
		require.Len(t, ids, 2*rounds, name)
		wanted = append(wanted, ids...)
	}
	for _, id := range wanted {
		r, ok := listed[a.name][id]
		require.True(t, ok, "%s lists %s", a.name, id)
		records[id] = r
	}
	// Every clone's last write to each field is there; every update any
	// clone made is in the log, once.
	last := map[string]write{}
	for _, wr := range writes {
		last[wr.clone+" "+wr.id+" "+wr.field] = wr
	}
	for _, wr := range last {
		requirePresent(t, records[wr.id], wr, writes)
	}
	for _, id := range []string{same, diff} {
		updates := map[string]int{}
		for _, e := range records[id].MutationLog {
			if e.Op == "update" {
				updates[e.Agent]++
			}
		}
		want := map[string]int{}
		for _, n := range names {
			want[n] = rounds
		}
		assert.Equal(t, want, updates, "updates of %s by agent", id)
	}
	body := records[diff].Body
	assert.Contains(t, body, fmt.Sprintf("one (A %d)", rounds-1), "A's line and C's line merged line by line")
	assert.Contains(t, body, fmt.Sprintf("five (C %d)", rounds-1))
	for _, c := range w.clones {
		for id := range records {
			assert.Contains(t, listed[c.name], id, "%s lists %s", c.name, id)
		}
	}
}

// A sync killed at random moments leaves both sides valid and loses no
// write: the next sync completes and converges, with every record either
// side created, on a linear branch.
func TestKilledSyncLeavesBothSidesValid(t *testing.T) {
	t.Parallel()
	killedSyncs(t, testenv.Scaled(3, 1), 250*time.Millisecond)
}

// killedSyncs kills B's sync n times after random delays below max.
func killedSyncs(t *testing.T, n int, max time.Duration) {
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var made []string
	for i := 0; i < n; i++ {
		a.create(t, fmt.Sprintf("A %d", i), "a\n")
		a.sync(t)
		made = append(made, b.create(t, fmt.Sprintf("B %d", i), "b\n"))
		delay := time.Duration(rng.Int63n(int64(max)))
		killed := killSyncAfter(t, b.dir, delay)
		t.Logf("kill %d after %v: killed=%v", i, delay, killed)
		// A kill inside a ref update leaves that ref's lock behind, as a
		// killed git does; git and git-records refuse to guess it is stale
		// and tell the user to remove it. Do what the user is told.
		for _, d := range []string{filepath.Join(b.dir, ".git"), w.remote} {
			locks, _ := filepath.Glob(filepath.Join(d, "refs", "*", "*", "*.lock"))
			more, _ := filepath.Glob(filepath.Join(d, "refs", "*", "*.lock"))
			for _, l := range append(locks, more...) {
				t.Logf("kill %d left %s", i, l)
				require.NoError(t, os.Remove(l))
			}
		}
		requireValid(t, b.dir)
		requireValid(t, w.remote)
	}
	b.sync(t)
	a.sync(t)
	b.sync(t)
	assert.Equal(t, a.tip(), b.tip())
	assert.Equal(t, a.tip(), w.remoteTip(t))
	listed := map[string]bool{}
	for _, r := range jsonOf[[]record](t, mustRec(t, a.dir, "list", "--json")) {
		listed[r.ID] = true
	}
	for _, id := range made {
		assert.True(t, listed[id], "B's write %s survived and was published", id)
	}
	assert.Len(t, listed, 2*n)
	assert.Empty(t, gitc(t, a.dir, "rev-list", "--merges", a.tip()), "the records branch is linear")
	assert.Empty(t, gitc(t, b.dir, "for-each-ref", "refs/records-unpublished/"), "nothing was kept unpublished")
	requireValid(t, a.dir)
	requireValid(t, b.dir)
}

// killSyncAfter starts git records sync in dir in a process group of its
// own, SIGKILLs the sync process after delay, and waits until every
// process of the group (git fetch or push it started) has ended. It
// reports whether the kill came before sync finished.
func killSyncAfter(t testing.TB, dir string, delay time.Duration) bool {
	t.Helper()
	cmd := exec.Command("git-records", "sync")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	killed := false
	select {
	case <-done:
	case <-time.After(delay):
		killed = cmd.Process.Signal(syscall.SIGKILL) == nil
		<-done
	}
	// The children of a killed sync finish on their own (a push in flight
	// completes or fails as a whole); wait for them.
	deadline := time.Now().Add(30 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the killed sync still running after 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return killed
}

// A remote commit signed by a key that is not an allowed signer is refused
// on sync with the rule that failed, and nothing of it is merged.
func TestSyncRefusesACommitSignedByAnUnknownKey(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	x := w.add(t, "X", w.remote)
	x.sync(t)
	x.rec(t, "init", "--generate-key") // a key nobody added
	// The CLI refuses to sign with a key outside allowed_signers, so the
	// intruder plants the record with plain git, as an attacker would.
	intruder := plantRecord(t, x.dir, "planted-by-x")
	gitc(t, x.dir, "push", "-q", "origin", "records") // no hooks on either side stop it

	mine := a.create(t, "Mine", "m\n")
	before := a.tip()
	r := rec(t, a.dir, "sync")
	require.NotEqual(t, 0, r.code, "%s", r)
	assert.Contains(t, r.stderr, "[signature]", "the rule is named")
	assert.Contains(t, r.stderr, "not in .records/allowed_signers")
	assert.Contains(t, r.stderr, "nothing was merged")
	assert.Equal(t, before, a.tip(), "the records branch did not move")
	assert.NotEqual(t, 0, rec(t, a.dir, "show", intruder).code, "the planted record is not there")
	show(t, a.dir, mine)

	j := rec(t, b.dir, "sync", "--json")
	require.NotEqual(t, 0, j.code)
	e := jsonOf[map[string]map[string]any](t, j.stdout)["error"]
	assert.Equal(t, "VERIFY_FAILED", e["code"])
	assert.Contains(t, fmt.Sprint(e["violations"]), "signature")
	requireValid(t, a.dir)
}

// After a sync that replays, the index is caught up: links and list show
// the records that came in at once, and a cold rebuild finds nothing to
// change.
func TestIndexIsCaughtUpAfterASyncThatReplays(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	target := a.create(t, "Target", "t\n")
	a.sync(t)
	b.sync(t)
	mustRec(t, a.dir, "list") // the index exists at A's tip
	fromB := b.create(t, "From B", "links to [["+target+"]]\n")
	b.rec(t, "link", target, "--to", fromB, "--kind", "depends_on", "--agent", "B")
	b.sync(t)
	fromA := a.create(t, "From A", "also [["+target+"]]\n")

	out := a.sync(t)
	require.Contains(t, out, "replayed 1 commits")
	re := jsonOf[map[string]any](t, mustRec(t, a.dir, "reindex", "--json"))
	assert.Equal(t, false, re["changed"], "the index the sync left equals a cold build: %v", re)
	assert.EqualValues(t, 3, re["records"])
	links := mustRec(t, a.dir, "links", target, "--json")
	assert.Contains(t, links, fromA)
	assert.Contains(t, links, fromB)
	list := mustRec(t, a.dir, "list", "--json")
	assert.Contains(t, list, fromB)
}

// otherRefs lists every ref of a repository except the records branch and
// its remote-tracking ref, with values: what sync must never touch.
func otherRefs(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(gitc(t, dir, "for-each-ref", "--format=%(refname) %(objectname)"), "\n") {
		if line != "" && !strings.HasPrefix(line, "refs/heads/records ") && !strings.HasPrefix(line, "refs/remotes/origin/records ") {
			out = append(out, line)
		}
	}
	return out
}

// push alone publishes our commit replayed on the remote's tip, never over
// it; pull alone replays without pushing; sync reports in JSON; and no ref
// but the records branch and its remote-tracking ref ever moves, here or
// on the remote.
func TestPullPushAndOtherRefs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	gitc(t, a.dir, "commit", "-q", "--allow-empty", "-m", "code")
	gitc(t, a.dir, "tag", "v1")
	gitc(t, a.dir, "push", "-q", "origin", "main", "v1")
	gitc(t, b.dir, "fetch", "-q", "origin", "--tags")
	gitc(t, b.dir, "branch", "topic", "origin/main")
	a.create(t, "From A", "a\n")
	a.sync(t)
	fromB := b.create(t, "From B", "b\n")
	beforeB, beforeRemote := otherRefs(t, b.dir), otherRefs(t, w.remote)
	remoteTip := w.remoteTip(t)

	out := b.rec(t, "pull")
	assert.Contains(t, out, "replayed 1 commits")
	assert.NotContains(t, out, "pushed")
	assert.Equal(t, remoteTip, w.remoteTip(t), "pull alone pushes nothing")
	assert.True(t, isAncestor(t, b.dir, remoteTip, b.tip()), "pull put B's commit on the remote's tip")
	a.create(t, "A again", "a2\n")
	a.sync(t)
	remoteTip = w.remoteTip(t)
	out = b.rec(t, "push")
	assert.Contains(t, out, "replayed 1 commits", "push replays on what the remote gained since")
	assert.Contains(t, out, "pushed")
	assert.Equal(t, b.tip(), w.remoteTip(t))
	assert.True(t, isAncestor(t, b.dir, remoteTip, b.tip()), "nothing overwritten")

	res := jsonOf[map[string]any](t, a.rec(t, "sync", "--json"))
	assert.Equal(t, "refs/heads/records", res["ref"])
	assert.Equal(t, "origin", res["remote"])
	assert.Equal(t, "fast-forward", res["merge"].(map[string]any)["kind"])
	assert.Equal(t, a.tip(), res["merge"].(map[string]any)["commit"], "commit ids are 40-hex strings")
	assert.Regexp(t, `^[0-9a-f]{40}$`, res["fetched"])
	show(t, a.dir, fromB)

	assert.Equal(t, beforeB, otherRefs(t, b.dir), "no other ref moved in B")
	assert.Equal(t, beforeRemote, otherRefs(t, w.remote), "no other ref moved on the remote")
}

// plantRecord commits a well-formed record with plain git, signed by the
// clone's own key whatever allowed_signers says, and moves records to it.
func plantRecord(t *testing.T, dir, id string) string {
	t.Helper()
	now := kernel.At(time.Now())
	r := &kernel.Record{ID: id, Type: "concept", Title: "Planted", Category: "eng", Status: kernel.StatusActive,
		CreatedAt: now, UpdatedAt: now, Provenance: kernel.Provenance{Agent: "X"}, Body: "p\n",
		MutationLog: []kernel.MutationEntry{{Op: "create", At: now, Agent: "X"}}}
	data, err := gitstore.EncodeRecord(r)
	require.NoError(t, err)
	blob := gitInput(t, dir, string(data), "hash-object", "-w", "--stdin")
	idx := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + idx}
	_, err = runIn(dir, env, "git", "read-tree", "records")
	require.NoError(t, err)
	_, err = runIn(dir, env, "git", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+gitstore.RecordPath(r.Type, r.ID))
	require.NoError(t, err)
	tree, err := runIn(dir, env, "git", "write-tree")
	require.NoError(t, err)
	key := filepath.Join(dir, ".git", "records", "signing_key")
	msg := "create(concept): Planted\n\nRecord-Op: create\nRecord-Id: " + id + "\nRecord-Agent: X\nRecord-Format: 1\n"
	commit := gitInput(t, dir, msg, "-c", "gpg.format=ssh", "-c", "user.signingkey="+key, "commit-tree", "-S", strings.TrimSpace(tree.stdout), "-p", "records")
	gitc(t, dir, "update-ref", "refs/heads/records", commit)
	return id
}

// gitInput runs git in dir with stdin and returns its trimmed stdout.
func gitInput(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	require.NoError(t, err, "git %v", args)
	return strings.TrimSpace(string(out))
}
