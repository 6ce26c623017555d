//go:build soak

package e2e

import (
	"testing"
	"time"
)

// Longer variants of the convergence and kill tests:
//
//	go test -tags soak -run Soak -timeout 30m ./e2e

func TestSoakFiveClonesManyRounds(t *testing.T) {
	concurrentWritesConverge(t, 6, "A", "B", "C", "D", "E")
}

func TestSoakManyKilledSyncs(t *testing.T) {
	killedSyncs(t, 40, 600*time.Millisecond)
}
