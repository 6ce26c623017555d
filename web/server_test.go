package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/service"
)

// opener opens the store of a new repository, again at every call, as
// serve opens one for each request served at once.
func opener(t *testing.T) func() (*service.Service, error) {
	dir := t.TempDir()
	out, err := exec.Command("git", "init", "-q", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var mu sync.Mutex
	var opened []*service.Service
	t.Cleanup(func() {
		for _, s := range opened {
			s.Close()
		}
	})
	return func() (*service.Service, error) {
		s, err := service.Open(dir, service.Options{})
		if err != nil {
			return nil, err
		}
		mu.Lock()
		opened = append(opened, s)
		mu.Unlock()
		return s, nil
	}
}

func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestRequestsServedAtOnce: while one request holds its service (a slow
// page), the other pages are served; the slow one ends when it is let go.
func TestRequestsServedAtOnce(t *testing.T) {
	open := opener(t)
	svc, err := open()
	require.NoError(t, err)
	ws := New(svc, open)
	held, release := make(chan struct{}), make(chan struct{})
	ws.held = func(r *http.Request) {
		if r.URL.Path == "/graph" {
			close(held)
			<-release
		}
	}
	srv := httptest.NewServer(ws)
	defer srv.Close()
	defer ws.Close()

	slow := make(chan int, 1)
	go func() { slow <- getStatus(t, srv.URL+"/graph") }()
	<-held
	for _, page := range []string{"/", "/proposals", "/conflicts", "/", "/r/none"} {
		status := getStatus(t, srv.URL+page)
		assert.Contains(t, []int{http.StatusOK, http.StatusNotFound}, status, page)
	}
	select {
	case <-slow:
		t.Fatal("the held request ended before it was let go")
	default:
	}
	close(release)
	assert.Equal(t, http.StatusOK, <-slow)
}

// TestServicesBounded: no more services are opened than the bound; past
// it a request waits for one to be given back, or for its client to leave.
func TestServicesBounded(t *testing.T) {
	open := opener(t)
	first, err := open()
	require.NoError(t, err)
	p := newServices(first, open)
	var lent []*service.Service
	for range maxServices() {
		s, err := p.get(context.Background())
		require.NoError(t, err)
		lent = append(lent, s)
	}
	assert.Len(t, p.opened, maxServices())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = p.get(ctx)
	require.ErrorIs(t, err, context.Canceled, "all lent: the request waits, and its client left")
	p.put(lent[3])
	s, err := p.get(context.Background())
	require.NoError(t, err)
	assert.Same(t, lent[3], s, "the one given back")
	require.NoError(t, p.close())
	assert.Len(t, p.opened, 1)
}
