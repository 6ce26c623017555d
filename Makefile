# git-records. `make demo` and `make test` are the README's promise: both work
# on a fresh clone with Go and git installed.
GO      ?= go
BUILD   ?= bin
BIN     := $(BUILD)/git-records
# git-records-server runs the long-running commands (mcp, serve), which
# git-records execs: their dependencies (the MCP SDK, net/http,
# html/template) are not linked into, nor initialised by, every command.
SERVER  := $(BUILD)/git-records-server
PKGS    := ./...
# The binary is built without cgo: nothing in it needs C (os/user and net
# have pure-Go implementations), and a statically linked binary skips the
# dynamic loader, libc's thread start-up and cgo's initialisation, about
# 4 ms of every command (a quarter of a `git records show`'s floor).
STATIC  := CGO_ENABLED=0

.PHONY: all build man install test test-forge test-browser screenshots conformance demo bench stress soak lint fmt clean

all: build

build:
	$(STATIC) $(GO) build -o $(BUILD)/ ./cmd/git-records ./cmd/git-records-server

# Where make install puts the binary, the man pages and the bash completion.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
BASHDIR ?= $(PREFIX)/share/bash-completion/completions

# One man page per command, generated from the commands themselves (the
# mangen build tag adds the hidden command that writes them), and the bash
# completion: cobra's for git-records, and _git_records for git's own.
man: build
	rm -rf $(BUILD)/man && $(STATIC) $(GO) run -tags mangen ./cmd/git-records man $(BUILD)/man/man1
	$(BIN) completion bash > $(BUILD)/git-records.bash
	cat scripts/git-records-git.bash >> $(BUILD)/git-records.bash

# git records --help and git help records run `man git-records`;
# git-records-server goes next to git-records, where mcp and serve look first.
install: build man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/git-records
	install -m 755 $(SERVER) $(DESTDIR)$(BINDIR)/git-records-server
	install -m 644 $(BUILD)/man/man1/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(BUILD)/git-records.bash $(DESTDIR)$(BASHDIR)/git-records

# The tests' temporary repositories go to a tmpfs when there is one
# (TEST_TMPDIR= keeps $TMPDIR): the write path fsyncs every object and ref,
# thousands of fsyncs per test package (12,500 in gitstore's), which a file
# system in memory answers at once. gitstore's store, group and sync tests
# took 0.85x the wall time there, in runs alternated with /tmp.
TEST_TMPDIR ?= $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm)

# -vet=off: make lint runs go vet with every analyzer; go test's own subset
# would vet each changed package a second time.
test:
	$(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR) )$(GO) test -count=1 -vet=off $(PKGS)

# git-records behind a real forge (build tag forge, e2e/forge): Gitea, built
# from its Go module at a pinned version by scripts/gitea.sh (minutes, once
# per machine; cached in ${XDG_CACHE_HOME:-~/.cache}/git-records), started on
# loopback. The tests build git-records as every end-to-end package does,
# install the server hooks where Gitea runs custom hooks, and push, fetch and
# open pull requests over HTTP. Kept out of make test.
test-forge:
	GO=$(GO) ./scripts/gitea.sh >/dev/null
	$(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR) )$(GO) test -count=1 -vet=off -tags forge -timeout 20m ./e2e/forge/

# `git records serve` and `git records graph` in headless Chromium (build tag
# browser); installs chromium when missing, fetches Mermaid from npm once
# into .browser/, keeps screenshots in .browser/artifacts/.
test-browser:
	./scripts/browser-test.sh

# docs/web.md's screenshots of the web view, taken by the browser test.
screenshots:
	SCREENSHOTS_TO=docs/img ./scripts/browser-test.sh

# The Knowledge Kit's store suites, through the contract protocol and
# conformance/knowledge-kit/adapter.mjs. Needs node and npm; fetches the kit
# from the npm registry once into .conformance/.
conformance: build
	GIT_RECORDS_BIN=$(CURDIR)/$(BIN) ./scripts/conformance.sh

demo: build
	./scripts/demo.sh $(BIN)

# Benchmarks compare our costs with the git CLI plumbing doing the same work
# in the same run; docs/performance.md explains the table.
bench: build
	./scripts/bench.sh

# Long concurrency and crash runs, kept out of `make test`.
# The tests that race processes against each other (concurrent creates,
# kill -9 during creates and syncs, creates during repacks, clones that
# converge) at their full rounds; make test runs fewer (testenv.Scaled).
# CI runs them so, under the race detector.
stress:
	$(GO) test -count=1 -tags stress -run 'Concurrent|Crash|Repack|StaleLock|Converge|KilledSync' ./cmd/... ./e2e/...

soak:
	$(GO) test -count=1 -tags soak -run Soak -timeout 30m $(PKGS)

# copycheck: no run of ten lines or more shared with the Go sources of the
# dependencies or of Go itself (the project carries no copied code).
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)
	$(GO) run ./scripts/copycheck

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin .bench .conformance .browser
