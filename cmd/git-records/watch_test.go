package main

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// watcher is a running `git records watch --format jsonl`.
type watcher struct {
	lines chan obj
}

// startWatch starts watch in dir; the test's end stops it. The polling
// fallback is short so that the test never waits long, notification or not.
func startWatch(t *testing.T, dir string, args ...string) *watcher {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"watch", "--format", "jsonl", "--poll", "100ms"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	w := &watcher{lines: make(chan obj, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var o obj
			if json.Unmarshal(sc.Bytes(), &o) != nil {
				o = obj{"unparsable": sc.Text()}
			}
			w.lines <- o
		}
		close(w.lines)
	}()
	return w
}

// next returns the next n objects watch prints.
func (w *watcher) next(t *testing.T, n int) []obj {
	t.Helper()
	var out []obj
	for len(out) < n {
		select {
		case o, ok := <-w.lines:
			require.True(t, ok, "watch ended after %d of %d objects", len(out), n)
			out = append(out, o)
		case <-time.After(30 * time.Second):
			t.Fatalf("watch printed %d of %d objects", len(out), n)
		}
	}
	return out
}

// quiet requires that watch prints nothing more for a moment: nothing repeated.
func (w *watcher) quiet(t *testing.T) {
	t.Helper()
	select {
	case o := <-w.lines:
		t.Fatalf("watch printed more than it should: %v", o)
	case <-time.After(300 * time.Millisecond):
	}
}

func commitsOf(objs []obj) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o["commit"].(string))
	}
	return out
}

// watch prints each commit as it lands, as log prints it: commits from
// other processes, a sync that fast-forwards by several commits, and a
// restart with --since, losing and repeating nothing.
func TestWatch(t *testing.T) {
	origin := newRepo(t)
	start := tip(t, origin)
	w := startWatch(t, origin, "--since", start)
	a := createID(t, origin, "--type", "concept", "--category", "eng", "--title", "one", "--body", "b", "--agent", "alice")
	b := createID(t, origin, "--type", "concept", "--category", "eng", "--title", "two", "--body", "b", "--agent", "bob")
	got := w.next(t, 2)
	require.Equal(t, []any{a}, got[0]["records"])
	require.Equal(t, "alice", got[0]["agent"])
	require.Equal(t, []any{b}, got[1]["records"])
	require.Equal(t, "create", got[1]["op"])
	require.Equal(t, "good", got[1]["signature"])
	require.Equal(t, userEmail, got[1]["signer"])
	w.quiet(t)
	// The same objects log prints (one implementation).
	var logged []obj
	for _, l := range strings.Split(strings.TrimSpace(mustRec(t, origin, "log", "--format", "jsonl", "-n", "2")), "\n") {
		var o obj
		require.NoError(t, json.Unmarshal([]byte(l), &o))
		logged = append([]obj{o}, logged...)
	}
	require.Equal(t, logged, got)

	// A clone follows its own branch; a pull that fast-forwards by three
	// commits prints each, oldest first.
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, origin, "clone", "-q", origin, clone)
	mustRec(t, clone, "pull")
	wc := startWatch(t, clone, "--since", tip(t, clone))
	var want []string
	for i := range 3 {
		createID(t, origin, "--type", "raw", "--category", "x", "--title", "remote "+string(rune('a'+i)), "--body", "b", "--agent", "r")
		want = append(want, tip(t, origin))
	}
	mustRec(t, clone, "pull")
	require.Equal(t, want, commitsOf(wc.next(t, 3)))
	wc.quiet(t)

	// Restart: a reader that stops after two commits and resumes from the
	// last one it printed sees every commit since start exactly once.
	all := commitsOf(w.next(t, 3))
	all = append(commitsOf(got), all...)
	first := strings.Split(strings.TrimSpace(mustRec(t, origin, "watch", "--format", "jsonl", "--since", start, "-n", "2")), "\n")
	var resumed []string
	for _, l := range first {
		var o obj
		require.NoError(t, json.Unmarshal([]byte(l), &o))
		resumed = append(resumed, o["commit"].(string))
	}
	rest := strings.Split(strings.TrimSpace(mustRec(t, origin, "--json", "watch", "--since", resumed[1], "-n", "3")), "\n")
	for _, l := range rest {
		var o obj
		require.NoError(t, json.Unmarshal([]byte(l), &o))
		resumed = append(resumed, o["commit"].(string))
	}
	require.Equal(t, all, resumed)

	requireError(t, rec(t, origin, "--json", "watch", "--format", "xml"), "USAGE", exitUsage)
}
