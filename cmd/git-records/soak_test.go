//go:build soak

package main

import "testing"

// Longer variants of the race and kill tests, for make soak:
//
//	go test -tags soak -run Soak -timeout 30m ./cmd/git-records
//
// make test runs the same tests with fewer processes (TestCrashSafety:
// 12 killed creates per phase, TestConcurrentCreates: 4 loops of 4,
// TestCreatesDuringRepack: 3 loops of 4); these run them at the sizes
// they had before (30 per phase, 4 loops of 10, 3 loops of 8) and more.

func TestSoakCrashSafety(t *testing.T) { crashSafety(t, 60) }

func TestSoakConcurrentCreates(t *testing.T) { concurrentCreates(t, 25) }

func TestSoakCreatesDuringRepack(t *testing.T) { createsDuringRepack(t, 20) }
