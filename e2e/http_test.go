package e2e

import (
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveGitHTTP serves the repositories under root over git's smart HTTP
// protocol: git http-backend as a CGI program behind net/http on loopback,
// a random port, for the test's lifetime and never longer than five
// minutes. It returns the base URL.
func serveGitHTTP(t testing.TB, root string) string {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	require.NoError(t, err)
	backend := &cgi.Handler{
		Path: gitPath,
		Args: []string{"http-backend"},
		Dir:  root,
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1",
			"HOME=" + os.Getenv("HOME"), "PATH=" + os.Getenv("PATH")},
	}
	var requests atomic.Int64
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		backend.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop := time.AfterFunc(5*time.Minute, func() { _ = srv.Close() })
	t.Cleanup(func() {
		stop.Stop()
		_ = srv.Close()
		t.Logf("smart HTTP requests served: %d", requests.Load())
	})
	return "http://" + ln.Addr().String()
}

// Sync works through a real smart-HTTP remote, both ways: pushes go
// through git-receive-pack, fetches through git-upload-pack, with the
// user's own transport and no extra tool.
func TestSyncOverSmartHTTP(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bare := filepath.Join(root, "records.git")
	gitc(t, root, "init", "-q", "--bare", bare)
	gitc(t, bare, "config", "http.receivepack", "true")
	url := serveGitHTTP(t, root) + "/records.git"

	w := newWorld(t, url, "A", "B")
	a, b := w.clone("A"), w.clone("B")
	assert.Equal(t, url, gitc(t, b.dir, "remote", "get-url", "origin"))
	assert.Contains(t, gitc(t, bare, "show", "records:.records/allowed_signers"), b.email, "A's signer commit went up over HTTP")

	id := a.create(t, "Over HTTP", "one\ntwo\nthree\n")
	assert.Contains(t, a.sync(t), "pushed")
	assert.Contains(t, b.sync(t), "fast-forward")
	assert.Equal(t, "Over HTTP", show(t, b.dir, id).Title)

	b.rec(t, "update", id, "--agent", "B", "--body", "one\ntwo\nthree (B)\n")
	fromB := b.create(t, "From B", "b\n")
	a.rec(t, "update", id, "--agent", "A", "--title", "A's title")
	assert.Contains(t, b.sync(t), "pushed")
	out := a.sync(t)
	assert.Contains(t, out, "replayed 1 commits")
	assert.Contains(t, out, "pushed")
	assert.Contains(t, b.sync(t), "fast-forward")

	assert.Equal(t, a.tip(), b.tip())
	assert.Equal(t, a.tip(), strings.TrimSpace(gitc(t, bare, "rev-parse", "refs/heads/records")))
	r := show(t, b.dir, id)
	assert.Equal(t, "A's title", r.Title)
	assert.Equal(t, "one\ntwo\nthree (B)\n", r.Body)
	show(t, a.dir, fromB)
	requireValid(t, a.dir)
	requireValid(t, b.dir)
	requireValid(t, bare)
}
