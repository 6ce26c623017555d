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
