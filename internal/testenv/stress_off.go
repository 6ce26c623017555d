//go:build !stress

package testenv

// Stress: without -tags stress, the tests that race processes against each
// other run fewer rounds, so that make test keeps its three-minute budget;
// CI's race step runs them in full (-tags stress) under the race detector.
const Stress = false
