//go:build soak

package gitdir

import "testing"

// Longer variants of the compare-and-swap race and the kill -9 test:
//
//	go test -tags soak -run Soak -timeout 30m ./gitstore/gitdir

func TestSoakConcurrentCAS(t *testing.T) {
	concurrentCAS(t, 6, 100, 50)
}

func TestSoakCrashSafetyUnderKill9(t *testing.T) {
	crashUnderKill9(t, 100)
}
