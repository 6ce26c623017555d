// Package forge tests git-records behind a real forge: Gitea, built from its
// Go module by scripts/gitea.sh and started on loopback with SQLite, its
// users, tokens, repositories and pull requests made through its API, the
// server hooks installed where Gitea runs custom hooks (`git records hooks
// install --server` in the repository's directory), and every push, fetch
// and clone over HTTP. It has no code of its own; the tests build only with
// the forge tag and run as `make test-forge`, not in `make test`:
//
//	make test-forge
//	go test -tags forge ./e2e/forge/   # builds Gitea first when it is not cached
package forge
