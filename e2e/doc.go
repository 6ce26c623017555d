// Package e2e holds end-to-end tests of git-records across several clones:
// the real binary, real git, real remotes (a bare repository on disk and a
// smart-HTTP server on loopback). It has no code of its own; see the
// _test.go files.
//
// The default run stays short; longer soak variants build with -tags soak:
//
//	go test ./e2e
//	go test -tags soak -run Soak -timeout 30m ./e2e
package e2e
