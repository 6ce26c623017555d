package main

// The floor every git-records process stands on: what runs before a
// command does (docs/design.md, the process floor).

import (
	"debug/buildinfo"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMainStackFirst: internal/mainstack's init, which gives the main
// goroutine the stack package initialisation grows it to, runs before the
// inits that grow it (goldmark's regexps, yaml's tables); run after them
// it would only add a stack. Go runs the packages whose imports are ready
// in import-path order, so this holds while mainstack imports nothing.
func TestMainStackFirst(t *testing.T) {
	t.Parallel()
	r := execEnv(t, t.TempDir(), "", []string{"GODEBUG=inittrace=1"}, binPath, "--version")
	require.Equal(t, 0, r.code, r.String())
	at := map[string]int{}
	for i, line := range strings.Split(r.stderr, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			at[f[1]] = i + 1
		}
	}
	first := at["github.com/git-records/git-records/internal/mainstack"]
	require.NotZero(t, first, "no init of mainstack in the trace:\n%s", r.stderr)
	for _, p := range []string{"github.com/yuin/goldmark/util", "github.com/yuin/goldmark/parser", "go.yaml.in/yaml/v3", "golang.org/x/crypto/ssh"} {
		require.NotZero(t, at[p], "no init of %s in the trace", p)
		assert.Less(t, first, at[p], "mainstack's init runs after %s's", p)
	}
}

// TestGODEBUGDefaults: git-records is built with updatemaxprocs=0 (no
// goroutine re-reading the cgroup's CPU limit every second for a process
// that lives milliseconds) and with the container-aware GOMAXPROCS left
// on, so a CPU-limited container still starts reindex's and verify's
// workers at its limit (main.go).
func TestGODEBUGDefaults(t *testing.T) {
	t.Parallel()
	info, err := buildinfo.ReadFile(binPath)
	require.NoError(t, err)
	var godebug string
	for _, s := range info.Settings {
		if s.Key == "DefaultGODEBUG" {
			godebug = s.Value
		}
	}
	settings := strings.Split(godebug, ",")
	assert.Contains(t, settings, "updatemaxprocs=0", "DefaultGODEBUG=%s", godebug)
	assert.NotContains(t, godebug, "containermaxprocs", "DefaultGODEBUG=%s", godebug)
}
