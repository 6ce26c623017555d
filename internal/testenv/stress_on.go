//go:build stress

package testenv

// Stress: built with -tags stress (CI's race step, make stress), the tests
// that race processes against each other run at their full counts.
const Stress = true
