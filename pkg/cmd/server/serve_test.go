package server

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/store/serve"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
	"github.com/git-records/git-records/web"
)

// TestServeListensOnLoopback: the default address is loopback; another
// address is refused unless --allow-remote says so, naming the flag,
// before the store is opened.
func TestServeListensOnLoopback(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	def := serve.NewCmdServe(f, Serve).Flags().Lookup("addr").DefValue
	host, _, err := net.SplitHostPort(def)
	require.NoError(t, err)
	assert.True(t, web.IsLoopback(host), "default --addr %s", def)

	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:80", "no-port"} {
		f, _, _, _ := st.Factory()
		f.WorkDir = t.TempDir() // not a repository: a refusal must come first
		e := cmdtest.Run(f, serve.NewCmdServe(f, Serve), "--json", "--addr", addr).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
		assert.Equal(t, "--addr", e["flag"], addr)
	}
}

// TestServeRun: serve prints the URL it listens on and answers there
// with the list of records, read-only, until its context ends.
func TestServeRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	st.Create(t, kernel.CreateInput{Type: "concept", Title: "Browsable"})
	f, _, _, _ := st.Factory()
	pr, pw := io.Pipe()
	f.IOStreams.Out = pw
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan cmdtest.Result, 1)
	go func() {
		done <- cmdtest.Run(f, serve.NewCmdServe(f, func(o *serve.ServeOptions) error {
			o.Context = func() (context.Context, context.CancelFunc) { return ctx, cancel }
			return serveRun(o)
		}), "--addr", "127.0.0.1:0")
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	go io.Copy(io.Discard, pr)
	require.True(t, strings.HasPrefix(line, "serving refs/heads/records read-only at http://127.0.0.1:"), line)
	url := strings.Fields(strings.TrimPrefix(line, "serving refs/heads/records read-only at "))[0]

	resp, err := http.Get(url)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "Browsable")
	req, _ := http.NewRequest(http.MethodPost, url, nil)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "read-only")

	cancel()
	select {
	case r := <-done:
		assert.Equal(t, 0, r.Code, r.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop when its context ended")
	}
}
