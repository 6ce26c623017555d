# git-records. `make demo` and `make test` are the README's promise: both work
# on a fresh clone with Go and git installed.
GO      ?= go
BIN     := bin/git-records
PKGS    := ./...

.PHONY: all build install test test-browser screenshots conformance demo bench soak lint fmt clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/git-records

install:
	$(GO) install ./cmd/git-records

test:
	$(GO) test -count=1 $(PKGS)

# `git records serve` and `git records graph` in headless Chromium (build tag
# browser); installs chromium when missing, fetches Mermaid from npm once
# into .browser/, keeps screenshots in .browser/artifacts/.
test-browser:
	./scripts/browser-test.sh

# The README's screenshots of the web view, taken by the browser test.
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
# in the same run; the README's Performance section explains the table.
bench: build
	./scripts/bench.sh

# Long concurrency and crash runs, kept out of `make test`.
soak:
	$(GO) test -count=1 -tags soak -run Soak -timeout 30m $(PKGS)

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin .bench .conformance .browser
