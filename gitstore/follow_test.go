package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// waitAsync runs WaitTip in the background and returns its answer channel.
func waitAsync(ctx context.Context, s *Store, seen plumbing.Hash, poll time.Duration) chan plumbing.Hash {
	ch := make(chan plumbing.Hash, 1)
	go func() {
		tip, _ := s.WaitTip(ctx, seen, poll)
		ch <- tip
	}()
	return ch
}

func requireWoken(t *testing.T, ch chan plumbing.Hash, want plumbing.Hash, what string) {
	t.Helper()
	select {
	case got := <-ch:
		require.Equal(t, want, got, what)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: WaitTip did not wake", what)
	}
}

// WaitTip wakes on a filesystem notification, whoever moves the ref and
// however it is stored: a loose ref moved by another process, and a
// packed ref rewritten in packed-refs. The poll interval is an hour, so
// only a notification can wake it in time (Linux; elsewhere it polls).
func TestWaitTipWakesOnRefMoves(t *testing.T) {
	poll := time.Hour
	if runtime.GOOS != "linux" {
		poll = 50 * time.Millisecond
	}
	s := newTestStore(t)
	dir := gitDir(s)
	first, err := s.Tip()
	require.NoError(t, err)
	second := mutate(t, reopen(t, s), createOp(kernel.CreateInput{Title: "second"})).Commit
	git(t, dir, "update-ref", s.Ref(), first.String())

	ctx := context.Background()
	ch := waitAsync(ctx, s, first, poll)
	time.Sleep(50 * time.Millisecond) // let it sleep: the move below must wake it, not precede it
	git(t, dir, "update-ref", s.Ref(), second.String(), first.String())
	requireWoken(t, ch, second, "loose ref moved by git update-ref")

	// Packed: the loose file gone, packed-refs replaced as git replaces it.
	git(t, dir, "pack-refs", "--all")
	_, err = os.Stat(filepath.Join(s.repo.CommonDir, "refs", "heads", "records"))
	require.True(t, os.IsNotExist(err), "the ref is packed")
	ch = waitAsync(ctx, s, second, poll)
	time.Sleep(50 * time.Millisecond)
	packed := filepath.Join(s.repo.CommonDir, "packed-refs")
	data, err := os.ReadFile(packed)
	require.NoError(t, err)
	require.Contains(t, string(data), second.String()+" "+s.Ref())
	require.NoError(t, os.WriteFile(packed+".lock", []byte(strings.Replace(string(data), second.String(), first.String(), 1)), 0o644))
	require.NoError(t, os.Rename(packed+".lock", packed))
	requireWoken(t, ch, first, "packed ref rewritten")

	// Already different: no wait at all.
	tip, err := s.WaitTip(ctx, second, poll)
	require.NoError(t, err)
	require.Equal(t, first, tip)
}

// Without notifications the fallback polls, at the interval asked for.
func TestWaitTipPollingFallback(t *testing.T) {
	s := newTestStore(t)
	first, err := s.Tip()
	require.NoError(t, err)
	second := mutate(t, reopen(t, s), createOp(kernel.CreateInput{Title: "second"})).Commit
	git(t, gitDir(s), "update-ref", s.Ref(), first.String())
	ch := make(chan plumbing.Hash, 1)
	go func() {
		tip, _ := s.waitTip(context.Background(), first, 20*time.Millisecond, newRefWatcher(nil)) // watches nothing
		ch <- tip
	}()
	time.Sleep(50 * time.Millisecond)
	git(t, gitDir(s), "update-ref", s.Ref(), second.String())
	requireWoken(t, ch, second, "polling")
}

// WaitTip returns as soon as its context ends.
func TestWaitTipStopsWithContext(t *testing.T) {
	s := newTestStore(t)
	tip, err := s.Tip()
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.WaitTip(ctx, tip, time.Hour)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("WaitTip ignored its context")
	}
}
